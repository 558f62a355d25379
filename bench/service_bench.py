"""Service benchmark: the duel service against a bare read-then-write transaction.

    python -m bench.service_bench [--duels 1000,100000] [--backend sqlite,postgres] [--quick]

For each backend and each number of stored duels, on a fresh database (a temporary SQLite
file; a temporary PostgreSQL schema, dropped afterwards), with the engine settings the bot
uses (``bot.db.engine.make_database``):

1. bulk-load N stored duels with their history (core inserts: duels, one closed round each,
   its two submissions, its result post and its audit row), then ANALYZE;
2. start live duels through the services, each with an open round (ops / 4 of them);
3. measure (a) the baseline: one transaction that SELECTs a duel row FOR UPDATE, UPDATEs it
   and commits, with SQLAlchemy on the same engine; (b) ``DuelService.submit_move``: each
   round gets a's move, b's move, then a change of each (the server allows changes), half
   with a duel id (slash command, button), half without (a DM); (c)
   ``DuelService.close_round`` latency (p50, p99) on ``--active`` duels, both having moved.

Operations run one after another (the latency of one transaction, which is what a
Discord interaction waits for). The sizes of one backend are measured side by side in
interleaved blocks ((a) then (b) back to back), so that other load on the machine weighs on
every figure alike; (b)/(a) is the median of the per-block ratios.
The table gives (b)/(a) (target >= 0.5), the close p99 (target <= 20 ms on SQLite) and the
cost at each N over the smallest N (target <= 1.2).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, text, update

from bot.config import DuelSettings
from bot.db.engine import Database, make_database
from bot.db.models import (
    AuditEntry,
    Base,
    Duel,
    OutboxPost,
    Round,
    Submission,
    utcnow,
)
from bot.rules import registry
from bot.rules.dice import FairDice, commitment, new_seed
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from bot.services.container import Services
from bot.services.views import MemberRef

DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
TARGET_RATIO = 0.5
TARGET_CLOSE_P99_MS = 20.0
TARGET_SCALING = 1.2

BENCH_GUILD = 1  # the guild of the active duels (also holds stored duels)
ACTOR = 7
CHUNK = 5_000
SUBMITS_PER_ROUND = 4  # submit phase: a's move, b's move, then a change of each
BLOCKS = 10  # measurements are interleaved across sizes in this many blocks


@dataclass(frozen=True)
class Config:
    sizes: tuple[int, ...]
    backends: tuple[str, ...]
    baseline_ops: int
    submit_ops: int
    closes: int
    active: int
    warmup: int
    postgres_url: str
    seed: int


@dataclass
class Result:
    backend: str
    duels: int
    load_seconds: float
    baseline_tps: float
    submit_tps: float
    close_p50_ms: float
    close_p99_ms: float
    close_mean_ms: float
    ratio: float  # median over blocks of (b)/(a) measured back to back


# -- databases ---------------------------------------------------------------------------


@asynccontextmanager
async def fresh_database(backend: str, cfg: Config) -> AsyncIterator[Database]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="duelbench-") as tmp:
            db = make_database(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
            try:
                await _create_schema(db)
                yield db
            finally:
                await db.dispose()
        return
    if backend != "postgres":
        raise SystemExit(f"unknown backend {backend!r} (sqlite, postgres)")
    schema = f"bench_{secrets.token_hex(5)}"
    admin = make_database(cfg.postgres_url, pool_size=1)
    async with admin.engine.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in cfg.postgres_url else "?"
    db = make_database(f"{cfg.postgres_url}{sep}search_path={schema}")
    try:
        await _create_schema(db)
        yield db
    finally:
        await db.dispose()
        async with admin.engine.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


async def _create_schema(db: Database) -> None:
    async with db.engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)


# -- bulk load ---------------------------------------------------------------------------


def _sample_result(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """A real stored result (rolls, log lines) to give stored rounds a realistic size."""
    state = DuelState(Duellist("Stored A", 10, 10), Duellist("Stored B", 10, 10))
    result = registry.get("rule-2.14").resolve(
        state,
        {"a": "full_frontal_strike", "b": "evade"},
        FairDice(new_seed(), 1, 1),
        Options(),
    )
    stored = result.to_dict()
    stored["options"] = {"missing_move": "none", "locked_blocks_retreat": False}
    stored["via"] = {"a": "dm_text", "b": "slash"}
    return state.to_dict(), stored


async def bulk_load(db: Database, n: int, rng: random.Random) -> None:
    """N stored duels with one closed round each, its submissions, post and audit row."""
    state, stored = _sample_result(rng)
    guilds = max(1, n // 100)
    users = max(4, n // 2)
    now = utcnow()
    seed = new_seed()
    commit_hex = commitment(seed)
    for start in range(0, n, CHUNK):
        ids = range(start + 1, min(n, start + CHUNK) + 1)
        duels, rounds, subs, posts, audits = [], [], [], [], []
        for i in ids:
            a = 10_000_000 + rng.randrange(users)
            b = 10_000_000 + (a - 10_000_000 + 1 + rng.randrange(users - 1)) % users
            guild = BENCH_GUILD if i % guilds == 0 else 100 + i % guilds
            live = rng.random() < 0.2
            duels.append(
                {
                    "id": i,
                    "guild_id": guild,
                    "channel_id": 5_000 + i % 50,
                    "thread_id": None,
                    "ruleset": "rule-2.14",
                    "a_user_id": a,
                    "b_user_id": b,
                    "state": state,
                    "options": stored["options"],
                    "status": "live" if live else "ended",
                    "locked": False,
                    "winner": None if live else "a",
                    "end_reason": None if live else "round 1: a_wins",
                    "end_kind": None if live else "result",
                    "rounds_played": 1,
                    "created_by": ACTOR,
                    "created_at": now,
                    "ended_at": None if live else now,
                }
            )
            rounds.append(
                {
                    "id": i,
                    "duel_id": i,
                    "number": 1,
                    "status": "closed",
                    "opened_by": ACTOR,
                    "opened_at": now,
                    "deadline": now,
                    "reminders_sent": {},
                    "seed": seed,
                    "commitment": commit_hex,
                    "state_before": state,
                    "closed_by": ACTOR,
                    "closed_at": now,
                    "close_reason": "commander",
                    "outcome": stored["outcome"],
                    "result": stored,
                    "undone_by": None,
                    "undone_at": None,
                }
            )
            for side, user, move in (("a", a, "full_frontal_strike"), ("b", b, "evade")):
                subs.append(
                    {
                        "round_id": i,
                        "side": side,
                        "user_id": user,
                        "move": move,
                        "via": "dm_text",
                        "submitted_at": now,
                        "superseded_at": None,
                    }
                )
            posts.append(
                {
                    "dedupe_key": f"round_result:{i}",
                    "guild_id": guild,
                    "duel_id": i,
                    "kind": "round_result",
                    "target": "channel",
                    "target_id": 5_000 + i % 50,
                    "on_behalf_of": ACTOR,
                    "payload": {"duel_id": i, "round_no": 1},
                    "status": "posted",
                    "attempts": 1,
                    "next_attempt_at": now,
                    "posted_message_id": 1,
                    "created_at": now,
                    "posted_at": now,
                }
            )
            audits.append(
                {
                    "guild_id": guild,
                    "actor_id": ACTOR,
                    "action": "round.close",
                    "duel_id": i,
                    "details": {"round": 1},
                    "created_at": now,
                }
            )
        async with db.transaction() as session:
            for model, rows in (
                (Duel, duels),
                (Round, rounds),
                (Submission, subs),
                (OutboxPost, posts),
                (AuditEntry, audits),
            ):
                await session.execute(insert(model), rows)
    async with db.engine.begin() as conn:
        if db.dialect == "postgresql":
            # Explicit ids were inserted: move the sequences past them.
            for table in ("duels", "rounds"):
                await conn.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"(SELECT max(id) FROM {table}))"
                    )
                )
    # Statistics, as a long-lived database has them (autovacuum / a periodic ANALYZE).
    async with db.engine.connect() as conn:
        if db.dialect == "postgresql":
            await conn.execute(text("COMMIT"))
            await conn.execute(text("ANALYZE"))
        else:
            await conn.execute(text("ANALYZE"))
            await conn.commit()


# -- the measured operations -------------------------------------------------------------


@dataclass(frozen=True)
class Active:
    duel_id: int
    a: MemberRef
    b: MemberRef


async def start_active(services: Services, count: int, first_user: int) -> list[Active]:
    await services.settings.set_change_of_choice(BENCH_GUILD, ACTOR, True)
    made = []
    for i in range(count):
        a = MemberRef(first_user + 2 * i, f"Active A{i}")
        b = MemberRef(first_user + 2 * i + 1, f"Active B{i}")
        made.append(await new_active(services, a, b))
    return made


async def new_active(services: Services, a: MemberRef, b: MemberRef) -> Active:
    for m in (a, b):
        await services.profiles.set_stats(BENCH_GUILD, ACTOR, m, 10, 10)
    duel = await services.duels.start_duel(
        guild_id=BENCH_GUILD, channel_id=4_000, actor_id=ACTOR, a=a, b=b
    )
    await services.duels.open_round(
        duel_id=duel.id,
        guild_id=BENCH_GUILD,
        actor_id=ACTOR,
        deadline=utcnow() + timedelta(days=2),
    )
    return Active(duel.id, a, b)


async def timed(ops: int, op: Callable[[int], Awaitable[Any]]) -> list[float]:
    gc.collect()
    took = []
    for i in range(ops):
        t0 = time.perf_counter()
        await op(i)
        took.append(time.perf_counter() - t0)
    return took


async def bench_baseline(
    db: Database, active: Sequence[Active], ops: int, warmup: int
) -> list[float]:
    ids = [x.duel_id for x in active]

    async def read_then_write(i: int) -> None:
        duel_id = ids[i % len(ids)]
        async with db.transaction() as session:
            stmt = select(Duel.rounds_played).where(Duel.id == duel_id).with_for_update()
            played = (await session.execute(stmt)).scalar_one()
            await session.execute(
                update(Duel).where(Duel.id == duel_id).values(rounds_played=played)
            )

    await timed(warmup, read_then_write)
    return await timed(ops, read_then_write)


MOVES = ("ffs", "ss", "la", "ev")


async def bench_submit(
    services: Services, duels: Sequence[Active], ops: int, start: int = 0
) -> list[float]:
    """Each duel's open round gets a's move, b's move, then a change of each: half first
    moves, half changes. Half name the duel (slash, button), half do not (a DM)."""

    async def submit(i: int) -> None:
        duel = duels[i % len(duels)]
        step = (i // len(duels)) % 4
        user = duel.a if step % 2 == 0 else duel.b
        named = (i // 2) % 2 == 0
        await services.duels.submit_move(
            user_id=user.user_id,
            move=MOVES[(i + step) % len(MOVES)],
            via="slash" if named else "dm_text",
            duel_id=duel.duel_id if named else None,
        )

    return await timed(ops, lambda i: submit(start + i))


async def bench_close(
    services: Services, active: list[Active], closes: int, warmup: int
) -> list[float]:
    """Close latencies. Each round has both moves; the next round opens untimed."""
    latencies: list[float] = []
    duels = services.duels
    for i in range(warmup + closes):
        k = i % len(active)
        duel = active[k]
        await duels.submit_move(
            user_id=duel.a.user_id, move="ffs", via="dm_button", duel_id=duel.duel_id
        )
        await duels.submit_move(
            user_id=duel.b.user_id, move="ev", via="slash", duel_id=duel.duel_id
        )
        gc.collect()
        t0 = time.perf_counter()
        closed = await duels.close_round(duel_id=duel.duel_id, guild_id=BENCH_GUILD, actor_id=ACTOR)
        took = time.perf_counter() - t0
        if i >= warmup:
            latencies.append(took)
        if closed.duel.status == "ended":
            active[k] = await new_active(services, duel.a, duel.b)
        else:
            await duels.open_round(
                duel_id=duel.duel_id,
                guild_id=BENCH_GUILD,
                actor_id=ACTOR,
                deadline=utcnow() + timedelta(days=2),
            )
    return latencies


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class Setup:
    n: int
    db: Database
    services: Services
    active: list[Active]
    load_seconds: float
    baseline: list[float]
    submit: list[float]
    closes: list[float]
    submitted: int = 0
    ratios: list[float] = field(default_factory=list)


async def prepare(db: Database, n: int, cfg: Config) -> Setup:
    rng = random.Random(cfg.seed + n)
    t0 = time.perf_counter()
    await bulk_load(db, n, rng)
    load = time.perf_counter() - t0
    services = Services.create(db, DuelSettings())
    active = await start_active(services, max(2, cfg.submit_ops // SUBMITS_PER_ROUND), 90_000_000)
    warm = await start_active(services, max(2, cfg.warmup // SUBMITS_PER_ROUND), 80_000_000)
    await bench_baseline(db, warm, cfg.warmup, 0)
    await bench_submit(services, warm, len(warm) * SUBMITS_PER_ROUND)
    return Setup(n, db, services, active, load, [], [], [])


async def run_backend(backend: str, cfg: Config) -> list[Result]:
    """All sizes of one backend side by side, measured in interleaved blocks, so that a
    noisy machine (other processes on 2 cores) weighs on every size and phase alike."""
    async with AsyncExitStack() as stack:
        setups = []
        for n in cfg.sizes:
            print(f"{backend}: loading {n} stored duels ...", file=sys.stderr, flush=True)
            db = await stack.enter_async_context(fresh_database(backend, cfg))
            setups.append(await prepare(db, n, cfg))
        print(f"{backend}: measuring ...", file=sys.stderr, flush=True)
        blocks = max(1, min(BLOCKS, cfg.submit_ops // 10))
        for b in range(blocks):
            order = setups if b % 2 == 0 else setups[::-1]
            for st in order:
                ops = cfg.baseline_ops // blocks
                base = await bench_baseline(st.db, st.active, ops, 0)
                ops = cfg.submit_ops // blocks
                sub = await bench_submit(st.services, st.active, ops, st.submitted)
                st.submitted += ops
                st.baseline += base
                st.submit += sub
                # (b)/(a) of this block: both measured back to back, under the same load.
                st.ratios.append((len(sub) / sum(sub)) / (len(base) / sum(base)))
        closers = {st.n: st.active[: cfg.active] for st in setups}
        for st in setups:
            await bench_close(st.services, closers[st.n], max(1, cfg.warmup // 5), 0)
        for b in range(blocks):
            order = setups if b % 2 == 0 else setups[::-1]
            for st in order:
                st.closes += await bench_close(
                    st.services, closers[st.n], max(1, cfg.closes // blocks), 0
                )
        return [
            Result(
                backend=backend,
                duels=st.n,
                load_seconds=st.load_seconds,
                baseline_tps=len(st.baseline) / sum(st.baseline),
                submit_tps=len(st.submit) / sum(st.submit),
                close_p50_ms=1000 * statistics.median(st.closes),
                close_p99_ms=1000 * percentile(st.closes, 0.99),
                close_mean_ms=1000 * statistics.fmean(st.closes),
                ratio=statistics.median(st.ratios),
            )
            for st in setups
        ]


# -- report ------------------------------------------------------------------------------


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report(results: Sequence[Result]) -> str:
    lines = [
        f"{'backend':<9}{'duels':>8}{'load s':>8}{'(a) tx/s':>10}{'(b) tx/s':>10}"
        f"{'(b)/(a)':>9}{'close p50':>11}{'close p99':>11}{'submit x':>10}{'close x':>9}",
    ]
    verdicts = []
    by_backend: dict[str, list[Result]] = {}
    for r in results:
        by_backend.setdefault(r.backend, []).append(r)
    for backend, rows in by_backend.items():
        rows.sort(key=lambda r: r.duels)
        smallest = rows[0]
        for r in rows:
            submit_x = smallest.submit_tps / r.submit_tps if r.submit_tps else 0.0
            close_x = r.close_p50_ms / smallest.close_p50_ms if smallest.close_p50_ms else 0.0
            lines.append(
                f"{backend:<9}{r.duels:>8}{r.load_seconds:>8.1f}{r.baseline_tps:>10.0f}"
                f"{r.submit_tps:>10.0f}{r.ratio:>9.2f}{r.close_p50_ms:>9.2f}ms"
                f"{r.close_p99_ms:>9.2f}ms{submit_x:>10.2f}{close_x:>9.2f}"
            )
            verdicts.append(
                f"{backend} {r.duels}: (b)/(a) {r.ratio:.2f} >= {TARGET_RATIO}: "
                f"{_mark(r.ratio >= TARGET_RATIO)}"
            )
            if backend == "sqlite":
                verdicts.append(
                    f"{backend} {r.duels}: close p99 {r.close_p99_ms:.2f} ms <= "
                    f"{TARGET_CLOSE_P99_MS:.0f} ms: {_mark(r.close_p99_ms <= TARGET_CLOSE_P99_MS)}"
                )
            if r is not smallest:
                worst = max(submit_x, close_x)
                verdicts.append(
                    f"{backend} {r.duels} vs {smallest.duels}: cost x{worst:.2f} <= "
                    f"{TARGET_SCALING}: {_mark(worst <= TARGET_SCALING)}"
                )
    lines.append("")
    lines.append(
        "(a) bare SELECT ... FOR UPDATE + UPDATE + COMMIT; (b) DuelService.submit_move; "
        "'submit x' and 'close x': cost per operation (submit 1/rate, close p50) relative "
        "to the smallest size."
    )
    lines.append("")
    lines.extend(verdicts)
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> tuple[Config, Path | None]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.service_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--duels", default="1000,100000", help="stored duels, comma separated")
    parser.add_argument("--backend", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--quick", action="store_true", help="fewer operations (a smoke run)")
    parser.add_argument("--ops", type=int, help="operations for (a) and (b)")
    parser.add_argument("--closes", type=int, help="closes measured for (c)")
    parser.add_argument("--active", type=int, default=50, help="live duels being played")
    parser.add_argument("--warmup", type=int, help="unmeasured operations before each phase")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("DUELBOT_BENCH_POSTGRES_URL")
        or os.environ.get("DUELBOT_TEST_POSTGRES_URL")
        or DEFAULT_POSTGRES_URL,
        help="server for the PostgreSQL runs (a temporary schema is created and dropped)",
    )
    args = parser.parse_args(argv)
    ops = args.ops or (300 if args.quick else 2_000)
    closes = args.closes or (100 if args.quick else 500)
    warmup = args.warmup if args.warmup is not None else (20 if args.quick else 100)
    cfg = Config(
        sizes=tuple(int(x) for x in args.duels.split(",") if x.strip()),
        backends=tuple(x.strip() for x in args.backend.split(",") if x.strip()),
        baseline_ops=ops,
        submit_ops=ops,
        closes=closes,
        active=max(2, args.active),
        warmup=warmup,
        postgres_url=args.postgres_url,
        seed=args.seed,
    )
    return cfg, args.json


async def run(cfg: Config) -> list[Result]:
    results = []
    for backend in cfg.backends:
        results += await run_backend(backend, cfg)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    cfg, json_path = parse_args(argv)
    started = time.perf_counter()
    results = asyncio.run(run(cfg))
    print(report(results))
    print(f"\ntotal {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if json_path is not None:
        json_path.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
