"""Pure rendering of the ladder (issue 17): leaderboard pages and members' records as
embeds. Names are the last known ones, shown as inert text (never a mention: a member who
left would show as an unknown user). Texts go through the catalog in the caller's
``speaking`` scope, numbers are written the language's way (babel)."""

from __future__ import annotations

from decimal import Decimal

import discord
from babel.numbers import format_decimal

from bot.i18n.context import _, _n, current_language
from bot.i18n.translate import N_
from bot.presentation.discord_replies import COLOUR
from bot.presentation.discord_text import safe, timestamp
from bot.services.ladder_views import (
    DuelLine,
    LadderRecord,
    LeaderboardPage,
    MemberRecords,
    RecordLine,
)

# Translators: the letters here are the ones of the record ("5W 2L ...") and the streak.
LEGEND = N_("W wins · L losses · D draws · R retreats or flights · C ended by a commander")
KIND_TEXT = {
    "win": N_("win"),
    "loss": N_("loss"),
    "draw": N_("draw"),
    "retreat": N_("retreat or flight"),
    "commander": N_("ended by a commander"),
}


def number_text(value: float, *, signed: bool = False) -> str:
    """A number with one decimal, written the current language's way ("3.5", German
    "3,5"); ``signed``: with its sign ("+1.2", "-0.8")."""
    pattern = "+0.0;-0.0" if signed else "0.0;-0.0"
    # Rounded as Python rounds it (as before), then written the language's way.
    shown = Decimal(f"{value:.1f}")
    return str(format_decimal(shown, format=pattern, locale=current_language()))


def rating_text(value: float) -> str:
    return number_text(value)


def streak_text(streak: int) -> str:
    if streak > 0:
        # Translators: a winning streak, W as in the legend ("W3").
        return _("W{count}", count=streak)
    if streak < 0:
        # Translators: a losing streak, L as in the legend ("L2").
        return _("L{count}", count=-streak)
    return "-"


def record_text(line: RecordLine) -> str:
    """``5W 2L 1D 1R 0C``: the record in the legend's letters."""
    # Translators: the letters as in the legend (W wins, L losses, D draws, R retreats, C
    # ended by a commander).
    return _(
        "{wins}W {losses}L {draws}D {retreats}R {commander}C",
        wins=line.wins,
        losses=line.losses,
        draws=line.draws,
        retreats=line.retreats,
        commander=line.commander_ended,
    )


def leaderboard_embed(page: LeaderboardPage) -> discord.Embed:
    embed = discord.Embed(
        title=_("Leaderboard: {ruleset}", ruleset=page.ruleset_title)[:256], colour=COLOUR
    )
    if not page.rows:
        embed.description = _(
            "Nobody has a rated {ruleset} duel in this server yet: the ladder counts duels as "
            "they end.",
            ruleset=page.ruleset_title,
        )
    else:
        embed.description = "\n".join(
            _(
                "**{rank}.** {name} · **{rating}** · {record} · streak {streak}",
                rank=row.rank,
                name=safe(row.line.name, 40),
                rating=rating_text(row.line.rating),
                record=record_text(row.line),
                streak=streak_text(row.line.streak),
            )
            for row in page.rows
        )[:4096]
    members = _n(
        "{count} rated member", "{count} rated members", page.rated_members
    )
    embed.set_footer(
        text=_(
            "Page {page} of {pages} · {members} · {legend}",
            page=page.page,
            pages=page.pages,
            members=members,
            legend=_(LEGEND),
        )[:2048]
    )
    return embed


def _duel_line(duel: DuelLine) -> str:
    change = duel.rating_after - duel.rating_before
    moved = "" if duel.kind == "commander" else f" ({number_text(change, signed=True)})"
    kind = KIND_TEXT.get(duel.kind)
    return _(
        "#{duel} {kind} vs {opponent}{change} {date}",
        duel=duel.duel_id,
        kind=_(kind) if kind is not None else duel.kind,
        opponent=safe(duel.opponent_name, 40),
        change=moved,
        date=timestamp(duel.ended_at, date_only=True),
    )


def _record_field(record: LadderRecord) -> tuple[str, str]:
    line = record.line
    rank = (
        _("rank {rank} of {members}", rank=record.rank, members=record.rated_members)
        if record.rank is not None
        else _("not rated yet")
    )
    rating = _(
        "Rating **{rating}** (mu {mu}, sigma {sigma})",
        rating=rating_text(line.rating),
        mu=number_text(line.mu),
        sigma=number_text(line.sigma),
    )
    tally = _n(
        "{count} duel: {wins} won, {losses} lost, {draws} drawn, {retreats} retreat(s) or "
        "flight(s), {commander} ended by a commander · streak {streak}",
        "{count} duels: {wins} won, {losses} lost, {draws} drawn, {retreats} retreat(s) or "
        "flight(s), {commander} ended by a commander · streak {streak}",
        line.duels,
        wins=line.wins,
        losses=line.losses,
        draws=line.draws,
        retreats=line.retreats,
        commander=line.commander_ended,
        streak=streak_text(line.streak),
    )
    value = f"{rating}\n{tally}"
    if record.last_duels:
        value += "\n" + _(
            "Last duels: {duels}", duels="; ".join(_duel_line(d) for d in record.last_duels)
        )
    return f"{record.ruleset_title} · {rank}"[:256], value[:1024]


def record_embed(records: MemberRecords) -> discord.Embed:
    name = safe(records.name, 60)
    embed = discord.Embed(title=_("{name}'s record", name=name)[:256], colour=COLOUR)
    if not records.records:
        embed.description = (
            _(
                "{name} has no {ruleset} record in this server yet: a record starts when one "
                "of their duels ends.",
                name=name,
                ruleset=records.asked_ruleset_title,
            )
            if records.asked_ruleset_title
            else _(
                "{name} has no record in this server yet: a record starts when one of their "
                "duels ends.",
                name=name,
            )
        )
        return embed
    for record in records.records:
        title, value = _record_field(record)
        embed.add_field(name=title, value=value, inline=False)
    embed.set_footer(
        text=_(
            "Rating: openskill's mu - 3 sigma (0 for a newcomer); retreats rate as draws; "
            "duels ended by a commander are counted, never rated."
        )
    )
    return embed
