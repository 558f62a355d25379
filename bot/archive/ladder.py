"""The archive's ladder page (issue 17): each ruleset's leaderboard of the server and, per
member, the rating over time as an inline SVG chart (no outside request). Pure: built from
plain views the rating service returns. In ``language`` (the server's; None: English,
issue 28; bot/archive/site.py says why not a duel's)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from babel.numbers import format_decimal

from bot.archive.page import asset, fill
from bot.archive.rating_chart import rating_chart_svg
from bot.archive.texts import locale_tag, markup, slot, text
from bot.i18n.context import _, _n, _p, speaking
from bot.services.ladder_views import LadderMember, LadderSection, RecordLine

LADDER_FILENAME = "ladder.html"


def record_text(r: RecordLine) -> str:
    """A member's record in the current language ("3W 1L 0D, 1 retreat")."""
    # Translators: wins, losses and draws, as short as the column allows (W: won...).
    text_ = _("{wins}W {losses}L {draws}D", wins=r.wins, losses=r.losses, draws=r.draws)
    if r.retreats:
        text_ = _n("{record} {count} retreat", "{record} {count} retreats", r.retreats,
                   record=text_)
    if r.commander_ended:
        text_ = _n(
            "{record} {count} ended by a commander",
            "{record} {count} ended by a commander",
            r.commander_ended,
            record=text_,
        )
    return text_


def _member_row(m: LadderMember, ruleset: str) -> str:
    e = html.escape
    name = m.record.name
    chart = rating_chart_svg(m.history, title=_("Rating of {name} over time", name=name))
    summary = text(_p("ladder page: opens a chart", "chart"))
    rating = format_decimal(m.record.rating, "0.0", locale=locale_tag().replace("-", "_"))
    return (
        f'<tr data-ruleset="{e(ruleset)}" data-user="{m.record.user_id}">'  # i18n: not shown
        f"<td>{m.rank}</td><td>{e(name)}</td><td>{e(rating)}</td>"  # i18n: not shown
        f"<td>{e(record_text(m.record))}</td><td>{m.record.duels}</td>"  # i18n: not shown
        f"<td><details><summary>{summary}</summary>"  # i18n: not shown
        f'<div class="chart">{chart}</div></details></td>'  # i18n: not shown
        "</tr>"  # i18n: not shown
    )


def _head(*labels: str) -> str:
    return "".join(f'<th scope="col">{text(label)}</th>' for label in labels)  # i18n: not shown


def _section(s: LadderSection) -> str:
    e = html.escape
    rows = "\n".join(_member_row(m, s.ruleset) for m in s.members)
    head = _head(
        _p("ladder page: a column", "Rank"),
        _p("ladder page: a column", "Name"),
        _p("ladder page: a column", "Rating"),
        _p("ladder page: a column", "Record"),
        _p("ladder page: a column", "Duels"),
        _p("ladder page: a column", "Rating over time"),
    )
    return (
        f'<section class="panel ladder" id="ladder-{e(s.ruleset)}">'  # i18n: not shown
        f"<h2>{e(s.ruleset_title)}</h2>"  # i18n: not shown
        f'<table class="index"><thead><tr>{head}</tr></thead>'  # i18n: not shown
        f"<tbody>\n{rows}\n</tbody></table></section>"  # i18n: not shown
    )


def render_ladder_page(
    sections: Sequence[LadderSection], title: str | None = None, *, language: str | None = None
) -> str:
    """The leaderboards of a server, one section per ruleset with rated members, in
    ``language`` (None: English); ``title`` None: "Ladder" in it."""
    with speaking(language) as speaks:
        empty = text(_("No rated duel yet."))
        all_duels = text(_("All duels"))
        body = "\n".join(_section(s) for s in sections if s.members) or (
            f'<section class="panel"><p class="muted">{empty}</p></section>'  # i18n: not shown
        )
        return fill(
            asset("ladder.html"),
            {
                "lang": locale_tag(speaks),
                "title": html.escape(_("Ladder") if title is None else title),
                "css": asset("page.css") + asset("index.css"),
                "sections": body,
                "t_kicker": text(_("duelbot archive")),
                "t_intro": markup(
                    _(
                        "Ratings are replayed from the ended duels in order (docs/ladder.md). "
                        "{all_duels}.",
                        all_duels=slot("all_duels"),
                    ),
                    all_duels=f'<a href="index.html">{all_duels}</a>',
                ),
                "t_footer": text(_("Made by duelbot.")),
            },
        )
