"""The archive's ladder page (issue 17): each ruleset's leaderboard of the server and, per
member, the rating over time as an inline SVG chart (no outside request). Pure: built from
plain views the rating service returns."""

from __future__ import annotations

import html
from collections.abc import Sequence

from bot.archive.page import asset, fill
from bot.archive.rating_chart import rating_chart_svg
from bot.services.ladder_views import LadderMember, LadderSection, RecordLine

LADDER_FILENAME = "ladder.html"


def record_text(r: RecordLine) -> str:
    parts = [f"{r.wins}W", f"{r.losses}L", f"{r.draws}D"]
    if r.retreats:
        parts.append(f"{r.retreats} retreat{'s' if r.retreats != 1 else ''}")
    if r.commander_ended:
        parts.append(f"{r.commander_ended} ended by a commander")
    return " ".join(parts)


def _member_row(m: LadderMember, ruleset: str) -> str:
    e = html.escape
    name = m.record.name
    chart = rating_chart_svg(m.history, title=f"Rating of {name} over time")
    return (
        f'<tr data-ruleset="{e(ruleset)}" data-user="{m.record.user_id}">'
        f"<td>{m.rank}</td><td>{e(name)}</td><td>{m.record.rating:.1f}</td>"
        f"<td>{e(record_text(m.record))}</td><td>{m.record.duels}</td>"
        f'<td><details><summary>chart</summary><div class="chart">{chart}</div></details></td>'
        "</tr>"
    )


def _section(s: LadderSection) -> str:
    e = html.escape
    rows = "\n".join(_member_row(m, s.ruleset) for m in s.members)
    return (
        f'<section class="panel ladder" id="ladder-{e(s.ruleset)}">'
        f"<h2>{e(s.ruleset_title)}</h2>"
        '<table class="index"><thead><tr><th scope="col">Rank</th><th scope="col">Name</th>'
        '<th scope="col">Rating</th><th scope="col">Record</th><th scope="col">Duels</th>'
        '<th scope="col">Rating over time</th></tr></thead>'
        f"<tbody>\n{rows}\n</tbody></table></section>"
    )


def render_ladder_page(sections: Sequence[LadderSection], title: str = "Ladder") -> str:
    """The leaderboards of a server, one section per ruleset with rated members."""
    body = "\n".join(_section(s) for s in sections if s.members) or (
        '<section class="panel"><p class="muted">No rated duel yet.</p></section>'
    )
    return fill(
        asset("ladder.html"),
        {
            "title": html.escape(title),
            "css": asset("page.css") + asset("index.css"),
            "sections": body,
        },
    )
