"""``duelbot ratings rebuild [--guild ID] [--check]``: recompute ladders from history.

Every ladder (server and ruleset) is replayed from its ended duels and compared with what is
stored. Without ``--check`` the replay is stored (a repair: it is what the bot would have
stored); with it nothing is written and the exit status is 1 when a stored value differs.
Exit 2: bad input (configuration, database, a server id out of range).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.bootstrap import ConfigError, load_settings, open_services
from bot.db.engine import DatabaseUnavailable
from bot.services.errors import Unavailable
from bot.services.ladder_views import RebuildReport

SNOWFLAKE_MAX = 2**63 - 1
SHOWN_DIFFERENCES = 5


def rebuild(args: argparse.Namespace) -> int:
    guild: int | None = args.guild
    if guild is not None and not 1 <= guild <= SNOWFLAKE_MAX:
        print(
            f"duelbot ratings rebuild: error: --guild must be a server id (1 to {SNOWFLAKE_MAX})",
            file=sys.stderr,
        )
        return 2
    try:
        reports = asyncio.run(_run(args.config, guild, bool(args.check)))
    except Exception as exc:  # configuration or database: say what, exit 2
        if not isinstance(exc, ConfigError | DatabaseUnavailable | Unavailable | OSError):
            raise
        said = exc.detail if isinstance(exc, Unavailable) else str(exc)
        print(f"duelbot ratings rebuild: error: {' '.join(said.split())}", file=sys.stderr)
        return 2
    for line in summary(reports, check=bool(args.check)):
        print(line)
    differing = any(r.differences for r in reports)
    return 1 if args.check and differing else 0


async def _run(config: str | None, guild: int | None, check: bool) -> list[RebuildReport]:
    async with open_services(load_settings(config)) as services:
        ratings = services.ratings
        return [
            await ratings.rebuild(g, r, check_only=check) for g, r in await ratings.ladders(guild)
        ]


def summary(reports: list[RebuildReport], *, check: bool) -> list[str]:
    """One line per ladder (and its first differences), then the totals."""
    lines = []
    for r in reports:
        state = "equal to the stored values" if not r.differences else (
            f"{len(r.differences)} stored value(s) differ"
            + ("" if check else " (repaired)")
        )
        lines.append(
            f"server {r.guild_id} {r.ruleset}: {r.duels} ended duel(s), {r.members} member(s), "
            f"{state}"
        )
        lines += [f"  - {d}" for d in r.differences[:SHOWN_DIFFERENCES]]
        if len(r.differences) > SHOWN_DIFFERENCES:
            lines.append(f"  - ... and {len(r.differences) - SHOWN_DIFFERENCES} more")
    differing = sum(1 for r in reports if r.differences)
    verb = "checked" if check else "rebuilt"
    lines.append(
        f"{len(reports)} ladder(s) {verb}, {sum(r.duels for r in reports)} duel(s) replayed, "
        f"{differing} with differences"
        + ("" if check or not differing else " (now equal to the replay)")
        + "."
    )
    return lines
