"""Ladder benchmark (issue 17): the leaderboard with many rated members, and the cost of
keeping ratings derived.

    python -m bench.ladder_bench [--members 10000] [--duels 2000] [--backend sqlite,postgres]

For each backend, on a fresh database (``bench.service_bench.fresh_database``):

1. bulk-load ``--members`` rated members on one ladder (core insert, then ANALYZE) and time
   ``RatingService.leaderboard`` for the first, a middle and the last page and
   ``RatingService.record`` (the rank is a COUNT over the index), ``--reps`` times each;
   print the plan of the page query (it must use ix_ladder_ratings_rank, not a sort of the
   whole ladder);
2. bulk-load ``--duels`` ended duels (each with its deciding round) on another server and
   time a full replay (``rebuild``), the close of one more duel that ends (the ladder is
   appended to in the close's transaction) and an undo of it (a replay from that duel on).

Discord gives an interaction 3 s; the commands defer first, so the figure that matters is
the service call (the follow-up must come within 15 minutes, but users wait for it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import event, insert, text

from bench import service_bench
from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import Duel, LadderRating, Round, utcnow
from bot.db.ratings_queries import leaderboard_page
from bot.services.container import Services
from bot.services.views import MemberRef

GUILD, HISTORY_GUILD = 1, 2
RULESET = DuelSettings().ruleset


async def timed(call: Callable[[], Awaitable[Any]], reps: int) -> list[float]:
    found = []
    for _ in range(reps):
        start = time.perf_counter()
        await call()
        found.append((time.perf_counter() - start) * 1000)
    return found


def figures(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"  {name:<34} p50 {statistics.median(ms):7.2f} ms  p95 {p95:7.2f}  max {ms[-1]:7.2f}"


async def analyze(db: Database) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(text("ANALYZE"))


async def load_members(db: Database, members: int) -> None:
    rng = random.Random(1)
    now = utcnow()
    rows = []
    for i in range(members):
        mu, sigma = rng.uniform(10, 40), rng.uniform(1, 8.3)
        wins, losses = rng.randint(0, 30), rng.randint(0, 30)
        rows.append(
            {
                "guild_id": GUILD, "ruleset": RULESET, "user_id": 10**17 + i,
                "display_name": f"member {i}", "name_seen_at": now, "mu": mu, "sigma": sigma,
                "rating": mu - 3 * sigma, "duels": wins + losses + 1, "rated": wins + losses + 1,
                "wins": wins + 1, "losses": losses, "draws": 0, "retreats": 0,
                "commander_ended": 0, "streak": 0, "last_duel_at": now,
            }
        )
    async with db.transaction() as session:
        for start in range(0, len(rows), 2000):
            await session.execute(insert(LadderRating), rows[start : start + 2000])
    await analyze(db)


async def page_plan(db: Database) -> str:
    """The database's plan for one leaderboard page query (as the service sends it)."""
    async with db.transaction() as session:
        compiled = None

        def grab(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
            nonlocal compiled
            if "offset" in statement.lower() and compiled is None:
                compiled = (statement, params)

        sync_engine = db.engine.sync_engine
        event.listen(sync_engine, "before_cursor_execute", grab)
        try:
            await leaderboard_page(session, GUILD, RULESET, offset=4990, limit=10)
        finally:
            event.remove(sync_engine, "before_cursor_execute", grab)
        assert compiled is not None
        statement, params = compiled
        prefix = "EXPLAIN QUERY PLAN " if db.dialect == "sqlite" else "EXPLAIN "
        raw = await session.connection()
        driver = await raw.get_raw_connection()
        if db.dialect == "sqlite":
            cursor = await driver.driver_connection.execute(prefix + statement, params)
            rows = await cursor.fetchall()
            captured = [str(r[-1]) for r in rows]
        else:
            rows = await driver.driver_connection.fetch(prefix + statement, *params)
            captured = [r[0] for r in rows]
        return "\n".join(f"    {line}" for line in captured)


async def load_history(db: Database, duels: int) -> None:
    """``duels`` ended rule 2.14 duels among duels // 4 members, each with its closed
    deciding round (wins, losses and both-retreats; one in ten ended by a commander)."""
    rng = random.Random(2)
    members = max(4, duels // 4)
    start = utcnow() - timedelta(days=365)
    duel_rows, round_rows = [], []
    for i in range(duels):
        a, b = rng.sample(range(members), 2)
        ended = start + timedelta(minutes=i)
        commander = rng.random() < 0.1
        outcome = rng.choice(["a_wins", "b_wins", "both_retreat"])
        winner = None if commander or outcome == "both_retreat" else outcome[0]
        state = {"a": {"name": f"p{a}", "str": 5, "agi": 5}, "b": {"name": f"p{b}"}}
        duel_rows.append(
            {
                "id": i + 1, "guild_id": HISTORY_GUILD, "channel_id": 1, "ruleset": RULESET,
                "a_user_id": 10**17 + a, "b_user_id": 10**17 + b, "state": state,
                "options": {}, "status": "ended", "locked": False, "winner": winner,
                "end_kind": "commander" if commander else "result", "rounds_played": 1,
                "created_by": 9, "created_at": ended - timedelta(hours=1), "ended_at": ended,
            }
        )
        round_rows.append(
            {
                "duel_id": i + 1, "number": 1, "status": "cancelled" if commander else "closed",
                "opened_by": 9, "opened_at": ended, "seed": "0" * 64, "commitment": "0" * 64,
                "state_before": {}, "closed_at": ended, "outcome": None if commander else outcome,
                "reminders_sent": {},
            }
        )
    async with db.transaction() as session:
        for at in range(0, duels, 2000):
            await session.execute(insert(Duel), duel_rows[at : at + 2000])
            await session.execute(insert(Round), round_rows[at : at + 2000])
    if db.dialect == "postgresql":
        async with db.engine.begin() as conn:
            await conn.execute(text("SELECT setval('duels_id_seq', :n)"), {"n": duels})
    await analyze(db)


async def run_backend(backend: str, args: argparse.Namespace) -> None:
    cfg, _ = service_bench.parse_args(
        ["--backend", backend, "--postgres-url", args.postgres_url]
    )
    async with service_bench.fresh_database(backend, cfg) as db:
        services = Services.create(db, DuelSettings(missing_move="forfeit"))
        ratings = services.ratings
        print(f"{backend}: {args.members} rated members on one ladder")
        await load_members(db, args.members)
        last = max(1, -(-args.members // 10))
        first_page = await ratings.leaderboard(GUILD, RULESET, 1)
        assert first_page.rows and first_page.rows[0].rank == 1
        for name, page in (("leaderboard page 1", 1), ("leaderboard middle page", last // 2 or 1),
                           (f"leaderboard last page ({last})", last)):
            ms = await timed(lambda p=page: ratings.leaderboard(GUILD, RULESET, p), args.reps)
            print(figures(name, ms))
        someone = MemberRef(10**17 + args.members // 2, "someone")
        ms = await timed(lambda: ratings.record(GUILD, someone, RULESET), args.reps)
        print(figures("record (rank + last 5 duels)", ms))
        print("  plan of a page query (offset 4990):")
        print(await page_plan(db))

        print(f"{backend}: {args.duels} ended duels on another server's ladder")
        await load_history(db, args.duels)
        t0 = time.perf_counter()
        report = await ratings.rebuild(HISTORY_GUILD, RULESET)
        print(
            f"  full replay (rebuild) of {report.duels} duels, {report.members} members: "
            f"{(time.perf_counter() - t0) * 1000:.0f} ms"
        )
        a, b = MemberRef(10**17, "p0"), MemberRef(10**17 + 1, "p1")
        closes, undos = [], []
        for _ in range(args.closes):
            for m in (a, b):
                await services.profiles.set_stats(HISTORY_GUILD, 9, m, 5, 5)
            duel = await services.duels.start_duel(
                guild_id=HISTORY_GUILD, channel_id=1, actor_id=9, a=a, b=b
            )
            await services.duels.open_round(duel_id=duel.id, guild_id=HISTORY_GUILD, actor_id=9)
            await services.duels.submit_move(
                user_id=a.user_id, move="evade", via="slash", duel_id=duel.id,
                guild_id=HISTORY_GUILD,
            )
            closes += await timed(
                lambda d=duel.id: services.duels.close_round(
                    duel_id=d, guild_id=HISTORY_GUILD, actor_id=9
                ),
                1,
            )
            undos += await timed(
                lambda d=duel.id: services.duels.undo_round(
                    duel_id=d, guild_id=HISTORY_GUILD, actor_id=9, reason="bench"
                ),
                1,
            )
            # An undone deciding round cannot be ended by a commander (issue 23): the
            # duel is decided again by its next round, as a real duel would be.
            await services.duels.open_round(duel_id=duel.id, guild_id=HISTORY_GUILD, actor_id=9)
            await services.duels.submit_move(
                user_id=a.user_id, move="evade", via="slash", duel_id=duel.id,
                guild_id=HISTORY_GUILD,
            )
            await services.duels.close_round(duel_id=duel.id, guild_id=HISTORY_GUILD, actor_id=9)
        print(figures("close that ends a duel (append)", closes))
        print(figures("undo of that close (replay)", undos))
        check = await ratings.rebuild(HISTORY_GUILD, RULESET, check_only=True)
        assert check.differences == (), check.differences[:3]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ladder_bench")
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--duels", type=int, default=2_000)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--closes", type=int, default=10)
    parser.add_argument("--backend", default="sqlite,postgres")
    parser.add_argument("--postgres-url", default=service_bench.DEFAULT_POSTGRES_URL)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    for backend in args.backend.split(","):
        asyncio.run(run_backend(backend.strip(), args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
