"""Crash harness: ``duelbot run`` as a real process, SIGKILLed at random points, restarted.

    python -m bench.crash_harness [--runs 50] [--backend sqlite,postgres] [--kills 2]
                                  [--seed 1] [--duels 6] [--json FILE]

Each run (one seed) on a fresh database (a temporary SQLite file; a temporary PostgreSQL
schema on $DUELBOT_TEST_POSTGRES_URL, dropped afterwards):

1. the fake Discord (tests/fakediscord) starts in this process; a guild with a commander and
   ``duels`` pairs of duellists; each pair has a live duel with round 1 open (some with a
   deadline a few seconds ahead), set up through the services as the CLI would;
2. ``duelbot run`` starts as a child process (env DUELBOT_DISCORD_API_BASE_URL,
   DUELBOT_DISCORD_GATEWAY_URL, DUELBOT_DATABASE_URL, DISCORD_TOKEN; a config file with fast
   worker polls and close_when_all_submitted on);
3. one task per pair streams submissions (DM text ``#<duel> <move>`` and clicks on the move
   buttons of the round DMs), commander closes (``/round close``) and opens (``/round open``,
   or a short deadline through the services), and starts a new duel when one ends;
4. ``kills`` times, at a seeded random moment, the process gets SIGKILL and is restarted at
   once; after each kill the database is checked (acknowledged moves stored, no half-closed
   round), after each restart streaming goes on (clicks on buttons sent before the kill);
5. before the last kill a "deadline probe" round is opened with a deadline 1-3 s ahead; after
   the last restart the "button probe" duel (whose DMs went out before the first kill) gets a
   click on its old button and a DM text move, and the deadline probe must close at its
   deadline;
6. the stream stops, the outbox must drain, and then: every acknowledged move (every receipt
   the bot ever sent, in a DM or an interaction answer, read back from the fake) is stored,
   every acknowledged close is closed, no round is half-closed (closed: result, close time,
   one result outbox row; open: none of those), every round result is posted exactly once
   (counted by the ``duelbot post #<id>`` marker over every message in the fake), and no
   outbox post appears twice.

The short variant runs in the normal test suite (tests/reliability/test_crash.py), the long
one behind ``--run-slow``. Figures go to docs/reliability.md ("Crash safety").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.config import DuelSettings
from bot.db import migrate
from bot.db.engine import Database, make_database
from bot.db.models import Duel, OutboxPost, Round, Submission, utcnow
from bot.presentation.discord_posts import marker_ids
from bot.rules.rule_2_14.moves import LABELS, MOVE_IDS
from bot.services.container import Services
from bot.services.errors import DomainError
from bot.services.views import MemberRef
from tests.fakediscord import MANAGE_GUILD, FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
RECEIPT = re.compile(
    r"Move (?:received: \*\*(?P<label>[^*]+)\*\*|changed from \*\*[^*]+\*\* to "
    r"\*\*(?P<label2>[^*]+)\*\*) for duel #(?P<duel>\d+), round (?P<round>\d+)\."
)
CLOSED = re.compile(r"Round (?P<round>\d+) of duel #(?P<duel>\d+) is closed")
LABEL_TO_ID = {label: move for move, label in LABELS.items()}
CONFIG = """
[workers]
outbox_poll_seconds = 0.05
scheduler_poll_seconds = 0.2

[duels]
close_when_all_submitted = true
"""
ACK_TIMEOUT = 4.0
READY_TIMEOUT = 40.0
DRAIN_TIMEOUT = 30.0


@dataclass
class RunResult:
    seed: int
    backend: str
    kills: int
    kill_after_s: list[float] = field(default_factory=list)
    restart_s: list[float] = field(default_factory=list)  # kill -> gateway connected again
    actions: int = 0
    moves_acked: int = 0  # receipts the bot sent (DM or interaction answer)
    moves_acked_stored: int = 0
    closes_acked: int = 0
    rounds_closed: int = 0
    close_reasons: dict[str, int] = field(default_factory=dict)
    results_posted_once: int = 0
    posts_duplicated: int = 0
    old_button_clicks: int = 0  # clicks after a restart on a button sent before a kill
    old_button_answered: int = 0
    drain_s: float = 0.0
    duration_s: float = 0.0
    responses_dropped: int = 0  # requests that took effect but whose answer was cut off
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


@dataclass
class Pair:
    a: FakeUser
    b: FakeUser
    duel_id: int = 0


class BotProcess:
    """``duelbot run`` in a child process, restartable, killed with SIGKILL."""

    def __init__(self, fake: FakeDiscord, db_url: str, workdir: Path) -> None:
        self.fake = fake
        self.db_url = db_url
        self.workdir = workdir
        self.proc: asyncio.subprocess.Process | None = None
        self.incarnation = 0
        config = workdir / "duelbot.toml"
        config.write_text(CONFIG)
        self.env = {
            **os.environ,
            "DISCORD_TOKEN": fake.token,
            "DUELBOT_DISCORD_API_BASE_URL": fake.api_base_url,
            "DUELBOT_DISCORD_GATEWAY_URL": fake.gateway_url,
            "DUELBOT_DATABASE_URL": db_url,
            "DUELBOT_HEARTBEAT_FILE": str(workdir / "heartbeat"),
            "DUELBOT_CONFIG": str(config),
            "DUELBOT_LOG_LEVEL": "INFO",
        }

    async def start(self) -> float:
        """Start and wait until the new process's gateway session is connected; seconds."""
        began = time.monotonic()
        self.incarnation += 1
        before = set(self.fake.gateway.sessions)
        log = (self.workdir / f"bot-{self.incarnation}.log").open("wb")
        try:
            self.proc = await asyncio.create_subprocess_exec(
                DUELBOT, "run", cwd=self.workdir, env=self.env, stdout=log, stderr=log
            )
        finally:
            log.close()
        while True:
            fresh = [
                s
                for key, s in self.fake.gateway.sessions.items()
                if key not in before and s.connected
            ]
            if fresh:
                break
            if self.proc.returncode is not None:
                raise RuntimeError(f"duelbot exited with {self.proc.returncode}: {self.log_tail()}")
            if time.monotonic() - began > READY_TIMEOUT:
                raise TimeoutError(f"duelbot did not connect: {self.log_tail()}")
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # READY and GUILD_CREATE handled
        return time.monotonic() - began

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> int | None:
        if self.proc is None or self.proc.returncode is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            await self.kill()
            return None

    def log_tail(self, chars: int = 3000) -> str:
        path = self.workdir / f"bot-{self.incarnation}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""


class CrashRun:
    def __init__(
        self, fake: FakeDiscord, db: Database, db_url: str, workdir: Path, seed: int, **kw: Any
    ) -> None:
        self.fake = fake
        self.db = db
        self.services = Services.create(db, DuelSettings(close_when_all_submitted=True))
        self.rng = random.Random(seed)
        self.kills: int = kw.get("kills", 1)
        self.n_pairs: int = kw.get("duels", 6)
        self.kill_window: tuple[float, float] = kw.get("kill_window", (0.3, 2.5))
        self.result = RunResult(seed=seed, backend=kw.get("backend", "?"), kills=self.kills)
        self.bot = BotProcess(fake, db_url, workdir)
        self.stop = asyncio.Event()
        self.up = asyncio.Event()
        self.kill_marks: list[int] = []  # the newest message id at each kill
        self.acked_closes: set[tuple[int, int]] = set()

    # -- setup ---------------------------------------------------------------------------

    async def setup(self) -> None:
        fake = self.fake
        self.guild = fake.add_guild("Crash Hall")
        self.channel_id = self.guild.channel_ids[0]
        referee = fake.add_role(self.guild.id, "Referee", permissions=MANAGE_GUILD)
        self.cmdr = fake.add_member(self.guild.id, "cmdr", roles=[referee]).user
        self.pairs: list[Pair] = []
        for i in range(self.n_pairs + 2):  # + the button probe and the deadline probe
            a = fake.add_member(self.guild.id, f"duellist{i}a").user
            b = fake.add_member(self.guild.id, f"duellist{i}b").user
            for user in (a, b):
                await self.services.profiles.set_stats(
                    self.guild.id,
                    self.cmdr.id,
                    MemberRef(user.id, user.username),
                    self.rng.randint(1, 5),
                    self.rng.randint(1, 5),
                )
            self.pairs.append(Pair(a, b))
        self.button_probe, self.deadline_probe = self.pairs[-2], self.pairs[-1]
        self.pairs = self.pairs[:-2]
        # The probe first, so that its DMs lead the outbox; no deadline: its round waits.
        await self._new_duel(self.button_probe)
        for pair in self.pairs:
            await self._new_duel(pair, deadline_s=self.rng.choice([None, None, 2.0, 5.0]))
        self.button_probe_round = 1

    async def _new_duel(self, pair: Pair, deadline_s: float | None = None) -> None:
        view = await self.services.duels.start_duel(
            guild_id=self.guild.id,
            channel_id=self.channel_id,
            actor_id=self.cmdr.id,
            a=MemberRef(pair.a.id, pair.a.username),
            b=MemberRef(pair.b.id, pair.b.username),
        )
        pair.duel_id = view.id
        await self._open(pair, deadline_s)

    async def _open(self, pair: Pair, deadline_s: float | None) -> None:
        deadline = None if deadline_s is None else utcnow() + timedelta(seconds=deadline_s)
        await self.services.duels.open_round(
            duel_id=pair.duel_id, guild_id=self.guild.id, actor_id=self.cmdr.id, deadline=deadline
        )

    # -- the stream ----------------------------------------------------------------------

    def _prompt(self, user: FakeUser, duel_id: int, round_no: int) -> FakeMessage | None:
        prefix = f"duelbot:move:{duel_id}:{round_no}:"
        for message in self.fake.dms_to(user.id):
            if any(c.startswith(prefix) for c in message.custom_ids()):
                return message
        return None

    async def _dm_move(self, user: FakeUser, duel_id: int, move: str) -> None:
        await self.fake.send_dm(user.id, f"#{duel_id} {move}")
        # The answer (receipt or refusal) is read back from the fake at the end; wait for a
        # bit so that this duellist has one message in flight at a time.
        seen = {m.id for m in self.fake.dms_to(user.id)}
        end = time.monotonic() + ACK_TIMEOUT
        while time.monotonic() < end and self.up.is_set():
            if any(m.id not in seen and not m.embeds for m in self.fake.dms_to(user.id)):
                return
            await asyncio.sleep(0.02)

    async def _click(self, user: FakeUser, prompt: FakeMessage, custom_id: str) -> None:
        old = bool(self.kill_marks) and prompt.id <= self.kill_marks[-1]
        incarnation = self.bot.incarnation
        handle = await self.fake.click_button(user.id, prompt, custom_id)
        try:
            reply = await handle.reply(timeout=ACK_TIMEOUT)
        except (TimeoutError, AssertionError):
            reply = None
        # Counted only when one process lived through the whole click (none was killed).
        if old and self.up.is_set() and self.bot.incarnation == incarnation:
            self.result.old_button_clicks += 1
            if reply is not None and reply.content:
                self.result.old_button_answered += 1

    async def _slash(self, name: str, sub: str, **options: Any) -> str | None:
        handle = await self.fake.invoke_slash(
            self.guild.id, self.channel_id, self.cmdr.id, name, subcommand=sub, options=options
        )
        try:
            reply = await handle.reply(timeout=ACK_TIMEOUT)
        except (TimeoutError, AssertionError):
            return None
        return reply.content

    async def _pair_loop(self, pair: Pair, rng: random.Random) -> None:
        while not self.stop.is_set():
            await asyncio.sleep(rng.uniform(0.01, 0.12))
            if not self.up.is_set():
                await asyncio.sleep(0.05)  # Discord would not deliver: nobody is connected
                continue
            try:
                await self._step(pair, rng)
            except (DomainError, LookupError):
                continue  # a race with the bot (e.g. the round closed meanwhile)
            except Exception as exc:  # the database busy under the bot, a dropped socket
                if "database" in type(exc).__name__.lower() or isinstance(exc, OSError):
                    continue
                raise

    async def _step(self, pair: Pair, rng: random.Random) -> None:
        status = await self.services.duels.round_status(pair.duel_id)
        self.result.actions += 1
        if status.duel.status != "live":
            await self._new_duel(pair, deadline_s=rng.choice([None, 3.0]))
            return
        if not status.is_open:
            if rng.random() < 0.3:
                await self._open(pair, rng.uniform(1.0, 4.0))
            else:
                await self._slash("round", "open", duel=pair.duel_id)
            return
        round_no = status.round_no or 0
        if rng.random() < 0.15:
            content = await self._slash("round", "close", duel=pair.duel_id)
            match = CLOSED.search(content or "")
            if match:
                self.acked_closes.add((int(match["duel"]), int(match["round"])))
            return
        waiting = [s for s in ("a", "b") if not status.submitted.get(s)] or ["a", "b"]
        side = rng.choice(waiting)
        user = pair.a if side == "a" else pair.b
        move = rng.choice(MOVE_IDS)
        prompt = self._prompt(user, pair.duel_id, round_no)
        if prompt is not None and rng.random() < 0.5:
            await self._click(user, prompt, f"duelbot:move:{pair.duel_id}:{round_no}:{move}")
        else:
            await self._dm_move(user, pair.duel_id, move)

    # -- checks --------------------------------------------------------------------------

    def acked_moves(self) -> set[tuple[int, int, int, str]]:
        """(user, duel, round, move) of every receipt the bot sent: DM replies and
        interaction answers, read back from the fake."""
        acked: set[tuple[int, int, int, str]] = set()
        for user in [u for p in self.all_pairs() for u in (p.a, p.b)]:
            for message in self.fake.dms_to(user.id):
                self._add_receipt(acked, user.id, message.content)
        for record in self.fake.interactions.values():
            for reply in record.replies:
                self._add_receipt(acked, record.user_id, reply.content or "")
        return acked

    @staticmethod
    def _add_receipt(acked: set[tuple[int, int, int, str]], user_id: int, text: str) -> None:
        match = RECEIPT.search(text)
        if match:
            label = match["label"] or match["label2"]
            move = LABEL_TO_ID.get(label, label)
            acked.add((user_id, int(match["duel"]), int(match["round"]), move))

    def all_pairs(self) -> list[Pair]:
        return [*self.pairs, self.button_probe, self.deadline_probe]

    async def check_database(self, when: str) -> None:
        """Acknowledged moves and closes are stored; no round is half-closed."""
        v = self.result.violations
        async with self.db.transaction() as session:
            rounds = list((await session.execute(select(Round))).scalars())
            subs = list((await session.execute(select(Submission))).scalars())
            duels = {d.id: d for d in (await session.execute(select(Duel))).scalars()}
            results = Counter(
                key
                for key in (
                    await session.execute(
                        select(OutboxPost.dedupe_key).where(OutboxPost.kind == "round_result")
                    )
                ).scalars()
            )
        by_id = {r.id: r for r in rounds}
        stored = {
            (s.user_id, by_id[s.round_id].duel_id, by_id[s.round_id].number, s.move) for s in subs
        }
        acked = self.acked_moves()
        missing = acked - stored
        if missing:
            v.append(f"{when}: acknowledged moves not stored: {sorted(missing)[:5]}")
        self.result.moves_acked = len(acked)
        self.result.moves_acked_stored = len(acked & stored)
        state = {(r.duel_id, r.number): r.status for r in rounds}
        for key in self.acked_closes:
            if state.get(key) != "closed":
                v.append(f"{when}: acknowledged close of duel #{key[0]} round {key[1]} not closed")
        open_per_duel = Counter(r.duel_id for r in rounds if r.status == "open")
        for duel_id, count in open_per_duel.items():
            if count > 1:
                v.append(f"{when}: duel #{duel_id} has {count} open rounds")
        for r in rounds:
            n = results.get(f"round_result:{r.id}", 0)
            if r.status == "closed":
                if r.result is None or r.closed_at is None or r.outcome is None or n != 1:
                    v.append(
                        f"{when}: half-closed round (duel #{r.duel_id} round {r.number}): "
                        f"result={r.result is not None} closed_at={r.closed_at is not None} "
                        f"result rows={n}"
                    )
            elif r.status == "open" and (r.result is not None or r.closed_at is not None or n):
                v.append(f"{when}: open round with a result (duel #{r.duel_id} r{r.number})")
        for duel_id, duel in duels.items():
            closed = sum(1 for r in rounds if r.duel_id == duel_id and r.status == "closed")
            if duel.rounds_played != closed:
                v.append(
                    f"{when}: duel #{duel_id} rounds_played={duel.rounds_played} but {closed} "
                    "closed rounds"
                )

    async def settle_deadlines(self) -> None:
        """Wait until no round with a deadline is still open. A commander cannot close a
        round before its deadline while a move is missing (issue 23), so rounds opened late
        in the stream close at their deadline (at most 5 s ahead), possibly after the drain;
        their results must be counted, not caught half-posted."""
        end = time.monotonic() + DRAIN_TIMEOUT
        while time.monotonic() < end:
            async with self.db.transaction() as session:
                waiting = (
                    await session.execute(
                        select(Round.id).where(Round.status == "open", Round.deadline.is_not(None))
                    )
                ).first()
            if waiting is None:
                return
            await asyncio.sleep(0.1)
        self.result.violations.append("a round with a deadline was still open long after it")

    async def drain(self) -> float:
        began = time.monotonic()
        while True:
            async with self.db.transaction() as session:
                pending = (
                    await session.execute(
                        select(OutboxPost.id, OutboxPost.kind, OutboxPost.claimed_by).where(
                            OutboxPost.status == "pending"
                        )
                    )
                ).all()
            if not pending:
                return time.monotonic() - began
            if time.monotonic() - began > DRAIN_TIMEOUT:
                self.result.violations.append(
                    f"the outbox did not drain in {DRAIN_TIMEOUT:.0f} s: {len(pending)} pending, "
                    f"e.g. {[tuple(p) for p in pending[:3]]}"
                )
                return time.monotonic() - began
            await asyncio.sleep(0.1)

    async def check_posts(self) -> None:
        """Every result posted exactly once; no outbox post twice."""
        v = self.result.violations
        async with self.db.transaction() as session:
            posts = list((await session.execute(select(OutboxPost))).scalars())
            rounds = {r.id: r for r in (await session.execute(select(Round))).scalars()}
        seen: Counter[int] = Counter()
        for message in self.fake.messages.values():
            if message.deleted:
                continue
            ids: set[int] = set()
            for embed in message.embeds:
                ids |= marker_ids((embed.get("footer") or {}).get("text"))
            seen.update(ids)
        self.result.posts_duplicated = sum(1 for n in seen.values() if n > 1)
        if self.result.posts_duplicated:
            dup = [(p.id, p.kind, seen[p.id]) for p in posts if seen[p.id] > 1]
            v.append(f"posts duplicated: {dup[:5]}")
        reasons: Counter[str] = Counter()
        once = 0
        for post in posts:
            if post.kind != "round_result":
                if post.status == "failed" and post.kind != "dm_closed":
                    v.append(f"post {post.id} ({post.kind}) failed: {post.last_error}")
                continue
            rnd = rounds[int(post.dedupe_key.split(":")[1])]
            reasons[rnd.close_reason or "?"] += 1
            if seen[post.id] == 1 and post.status == "posted":
                once += 1
            else:
                v.append(
                    f"result of duel #{rnd.duel_id} round {rnd.number} posted {seen[post.id]} "
                    f"times (status {post.status}, error {post.last_error})"
                )
        self.result.rounds_closed = sum(reasons.values())
        self.result.close_reasons = dict(reasons)
        self.result.results_posted_once = once
        self.result.closes_acked = len(self.acked_closes)

    # -- probes --------------------------------------------------------------------------

    async def probe_button(self) -> None:
        """A button DMed before the first kill still takes a move after the last restart."""
        v = self.result.violations
        pair, duel_id = self.button_probe, self.button_probe.duel_id
        prompt = self._prompt(pair.a, duel_id, 1)
        if prompt is None or not self.kill_marks or prompt.id > self.kill_marks[0]:
            v.append("button probe: the round DM was not sent before the first kill")
            return
        handle = await self.fake.click_button(pair.a.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        reply = await handle.reply(timeout=10)
        self.result.old_button_clicks += 1
        if "Move received: **Evade**" in (reply.content or ""):
            self.result.old_button_answered += 1
        else:
            v.append(f"button probe: the old button answered {reply.content!r}")
        await self._dm_move(pair.b, duel_id, "side_swipe")

    async def arm_deadline_probe(self, seconds: float) -> None:
        await self._new_duel(self.deadline_probe, deadline_s=seconds)

    async def check_deadline_probe(self, deadline_s: float) -> None:
        end = time.monotonic() + deadline_s + 15
        while time.monotonic() < end:
            status = await self.services.duels.round_status(self.deadline_probe.duel_id)
            if not status.is_open:
                history = await self.services.duels.history(self.deadline_probe.duel_id)
                reason = history.rounds[0].close_reason
                if reason != "deadline":
                    self.result.violations.append(f"deadline probe closed by {reason}")
                return
            await asyncio.sleep(0.1)
        self.result.violations.append("deadline probe: the round was not closed at its deadline")

    # -- the run ---------------------------------------------------------------------------

    async def run(self) -> RunResult:
        began = time.monotonic()
        await self.setup()
        await self.bot.start()
        self.up.set()
        # The button probe's DMs go out before the first kill.
        await self.fake.wait_for_dms(self.button_probe.a.id, 1, timeout=20)
        loops = [
            asyncio.create_task(self._pair_loop(p, random.Random(self.rng.random())))
            for p in self.pairs
        ]
        probe_deadline = 0.0
        try:
            for k in range(self.kills):
                wait = self.rng.uniform(*self.kill_window)
                if k == self.kills - 1:
                    probe_deadline = self.rng.uniform(1.0, 3.0)
                    await asyncio.sleep(wait / 2)
                    await self.arm_deadline_probe(wait / 2 + probe_deadline)
                    await asyncio.sleep(wait / 2)
                else:
                    await asyncio.sleep(wait)
                self.up.clear()
                await self.bot.kill()
                killed_at = time.monotonic()
                self.result.kill_after_s.append(round(wait, 3))
                self.kill_marks.append(max(self.fake.messages, default=0))
                await self.check_database(f"after kill {k + 1}")
                await asyncio.sleep(self.rng.uniform(0.0, 0.3))
                await self.bot.start()
                self.result.restart_s.append(round(time.monotonic() - killed_at, 3))
                self.up.set()
            await asyncio.sleep(self.rng.uniform(0.5, 1.5))
        finally:
            self.stop.set()
            done = await asyncio.gather(*loops, return_exceptions=True)
        for outcome in done:
            if isinstance(outcome, BaseException):
                self.result.violations.append(f"driver error: {outcome!r}")
        await self.probe_button()
        await self.check_deadline_probe(probe_deadline)
        await self.settle_deadlines()
        self.result.drain_s = round(await self.drain(), 3)
        await asyncio.sleep(0.3)  # the last receipts reach the fake
        await self.check_database("at the end")
        await self.check_posts()
        code = await self.bot.stop()
        if code not in (0, None):
            self.result.violations.append(f"duelbot exited with {code} on SIGTERM")
        if self.fake.unknown_routes or self.fake.errors:
            self.result.violations.append(
                f"fake: unknown routes {self.fake.unknown_routes[:3]}, "
                f"errors {self.fake.errors[:1]}"
            )
        self.result.duration_s = round(time.monotonic() - began, 2)
        return self.result


async def crash_run(
    db_url: str,
    seed: int,
    workdir: Path,
    *,
    kills: int = 1,
    duels: int = 6,
    backend: str = "?",
    kill_window: tuple[float, float] = (0.3, 2.5),
    drop_responses: int = 0,
) -> RunResult:
    """One seeded run on an already migrated database ``db_url``; each kill comes a random
    ``kill_window`` seconds after the (re)start.

    The fake is strict (issue 13): no MESSAGE_CONTENT intent, so bot-token reads of webhook
    messages come back blank; ``drop_responses`` > 0 also cuts off the answers of that many
    webhook executions and of that many bot message posts after they took effect."""
    db = make_database(db_url)
    try:
        async with FakeDiscord(token="fake.token", message_content_intent=False) as fake:
            if drop_responses:
                fake.drop_response_next("POST", "/webhooks/*/*", times=drop_responses)
                fake.drop_response_next("POST", "/channels/*/messages", times=drop_responses)
            run = CrashRun(
                fake,
                db,
                db_url,
                workdir,
                seed,
                kills=kills,
                duels=duels,
                backend=backend,
                kill_window=kill_window,
            )
            try:
                result = await run.run()
                result.responses_dropped = sum(1 for r in fake.requests if r.dropped)
                # Nothing the bot sent may be over a Discord limit (the strict fake refuses it).
                result.violations += [f"over a limit: {r}"[:300] for r in fake.limit_refusals]
                return result
            finally:
                await run.bot.kill()
    finally:
        await db.dispose()


# -- the command ------------------------------------------------------------------------------


async def _fresh_database(backend: str, workdir: Path) -> tuple[str, Any]:
    """A migrated database URL and a cleanup coroutine factory."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{workdir / 'duelbot.db'}"
        await migrate.upgrade(url)

        async def nothing() -> None:
            return None

        return url, nothing
    from tests.db.support import create_schema, drop_schema, postgres_base_url, with_schema

    base = postgres_base_url()
    schema = await create_schema(base, prefix="crash_")
    url = with_schema(base, schema)
    await migrate.upgrade(url)

    async def drop() -> None:
        await drop_schema(base, schema)

    return url, drop


async def _main(args: argparse.Namespace) -> int:
    results: list[RunResult] = []
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    for backend in backends:
        for i in range(args.runs):
            seed = args.seed + i
            workdir = Path(tempfile.mkdtemp(prefix=f"crash-{backend}-{seed}-"))
            url, cleanup = await _fresh_database(backend, workdir)
            try:
                result = await crash_run(
                    url, seed, workdir, kills=args.kills, duels=args.duels, backend=backend
                )
            finally:
                await cleanup()
            results.append(result)
            status = "ok" if result.ok else "FAIL " + "; ".join(result.violations)[:400]
            print(
                f"{backend:8} seed {seed:4}: {result.duration_s:5.1f} s, "
                f"{result.moves_acked:3} moves acked, {result.rounds_closed:3} rounds closed "
                f"{result.close_reasons}, dup {result.posts_duplicated}, old buttons "
                f"{result.old_button_answered}/{result.old_button_clicks}: {status}",
                flush=True,
            )
            if result.ok:
                shutil.rmtree(workdir, ignore_errors=True)
            else:
                print(f"   logs kept in {workdir}", flush=True)
    print(summary(results))
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0 if all(r.ok for r in results) else 1


def summary(results: list[RunResult]) -> str:
    lines = [
        "| backend | runs | kills | failed | moves acked / stored | rounds closed (commander,"
        " all moved, deadline) | results posted once | duplicates | old buttons answered |"
        " restart s (median, max) | drain s (max) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for backend in sorted({r.backend for r in results}):
        rs = [r for r in results if r.backend == backend]
        restarts = [s for r in rs for s in r.restart_s] or [0.0]
        reasons: Counter[str] = Counter()
        for r in rs:
            reasons.update(r.close_reasons)
        lines.append(
            f"| {backend} | {len(rs)} | {sum(r.kills for r in rs)} | "
            f"{sum(1 for r in rs if not r.ok)} | "
            f"{sum(r.moves_acked for r in rs)} / {sum(r.moves_acked_stored for r in rs)} | "
            f"{sum(reasons.values())} ({reasons['commander']}, {reasons['all_submitted']}, "
            f"{reasons['deadline']}) | {sum(r.results_posted_once for r in rs)} | "
            f"{sum(r.posts_duplicated for r in rs)} | "
            f"{sum(r.old_button_answered for r in rs)} / {sum(r.old_button_clicks for r in rs)} | "
            f"{statistics.median(restarts):.2f}, {max(restarts):.2f} | "
            f"{max(r.drain_s for r in rs):.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crash_harness", description=__doc__)
    parser.add_argument("--runs", type=int, default=50, help="runs per backend")
    parser.add_argument("--backend", default="sqlite,postgres")
    parser.add_argument("--kills", type=int, default=2, help="SIGKILLs per run")
    parser.add_argument("--duels", type=int, default=6, help="duels streamed concurrently")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first run")
    parser.add_argument("--json", default=None, help="write every run's figures here")
    args = parser.parse_args(argv)
    with suppress(KeyboardInterrupt):
        return asyncio.run(_main(args))
    return 130


if __name__ == "__main__":
    raise SystemExit(main())
