"""Discord benchmark: duelbot as its own process, through discord.py and the fake Discord.

    python -m bench.discord_bench [--quick] [--json out.json]

One run, in this process: the fake Discord (tests/fakediscord, REST + gateway, enforcing
Discord's rate limits: global 50 requests/s, 5 messages per 5 s per channel, webhook and DM
channel buckets) and the load; in child processes: the bot (``python -m bot run``, the real
wiring, SQLite) and a baseline echo bot (bench/echo_bot.py: discord.py, no database).

Baselines, measured in the same run:
- echo: the echo bot's start-to-READY, DM round trip at the same rate, button clicks
  (defer + followup) at the same offered rate, idle RSS;
- service: ``DuelService.submit_move`` (a DM's move) and ``close_round`` called directly on
  a SQLite file with the same stored duels, no Discord.

Phases against duelbot, for each number of stored duels (1,000 and 100,000; --quick: 1,000
and 10,000):
1. start to READY (process spawn -> READY sent), and to the first DM answered;
2. open a round for every live bench duel with /round open (2 DMs each), with the fake
   enforcing the rate limits: 429s received and DMs/s against the rate the limits allow
   (each first DM to a user costs 2 requests against the global 50/s: the DM channel, then
   the message);
3. DM moves at 40/s: latency from the gateway event to the receipt reaching the fake;
4. button clicks at an offered rate (300/s): clicks stored per second and latency from the
   click to the followup (the receipt);
5. /round close one after another: latency to the followup.
Then idle RSS of the bot process with 10,000 live duels, each with an open round
(--quick: 2,000), read from /proc/<pid>/status after it settles.

Per-operation cost at the big size over the small one: DM receipt p50, click p50, close p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, update

from bench.service_bench import bulk_load, percentile, start_active
from bot.config import DatabaseSettings, DuelSettings, Settings
from bot.db import migrate
from bot.db.engine import Database, make_database
from bot.db.models import Duel, OutboxPost, Round, utcnow
from bot.rules.dice import commitment, new_seed
from bot.services.container import Services
from bot.services.views import MemberRef
from tests.fakediscord import MANAGE_GUILD, FakeDiscord, RateLimits
from tests.fakediscord.models import FakeUser

TARGET_DM_P99_MS = 50.0
TARGET_CLICKS_PER_S = 300.0
TARGET_CLICK_P99_MS = 100.0
TARGET_OPEN_RATIO = 0.8
TARGET_RSS_MB = 100.0
TARGET_SCALING = 1.2
DM_RATE = 40.0
CLICK_RATE = 300.0
ACTOR = 7


@dataclass(frozen=True)
class Config:
    sizes: tuple[int, ...]
    duels: int  # live bench duels whose round is opened
    channels: int
    dms: int
    clicks: int
    closes: int
    rss_duels: int
    click_rate: float
    dm_rate: float
    seed: int
    limits: RateLimits = field(default_factory=RateLimits)


# -- processes -----------------------------------------------------------------------------


@dataclass
class Child:
    proc: asyncio.subprocess.Process
    spawned: float
    log: Path

    def rss_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MiB."""
        fields: dict[str, float] = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
        return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)

    async def stop(self) -> int:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout=20)
        except TimeoutError:
            self.proc.kill()
            return await self.proc.wait()


async def spawn(fake: FakeDiscord, module: str, tmp: Path, db_url: str | None) -> Child:
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake.token,
        "DUELBOT_DISCORD_API_BASE_URL": fake.api_base_url,
        "DUELBOT_DISCORD_GATEWAY_URL": fake.gateway_url,
        "DUELBOT_HEARTBEAT_FILE": str(tmp / "heartbeat"),
        "DUELBOT_CONFIG": str(tmp / "bench.toml"),
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    }
    if db_url is not None:
        env["DUELBOT_DATABASE_URL"] = db_url
    (tmp / "bench.toml").write_text(
        '[duels]\nreminders = []\n\n[logging]\nlevel = "WARNING"\n'
        "\n[workers]\noutbox_poll_seconds = 0.2\n"
    )
    args = [sys.executable, "-m", module] + (["run"] if module == "bot" else [])
    switch = os.environ.get("DISCORD_BENCH_SWITCH")  # experiment: GIL switch interval
    if switch and module == "bot":
        args = [
            sys.executable,
            "-c",
            f"import sys; sys.setswitchinterval({float(switch)}); sys.argv = ['duelbot', 'run'];"
            " from bot.cli import main; raise SystemExit(main())",
        ]
    profile = os.environ.get("DISCORD_BENCH_PROFILE")  # cProfile the bot into this file
    if profile and module == "bot" and db_url is not None:
        args[1:1] = ["-m", "cProfile", "-o", f"{profile}.{Path(db_url).stem}"]
    log = tmp / f"{module.replace('.', '_')}.log"
    with log.open("ab") as out:
        spawned = time.monotonic()
        proc = await asyncio.create_subprocess_exec(*args, cwd=tmp, env=env, stdout=out, stderr=out)
    return Child(proc, spawned, log)


async def wait_for(check: Callable[[], Any], timeout: float, what: str, step: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"discord_bench: timed out waiting for {what}")
        await asyncio.sleep(step)


def ready_at(fake: FakeDiscord) -> float | None:
    for session in fake.gateway.sessions.values():
        if any(frame.get("t") == "READY" for frame in session.history):
            return session.connected_at or None
    return None


async def wait_serving(fake: FakeDiscord, child: Child, probe: FakeUser) -> tuple[float, float]:
    """(spawn -> READY, spawn -> first DM answered) in seconds."""

    def ready() -> float | None:
        if child.proc.returncode is not None:
            raise RuntimeError(f"the bot exited early; see {child.log}")
        return ready_at(fake)

    at = await wait_for(ready, 60, "READY")
    channel = fake.dm_channel(probe.id).id
    before = len(posts_to(fake, {channel}))
    await fake.send_dm(probe.id, "help")
    await wait_for(lambda: len(posts_to(fake, {channel})) > before, 30, "the first answer")
    answered = posts_to(fake, {channel})[-1].at
    return at - child.spawned, answered - child.spawned


def posts_to(fake: FakeDiscord, channels: set[int]) -> list[Any]:
    return [
        r
        for r in fake.requests
        if r.method == "POST"
        and r.status == 200
        and r.route == "/channels/{channel_id}/messages"
        and int(r.path.split("/")[2]) in channels
    ]


# -- load generators -----------------------------------------------------------------------


async def paced(count: int, rate: float, fire: Callable[[int], Awaitable[float]]) -> list[float]:
    """Open loop: the i-th operation starts at i / rate; returns the start times."""
    started = []
    t0 = time.monotonic()
    for i in range(count):
        delay = t0 + i / rate - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        started.append(await fire(i))
    return started


def first_after(times: dict[int, list[float]], key: int, after: float) -> float | None:
    for t in times.get(key, ()):
        if t >= after:
            return t
    return None


def ms(values: Sequence[float], q: float) -> float:
    return 1000 * percentile(values, q)


async def dm_round_trips(
    fake: FakeDiscord, users: Sequence[FakeUser], text: Callable[[int], str], rate: float
) -> tuple[list[float], float]:
    """Send one DM per user at ``rate``; returns (latencies to the answer, seconds taken)."""
    channels = {u.id: fake.dm_channel(u.id).id for u in users}
    mark = len(fake.requests)

    async def fire(i: int) -> float:
        t = time.monotonic()
        await fake.send_dm(users[i].id, text(i))
        return t

    sent = await paced(len(users), rate, fire)
    wanted = set(channels.values())

    def answered() -> dict[int, list[float]] | None:
        times: dict[int, list[float]] = {}
        for r in fake.requests[mark:]:
            if r.method == "POST" and r.route == "/channels/{channel_id}/messages":
                cid = int(r.path.split("/")[2])
                if cid in wanted and r.status == 200:
                    times.setdefault(cid, []).append(r.at)
        return times if len(times) >= len(wanted) else None

    times = await wait_for(answered, 60, "DM answers", 0.05)
    latencies = []
    last = 0.0
    for user, t in zip(users, sent, strict=True):
        got = first_after(times, channels[user.id], t)
        assert got is not None
        latencies.append(got - t)
        last = max(last, got)
    return latencies, last - sent[0]


def followup_times(
    fake: FakeDiscord, mark: int, app: str, tokens: dict[str, float]
) -> dict[str, float] | None:
    """When each click's followup (a webhook POST with its token) got through, by token, once
    every click of ``tokens`` has one; else None. Only requests from ``mark`` on count."""
    found: dict[str, float] = {}
    for r in fake.requests[mark:]:
        parts = r.path.split("/")
        if (
            r.method == "POST"
            and len(parts) == 4
            and parts[1] == "webhooks"
            and parts[2] == app
            and parts[3] in tokens
            and r.status == 200
        ):
            found.setdefault(parts[3], r.at)
    return found if len(found) >= len(tokens) else None


async def clicks(
    fake: FakeDiscord, targets: Sequence[tuple[FakeUser, Any, str]], rate: float
) -> tuple[list[float], float]:
    """Click each (user, message, custom_id) at ``rate``; (latencies to the followup, secs)."""
    app = str(fake.application_id)
    tokens: dict[str, float] = {}
    mark = len(fake.requests)

    async def fire(i: int) -> float:
        user, message, custom_id = targets[i]
        t = time.monotonic()
        handle = await fake.click_button(user.id, message, custom_id)
        tokens[handle.token] = t
        return t

    sent = await paced(len(targets), rate, fire)

    def followups() -> dict[str, float] | None:
        return followup_times(fake, mark, app, tokens)

    found = await wait_for(followups, 60, "click followups", 0.05)
    latencies = [found[tok] - t for tok, t in tokens.items()]
    return latencies, max(found.values()) - sent[0]


# -- the world -----------------------------------------------------------------------------


@dataclass
class World:
    fake: FakeDiscord
    guild_id: int
    commander: FakeUser
    probe: FakeUser
    duels: list[tuple[int, FakeUser, FakeUser]]  # duel id, a, b


async def build_world(
    fake: FakeDiscord, db: Database, cfg: Config, rng: random.Random, stored: int
) -> World:
    print(f"  loading {stored} stored duels ...", file=sys.stderr, flush=True)
    await bulk_load(db, stored, rng)
    guild = fake.add_guild("Bench Hall")
    referee = fake.add_role(guild.id, "Referee", permissions=MANAGE_GUILD)
    commander = fake.add_member(guild.id, "cmdr", roles=[referee]).user
    probe = fake.add_member(guild.id, "probe").user
    channels = [fake.add_text_channel(guild.id, f"duels-{k}").id for k in range(cfg.channels)]
    services = Services.create(db, DuelSettings())
    for cid in channels:
        hook = fake.add_webhook(cid, "duelbot")
        await services.outbox.save_webhook(cid, hook.id, hook.token)
    duels = []
    for i in range(cfg.duels):
        a = fake.add_member(guild.id, f"a{i}").user
        b = fake.add_member(guild.id, f"b{i}").user
        refs = MemberRef(a.id, a.username), MemberRef(b.id, b.username)
        for ref in refs:
            await services.profiles.set_stats(guild.id, commander.id, ref, 10, 10)
        view = await services.duels.start_duel(
            guild_id=guild.id,
            channel_id=channels[i % len(channels)],
            actor_id=commander.id,
            a=refs[0],
            b=refs[1],
        )
        duels.append((view.id, a, b))
        fake.dm_channel(a.id), fake.dm_channel(b.id)
    fake.dm_channel(probe.id)
    async with db.transaction() as session:  # the start cards are old news
        await session.execute(update(OutboxPost).values(status="posted"))
    return World(fake, guild.id, commander, probe, duels)


async def add_open_duels(db: Database, count: int, guild_id: int) -> None:
    """``count`` live duels, each with an open round and its posts sent (core inserts)."""
    now = utcnow()
    state = {
        "a": {"name": "A", "str": 10, "agi": 10},
        "b": {"name": "B", "str": 10, "agi": 10},
    }
    seed = new_seed()
    async with db.transaction() as session:
        first = 50_000_000
        ids = []
        for chunk in range(0, count, 2000):
            rows = []
            for i in range(chunk, min(count, chunk + 2000)):
                rows.append(
                    {
                        "guild_id": guild_id,
                        "channel_id": 6_000 + i % 50,
                        "ruleset": "rule-2.14",
                        "a_user_id": first + 2 * i,
                        "b_user_id": first + 2 * i + 1,
                        "state": state,
                        "options": {"missing_move": "none", "locked_blocks_retreat": False},
                        "status": "live",
                        "locked": False,
                        "rounds_played": 0,
                        "created_by": ACTOR,
                        "created_at": now,
                    }
                )
            result = await session.execute(insert(Duel).returning(Duel.id), rows)
            ids += [row[0] for row in result]
        rounds = [
            {
                "duel_id": duel_id,
                "number": 1,
                "status": "open",
                "opened_by": ACTOR,
                "opened_at": now,
                "deadline": now + timedelta(days=2),
                "reminders_sent": {},
                "seed": seed,
                "commitment": commitment(seed),
                "state_before": state,
            }
            for duel_id in ids
        ]
        for chunk in range(0, len(rounds), 2000):
            await session.execute(insert(Round), rounds[chunk : chunk + 2000])


async def fresh_db(tmp: Path, name: str) -> tuple[Database, str]:
    url = f"sqlite+aiosqlite:///{tmp / name}"
    await migrate.upgrade(Settings(database=DatabaseSettings(url=url)))
    return make_database(url), url


# -- phases --------------------------------------------------------------------------------


@dataclass
class BotRun:
    stored: int
    ready_s: float = 0.0
    serving_s: float = 0.0
    open_duels: int = 0
    open_dms: int = 0
    open_seconds: float = 0.0
    open_dms_per_s: float = 0.0
    open_allowed_per_s: float = 0.0
    open_ratio: float = 0.0
    open_429s: int = 0
    open_global_requests: int = 0
    total_429s: int = 0
    dm_p50_ms: float = 0.0
    dm_p99_ms: float = 0.0
    dm_count: int = 0
    click_per_s: float = 0.0
    click_p50_ms: float = 0.0
    click_p99_ms: float = 0.0
    click_count: int = 0
    close_p50_ms: float = 0.0
    close_p99_ms: float = 0.0
    close_count: int = 0
    rss_mb: float = 0.0


async def run_bot_phases(cfg: Config, stored: int, tmp: Path) -> BotRun:
    rng = random.Random(cfg.seed + stored)
    out = BotRun(stored)
    async with FakeDiscord(rate_limits=cfg.limits) as fake:
        db, url = await fresh_db(tmp, f"bot-{stored}.db")
        world = await build_world(fake, db, cfg, rng, stored)
        await db.dispose()
        child = await spawn(fake, "bot", tmp, url)
        try:
            await wait_for(lambda: fake.command("round") is not None or ready_at(fake), 60, "sync")
            out.ready_s, out.serving_s = await wait_serving(fake, child, world.probe)
            await asyncio.sleep(0.5)
            print(f"  opening {len(world.duels)} rounds ...", file=sys.stderr, flush=True)
            await phase_open(fake, world, out, cfg)
            print("  DMs ...", file=sys.stderr, flush=True)
            movers = [a for _, a, _ in world.duels[: cfg.dms]]
            latencies, _ = await dm_round_trips(fake, movers, lambda i: "evade", cfg.dm_rate)
            out.dm_count = len(latencies)
            out.dm_p50_ms, out.dm_p99_ms = ms(latencies, 0.5), ms(latencies, 0.99)
            print("  clicks ...", file=sys.stderr, flush=True)
            targets = []
            for duel_id, _, b in world.duels[: cfg.clicks]:
                prompt = fake.dms_to(b.id)[0]
                targets.append((b, prompt, f"duelbot:move:{duel_id}:1:side_swipe"))
            latencies, took = await clicks(fake, targets, cfg.click_rate)
            out.click_count = len(latencies)
            out.click_per_s = len(latencies) / took
            out.click_p50_ms, out.click_p99_ms = ms(latencies, 0.5), ms(latencies, 0.99)
            print("  closes ...", file=sys.stderr, flush=True)
            took_each = []
            for duel_id, _, _ in world.duels[: cfg.closes]:
                t = time.monotonic()
                handle = await fake.invoke_slash(
                    world.guild_id,
                    None,
                    world.commander.id,
                    "round",
                    subcommand="close",
                    options={"duel": duel_id},
                )
                reply = await handle.reply(timeout=10)
                took_each.append(time.monotonic() - t)
                assert "closed" in reply.content, reply.content
            out.close_count = len(took_each)
            out.close_p50_ms, out.close_p99_ms = ms(took_each, 0.5), ms(took_each, 0.99)
            out.rss_mb = child.rss_mb()[0]
            out.total_429s = len(fake.rate_limited)
        finally:
            code = await child.stop()
            if code != 0:
                print(f"  the bot exited with {code}; see {child.log}", file=sys.stderr)
        fake.check()
    return out


async def phase_open(fake: FakeDiscord, world: World, out: BotRun, cfg: Config) -> None:
    users = [u for _, a, b in world.duels for u in (a, b)]
    channels = {fake.dm_channel(u.id).id for u in users}
    before_429 = len(fake.rate_limited)
    limiter = fake.ratelimiter
    assert limiter is not None
    before_global = limiter.global_count
    t0 = time.monotonic()
    handles = []
    for duel_id, _, _ in world.duels:
        handles.append(
            await fake.invoke_slash(
                world.guild_id,
                None,
                world.commander.id,
                "round",
                subcommand="open",
                options={"duel": duel_id},
            )
        )
        await asyncio.sleep(0)
    for handle in handles:
        reply = await handle.reply(timeout=30)
        assert "is open" in reply.content, reply.content
    timeout = 60 + 4 * len(users) / 20
    prompts = await wait_for(
        lambda: (p := posts_to(fake, channels)) and len(p) >= len(users) and p,
        timeout,
        "round prompts",
        0.2,
    )
    last = max(r.at for r in prompts)
    out.open_duels, out.open_dms = len(world.duels), len(prompts)
    out.open_seconds = last - t0
    out.open_dms_per_s = len(prompts) / out.open_seconds
    limits = cfg.limits
    dm_create_rate = limits.dm_channel_create[0] / limits.dm_channel_create[1]
    # the least a first DM to a user costs: create the DM channel, send: 2 global requests
    out.open_allowed_per_s = min(limits.global_per_second / 2, dm_create_rate)
    out.open_ratio = out.open_dms_per_s / out.open_allowed_per_s
    out.open_429s = len(fake.rate_limited) - before_429
    out.open_global_requests = limiter.global_count - before_global


@dataclass
class EchoRun:
    ready_s: float = 0.0
    serving_s: float = 0.0
    dm_p50_ms: float = 0.0
    dm_p99_ms: float = 0.0
    click_per_s: float = 0.0
    click_p50_ms: float = 0.0
    click_p99_ms: float = 0.0
    rss_mb: float = 0.0


async def run_echo(cfg: Config, tmp: Path) -> EchoRun:
    out = EchoRun()
    async with FakeDiscord(rate_limits=cfg.limits) as fake:
        guild = fake.add_guild("Echo Hall")
        probe = fake.add_member(guild.id, "probe").user
        users = [fake.add_member(guild.id, f"u{i}").user for i in range(max(cfg.dms, cfg.clicks))]
        child = await spawn(fake, "bench.echo_bot", tmp, None)
        try:
            out.ready_s, out.serving_s = await wait_serving(fake, child, probe)
            await asyncio.sleep(0.5)
            await dm_round_trips(fake, users[: cfg.clicks], lambda i: "prompt", cfg.dm_rate)
            latencies, _ = await dm_round_trips(fake, users[: cfg.dms], lambda i: "x", cfg.dm_rate)
            out.dm_p50_ms, out.dm_p99_ms = ms(latencies, 0.5), ms(latencies, 0.99)
            targets = []
            for u in users[: cfg.clicks]:
                prompt = next(m for m in fake.dms_to(u.id) if m.components)
                targets.append((u, prompt, f"echo:{u.id}"))
            latencies, took = await clicks(fake, targets, cfg.click_rate)
            out.click_per_s = len(latencies) / took
            out.click_p50_ms, out.click_p99_ms = ms(latencies, 0.5), ms(latencies, 0.99)
            out.rss_mb = child.rss_mb()[0]
        finally:
            await child.stop()
        fake.check()
    return out


@dataclass
class ServiceRun:
    submit_p50_ms: float = 0.0
    submit_p99_ms: float = 0.0
    close_p50_ms: float = 0.0
    close_p99_ms: float = 0.0


async def run_service(cfg: Config, tmp: Path) -> ServiceRun:
    """The raw service calls a DM move and a /round close make, without Discord."""
    db, _ = await fresh_db(tmp, "service.db")
    try:
        await bulk_load(db, cfg.sizes[0], random.Random(cfg.seed))
        services = Services.create(db, DuelSettings())
        active = await start_active(services, cfg.dms, 90_000_000)
        submits, closes = [], []
        for duel in active:
            t = time.perf_counter()
            await services.duels.submit_move(user_id=duel.a.user_id, move="evade", via="dm_text")
            submits.append(time.perf_counter() - t)
        for duel in active[: cfg.closes]:
            # Before its deadline a round closes only once both have moved (issue 23), as
            # in the Discord run, where B's click precedes the close.
            await services.duels.submit_move(
                user_id=duel.b.user_id, move="side_swipe", via="dm_button"
            )
            t = time.perf_counter()
            await services.duels.close_round(duel_id=duel.duel_id, guild_id=1, actor_id=ACTOR)
            closes.append(time.perf_counter() - t)
        return ServiceRun(ms(submits, 0.5), ms(submits, 0.99), ms(closes, 0.5), ms(closes, 0.99))
    finally:
        await db.dispose()


async def run_idle_rss(cfg: Config, tmp: Path) -> tuple[float, float]:
    """(VmRSS, VmHWM) MiB of the bot, idle, with ``rss_duels`` live duels, rounds open."""
    async with FakeDiscord(rate_limits=cfg.limits) as fake:
        guild = fake.add_guild("Idle Hall")
        probe = fake.add_member(guild.id, "probe").user
        db, url = await fresh_db(tmp, "idle.db")
        await bulk_load(db, cfg.sizes[0], random.Random(cfg.seed))
        await add_open_duels(db, cfg.rss_duels, guild.id)
        await db.dispose()
        child = await spawn(fake, "bot", tmp, url)
        try:
            await wait_serving(fake, child, probe)
            await asyncio.sleep(3.0)  # a few scheduler and outbox polls
            return child.rss_mb()
        finally:
            await child.stop()


# -- report --------------------------------------------------------------------------------


@dataclass
class Report:
    config: dict[str, Any]
    echo: EchoRun
    service: ServiceRun
    runs: list[BotRun]
    idle_rss_mb: float
    idle_hwm_mb: float
    seconds: float


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


def render(rep: Report) -> str:
    e, s = rep.echo, rep.service
    lines = [
        "baselines: echo bot (discord.py, no database) / raw service (no Discord)",
        f"  echo start->READY {e.ready_s:.2f} s, ->first answer {e.serving_s:.2f} s, "
        f"RSS {e.rss_mb:.0f} MiB",
        f"  echo DM round trip p50 {e.dm_p50_ms:.1f} ms p99 {e.dm_p99_ms:.1f} ms; "
        f"clicks {e.click_per_s:.0f}/s p50 {e.click_p50_ms:.1f} ms p99 {e.click_p99_ms:.1f} ms",
        f"  service submit (DM) p50 {s.submit_p50_ms:.2f} ms p99 {s.submit_p99_ms:.2f} ms; "
        f"close p50 {s.close_p50_ms:.2f} ms p99 {s.close_p99_ms:.2f} ms",
        "",
    ]
    head = (
        f"{'stored':>8}{'READY s':>9}{'serve s':>9}{'open DM/s':>11}{'x allow':>9}{'429':>5}"
        f"{'DM p50':>8}{'DM p99':>8}{'click/s':>9}{'clk p50':>9}{'clk p99':>9}"
        f"{'close p50':>11}{'close p99':>11}"
    )
    lines.append(head)
    for r in rep.runs:
        lines.append(
            f"{r.stored:>8}{r.ready_s:>9.2f}{r.serving_s:>9.2f}{r.open_dms_per_s:>11.1f}"
            f"{r.open_ratio:>9.2f}{r.open_429s:>5}{r.dm_p50_ms:>8.1f}{r.dm_p99_ms:>8.1f}"
            f"{r.click_per_s:>9.0f}{r.click_p50_ms:>9.1f}{r.click_p99_ms:>9.1f}"
            f"{r.close_p50_ms:>11.1f}{r.close_p99_ms:>11.1f}"
        )
    lines.append("")
    small = rep.runs[0]
    verdicts = []
    for r in rep.runs:
        tag = f"{r.stored} stored:"
        verdicts += [
            f"{tag} DM receipt p99 {r.dm_p99_ms:.1f} ms <= {TARGET_DM_P99_MS:.0f} ms: "
            f"{_mark(r.dm_p99_ms <= TARGET_DM_P99_MS)} (x{r.dm_p99_ms / e.dm_p99_ms:.2f} echo)",
            f"{tag} clicks {r.click_per_s:.0f}/s >= {TARGET_CLICKS_PER_S:.0f}/s: "
            f"{_mark(r.click_per_s >= TARGET_CLICKS_PER_S)} (x{r.click_per_s / e.click_per_s:.2f}"
            " echo)",
            f"{tag} click p99 {r.click_p99_ms:.1f} ms <= {TARGET_CLICK_P99_MS:.0f} ms: "
            f"{_mark(r.click_p99_ms <= TARGET_CLICK_P99_MS)}",
            f"{tag} opening {r.open_duels} rounds ({r.open_dms} DMs): {r.open_429s} 429s: "
            f"{_mark(r.open_429s == 0)}; {r.open_dms_per_s:.1f} DMs/s = x{r.open_ratio:.2f} of "
            f"{r.open_allowed_per_s:.0f}/s allowed >= {TARGET_OPEN_RATIO}: "
            f"{_mark(r.open_ratio >= TARGET_OPEN_RATIO)} ({r.open_global_requests} global "
            f"requests in {r.open_seconds:.1f} s)",
            f"{tag} close p50 {r.close_p50_ms:.1f} ms p99 {r.close_p99_ms:.1f} ms "
            f"(service p99 {s.close_p99_ms:.1f} ms)",
        ]
        if r is not small:
            ratios = {
                "DM p50": r.dm_p50_ms / small.dm_p50_ms,
                "click p50": r.click_p50_ms / small.click_p50_ms,
                "close p50": r.close_p50_ms / small.close_p50_ms,
            }
            worst = max(ratios.values())
            detail = ", ".join(f"{k} x{v:.2f}" for k, v in ratios.items())
            verdicts.append(
                f"{r.stored} vs {small.stored}: cost x{worst:.2f} <= {TARGET_SCALING}: "
                f"{_mark(worst <= TARGET_SCALING)} ({detail})"
            )
    verdicts.append(
        f"idle RSS with {rep.config['rss_duels']} live duels: {rep.idle_rss_mb:.1f} MiB "
        f"(peak {rep.idle_hwm_mb:.1f}) <= {TARGET_RSS_MB:.0f}: "
        f"{_mark(rep.idle_rss_mb <= TARGET_RSS_MB)} (echo bot {e.rss_mb:.1f} MiB)"
    )
    lines += verdicts
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> tuple[Config, Path | None]:
    parser = argparse.ArgumentParser(
        prog="python -m bench.discord_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes (about 2 minutes)")
    parser.add_argument("--sizes", help="stored duels, comma separated (default 1000,100000)")
    parser.add_argument("--duels", type=int, help="bench duels whose round opens (1000)")
    parser.add_argument("--dms", type=int, help="DM moves at 40/s")
    parser.add_argument("--clicks", type=int, help="button clicks")
    parser.add_argument("--closes", type=int, help="/round close measured")
    parser.add_argument("--rss-duels", type=int, help="live duels for the idle RSS")
    parser.add_argument("--click-rate", type=float, default=CLICK_RATE)
    parser.add_argument("--dm-rate", type=float, default=DM_RATE)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    quick = args.quick
    duels = args.duels or (200 if quick else 1000)
    sizes = args.sizes or ("1000,10000" if quick else "1000,100000")
    cfg = Config(
        sizes=tuple(int(x) for x in sizes.split(",") if x.strip()),
        duels=duels,
        channels=max(1, min(50, duels // 20)),
        dms=min(duels, args.dms or (200 if quick else 800)),
        clicks=min(duels, args.clicks or (200 if quick else 1000)),
        closes=min(duels, args.closes or (50 if quick else 300)),
        rss_duels=args.rss_duels or (2000 if quick else 10_000),
        click_rate=args.click_rate,
        dm_rate=args.dm_rate,
        seed=args.seed,
    )
    return cfg, args.json


async def run(cfg: Config) -> Report:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="discordbench-") as name:
        tmp = Path(name)
        print("echo bot baseline ...", file=sys.stderr, flush=True)
        echo = await run_echo(cfg, tmp)
        print("service baseline ...", file=sys.stderr, flush=True)
        service = await run_service(cfg, tmp)
        runs = []
        for stored in cfg.sizes:
            print(f"duelbot with {stored} stored duels ...", file=sys.stderr, flush=True)
            runs.append(await run_bot_phases(cfg, stored, tmp))
        print(f"idle RSS with {cfg.rss_duels} live duels ...", file=sys.stderr, flush=True)
        rss, hwm = await run_idle_rss(cfg, tmp)
    config = asdict(cfg)
    return Report(config, echo, service, runs, rss, hwm, time.monotonic() - started)


def main(argv: Sequence[str] | None = None) -> int:
    cfg, json_path = parse_args(argv)
    rep = asyncio.run(run(cfg))
    print(render(rep))
    print(f"\ntotal {rep.seconds:.0f} s", file=sys.stderr)
    if json_path is not None:
        json_path.write_text(json.dumps(asdict(rep), indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["Config", "Report", "main", "parse_args", "run"]
