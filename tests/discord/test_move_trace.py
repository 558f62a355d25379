"""The path of one move, traced (issue 25): a profiler hook over the handling of one DM that
completes a round (``close_when_all_submitted``), from the gateway MESSAGE_CREATE the fake
Discord dispatches to the result post reaching it. It fails when the move crosses a layer
boundary more than ``MAX_CROSSINGS`` times.

What counts as a layer crossing (docs/architecture.md, "One move, from DM to posted result"):

- the layers are the packages ``bot.discord``, ``bot.services``, ``bot.db``, ``bot.rules``
  and ``bot.presentation`` (a function's layer is that of the module it is defined in,
  ``f_globals["__name__"]``; a dataclass's generated methods belong to its module);
- everything else is outside: the standard library (asyncio), discord.py, aiohttp,
  SQLAlchemy, aiosqlite, the fake Discord (``bot.standin``), the tests;
- a crossing is a Python call (``sys.setprofile``'s "call" event that starts a frame; a
  coroutine or generator resumed after an ``await`` is not a new call) whose callee is in one
  layer and whose immediate caller in another. A call from or into the outside is not
  counted: discord.py calling the cog, SQLAlchemy calling an event listener, the event loop
  starting the poster's task.

On SQLite the ORM transactions run in the pool connection's own thread
(bot/db/sqlite_thread.py): the hook is installed there too (``sys.setprofile`` is per
thread), so those calls count as any other. The move's step runs inline, in the event
loop's thread (the lane's connection, ``SqliteThread.runs_inline``).

Run with ``MOVE_TRACE_PRINT=1`` and ``-s`` to print every crossing in order.
"""

from __future__ import annotations

import dis
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from types import CodeType, FrameType
from typing import Any

import pytest

from bot.config import WorkerSettings
from bot.db.engine import Database
from bot.db.sqlite_thread import SqliteThread
from bot.discord.client import create_bot
from bot.discord.languages import MemberLanguages
from bot.services.container import Services
from tests.discord.harness import World, bot_settings, populate
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord, run_bot

# The goal for the whole path, under 15, met: 14 crossings on SQLite, 13 on
# PostgreSQL (docs/architecture.md numbers them). The move's own part: the cog ->
# submit_move, the step handed to the unit of work (``Work.run``; on SQLite called back by
# the lane's connection, ``SqliteThread._core_step`` -> ``move_pass.take_move``: one call
# per move, inline in the event loop's thread), the duel, round and stored moves in one
# read, the rules asked once (``check_move``), the store, the session the close joins and
# the receipt's text. The close: its reads, the rules asked once (``adjudicate``:
# everything the published round shows, in the ruleset's words); its audit row is an ORM
# row the service adds itself (no call into bot/db). The poster: the claim, the typed
# message, the render (which reads the published round and asks no ruleset) and the mark.
MAX_CROSSINGS = 14
# The move's own part, from the DM to the receipt (everything but _close and the poster).
MOVE_PART_CEILING = 9
LAYERS = ("bot.discord", "bot.services", "bot.db", "bot.rules", "bot.presentation")
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen


def layer_of(module: str | None) -> str | None:
    if not module:
        return None
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


@dataclass
class Crossing:
    caller: str  # module.function
    callee: str
    caller_layer: str
    callee_layer: str


@dataclass
class LayerTrace:
    crossings: list[Crossing] = field(default_factory=list)
    _starts: dict[CodeType, int] = field(default_factory=dict)

    def _first_resume(self, code: CodeType) -> int:
        """The offset of a generator's or coroutine's first RESUME: a "call" event there
        starts the frame; any later one resumes it."""
        offset = self._starts.get(code)
        if offset is None:
            offset = next(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")
            self._starts[code] = offset
        return offset

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        callee_layer = layer_of(frame.f_globals.get("__name__"))
        if callee_layer is None:
            return
        caller = frame.f_back
        if caller is None:
            return
        caller_layer = layer_of(caller.f_globals.get("__name__"))
        if caller_layer is None or caller_layer == callee_layer:
            return
        code = frame.f_code
        if code.co_flags & _RESUMABLE and frame.f_lasti > self._first_resume(code):
            return  # a coroutine resumed after an await: the same call
        self.crossings.append(
            Crossing(
                f"{caller.f_globals['__name__']}.{caller.f_code.co_qualname}",
                f"{frame.f_globals['__name__']}.{code.co_qualname}",
                caller_layer,
                callee_layer,
            )
        )

    @contextmanager
    def tracing(self) -> Iterator[None]:
        previous = sys.getprofile()
        sys.setprofile(self.profile)
        try:
            yield
        finally:
            sys.setprofile(previous)

    def report(self) -> str:
        lines = [
            f"{n:3}. {c.caller} -> {c.callee}  ({c.caller_layer} -> {c.callee_layer})"
            for n, c in enumerate(self.crossings, 1)
        ]
        edges = {(c.caller, c.callee) for c in self.crossings}
        lines.append(f"{len(self.crossings)} crossings over {len(edges)} distinct edges")
        return "\n".join(lines)


def test_layer_trace_counts_a_call_across_layers_once() -> None:
    """The hook itself: a call from a services function into bot.rules is one crossing, an
    await resumed later is not another, and calls within a layer or from outside are none."""
    import asyncio

    from bot.rules.registry import get as get_ruleset
    from bot.services import duel_support

    trace = LayerTrace()

    async def outside() -> None:  # the tests are outside every layer
        duel_support.ruleset_of("rule-2.14")  # services -> rules: get_ruleset, one crossing
        await asyncio.sleep(0)

    with trace.tracing():
        asyncio.run(outside())
        get_ruleset("rule-2.14")  # outside -> rules: not counted
    assert [(c.caller, c.callee) for c in trace.crossings] == [
        ("bot.services.duel_support.ruleset_of", "bot.rules.registry.get")
    ]


@asynccontextmanager
async def in_database_thread(database: Database, profile: Any) -> AsyncIterator[None]:
    """``profile`` also in SQLite's database thread: the pool's, where the ORM transactions
    run (the lane's connection, where a move's step runs, runs inline in the event loop's
    thread, bot/db/sqlite_lane.py; PostgreSQL has no thread: run_sync runs the step in the
    event loop's thread)."""
    async with database.transaction() as session:
        raw = await (await session.connection()).get_raw_connection()
        drivers = [raw.driver_connection]
    if database.lane is not None:
        async with database.lane.lock:
            drivers.append((await database.lane.connection())[1])
    threads = [d for d in drivers if isinstance(d, SqliteThread) and not d.runs_inline]
    assert len(threads) == (1 if database.lane is not None else 0)
    for driver in threads:
        await driver.run(lambda _conn: sys.setprofile(profile))
    try:
        yield
    finally:
        for driver in threads:
            await driver.run(lambda _conn: sys.setprofile(None))


@pytest.mark.parametrize("language_known", [True, False], ids=["known", "first-dm"])
async def test_one_dm_that_completes_a_round_crosses_layers_fewer_than_15_times(
    fake_discord: FakeDiscord, database: Database, language_known: bool
) -> None:
    """``first-dm``: the process knows nothing of the member's language (after a restart).
    The move's own pass reads it (issue 27): one more call into bot/db, in the same hop,
    and no transaction before the move."""
    fake = fake_discord
    people = populate(fake)
    settings = bot_settings(fake, close_when_all_submitted=True)
    # No poller may run inside the traced window: only the move's own work is counted (the
    # commit wakes the poster, as in production).
    settings = replace(
        settings, workers=WorkerSettings(outbox_poll_seconds=3600, scheduler_poll_seconds=3600)
    )
    services = Services.create(database, settings.duels)
    bot = create_bot(services, settings)
    async with run_bot(bot, fake):
        w = World(fake=fake, bot=bot, services=services, **people)
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        await fake.send_dm(w.ann.id, "evade")
        await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        posts = len(fake.messages_in(w.channel_id))
        # The languages heard so far are stored before the window (in the background, 0.5 s
        # after the first: not the move's work).
        await bot.member_languages.settled()
        if not language_known:
            bot.member_languages = MemberLanguages(services)

        trace = LayerTrace()
        async with in_database_thread(database, trace.profile):
            with trace.tracing():
                await fake.send_dm(w.bob.id, "ffs")
                found = await fake.wait_for_messages(w.channel_id, posts + 1, timeout=15)
        assert "Full Frontal Strike" in str(found[-1].embeds) + found[-1].content
        # the round was closed by that move, in its pass
        status = await services.duels.round_status(duel_id, people["guild"].id)
        assert not status.is_open

    if os.environ.get("MOVE_TRACE_PRINT"):
        print("\n" + trace.report())
    assert trace.crossings, "the hook saw nothing: the trace itself is broken"
    # The move's own part: every crossing before the close starts, and the receipt's text.
    close_at = next(
        (n for n, c in enumerate(trace.crossings) if ".RoundCommands._close" in c.caller),
        len(trace.crossings),
    )
    move_part = trace.crossings[:close_at] + [
        c for c in trace.crossings[close_at:] if c.caller.startswith("bot.discord.cogs.")
    ]
    extra = 0 if language_known else 1  # queries.dm_language_rows, in the move's pass
    assert len(move_part) <= MOVE_PART_CEILING + extra, trace.report()
    assert len(trace.crossings) <= MAX_CROSSINGS + extra, trace.report()
