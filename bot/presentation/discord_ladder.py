"""Pure rendering of the ladder (issue 17): leaderboard pages and members' records as
embeds. Names are the last known ones, shown as inert text (never a mention: a member who
left would show as an unknown user)."""

from __future__ import annotations

import discord

from bot.presentation.discord_replies import COLOUR
from bot.presentation.discord_text import safe, timestamp
from bot.services.ladder_views import (
    DuelLine,
    LadderRecord,
    LeaderboardPage,
    MemberRecords,
    RecordLine,
)

LEGEND = "W wins · L losses · D draws · R retreats or flights · C ended by a commander"
KIND_TEXT = {
    "win": "win",
    "loss": "loss",
    "draw": "draw",
    "retreat": "retreat or flight",
    "commander": "ended by a commander",
}


def rating_text(value: float) -> str:
    return f"{value:.1f}"


def streak_text(streak: int) -> str:
    if streak > 0:
        return f"W{streak}"
    if streak < 0:
        return f"L{-streak}"
    return "-"


def record_text(line: RecordLine) -> str:
    """``5W 2L 1D 1R 0C``: the record in the legend's letters."""
    return (
        f"{line.wins}W {line.losses}L {line.draws}D {line.retreats}R {line.commander_ended}C"
    )


def leaderboard_embed(page: LeaderboardPage) -> discord.Embed:
    embed = discord.Embed(title=f"Leaderboard: {page.ruleset_title}"[:256], colour=COLOUR)
    if not page.rows:
        embed.description = (
            f"Nobody has a rated {page.ruleset_title} duel in this server yet: the ladder "
            "counts duels as they end."
        )
    else:
        embed.description = "\n".join(
            f"**{row.rank}.** {safe(row.line.name, 40)} · **{rating_text(row.line.rating)}** "
            f"· {record_text(row.line)} · streak {streak_text(row.line.streak)}"
            for row in page.rows
        )[:4096]
    embed.set_footer(
        text=(
            f"Page {page.page} of {page.pages} · {page.rated_members} rated "
            f"member{'s' if page.rated_members != 1 else ''} · {LEGEND}"
        )[:2048]
    )
    return embed


def _duel_line(duel: DuelLine) -> str:
    change = duel.rating_after - duel.rating_before
    moved = "" if duel.kind == "commander" else f" ({change:+.1f})"
    return (
        f"#{duel.duel_id} {KIND_TEXT.get(duel.kind, duel.kind)} vs "
        f"{safe(duel.opponent_name, 40)}{moved} {timestamp(duel.ended_at, date_only=True)}"
    )


def _record_field(record: LadderRecord) -> tuple[str, str]:
    line = record.line
    rank = (
        f"rank {record.rank} of {record.rated_members}"
        if record.rank is not None
        else "not rated yet"
    )
    value = (
        f"Rating **{rating_text(line.rating)}** (mu {line.mu:.1f}, sigma {line.sigma:.1f})\n"
        f"{line.duels} duel{'s' if line.duels != 1 else ''}: {line.wins} won, "
        f"{line.losses} lost, {line.draws} drawn, {line.retreats} retreat(s) or flight(s), "
        f"{line.commander_ended} ended by a commander · streak {streak_text(line.streak)}"
    )
    if record.last_duels:
        value += "\nLast duels: " + "; ".join(_duel_line(d) for d in record.last_duels)
    return f"{record.ruleset_title} · {rank}"[:256], value[:1024]


def record_embed(records: MemberRecords) -> discord.Embed:
    name = safe(records.name, 60)
    embed = discord.Embed(title=f"{name}'s record"[:256], colour=COLOUR)
    if not records.records:
        under = f" {records.asked_ruleset_title}" if records.asked_ruleset_title else ""
        embed.description = (
            f"{name} has no{under} record in this server yet: a record starts when one of "
            "their duels ends."
        )
        return embed
    for record in records.records:
        title, value = _record_field(record)
        embed.add_field(name=title, value=value, inline=False)
    embed.set_footer(
        text="Rating: openskill's mu - 3 sigma (0 for a newcomer); retreats rate as draws; "
        "duels ended by a commander are counted, never rated."
    )
    return embed
