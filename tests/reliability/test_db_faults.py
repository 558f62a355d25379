"""Faults at the database: the bot keeps running, answers "try again", writes nothing half,
and recovers without a restart.

* PostgreSQL unavailable: the bot reaches the (shared) server through a TCP proxy on
  127.0.0.1 that the test controls. "Down" drops every open connection and refuses new ones
  (what a stopped server looks like to a client); "up" forwards again. The shared server
  itself is never touched.
* SQLite locked by another writer: a second connection holds ``BEGIN EXCLUSIVE``.

FIGURE lines (``pytest -s``) give what the user sees and when, for docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import pytest
from sqlalchemy import func, make_url, select

from bot.db.engine import Database
from bot.db.models import OutboxPost, Round, Submission
from bot.discord.errors import UNAVAILABLE
from tests.db.support import make_test_database
from tests.discord.harness import World, populate, running_world
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord


class TcpProxy:
    """127.0.0.1:<port> -> target. ``down()`` drops live connections and refuses new ones."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.up = True
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.up:
            writer.transport.abort()  # a refused connection: reset at once
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        try:
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self._writers -= {writer, up_writer}

    def down(self) -> None:
        self.up = False
        for writer in list(self._writers):
            writer.transport.abort()

    def restore(self) -> None:
        self.up = True

    async def close(self) -> None:
        self.down()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


@asynccontextmanager
async def proxied(url: str) -> AsyncIterator[tuple[TcpProxy, str]]:
    parsed = make_url(url)
    proxy = TcpProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    await proxy.start()
    try:
        yield (
            proxy,
            parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False),
        )
    finally:
        await proxy.close()


async def round_state(database: Database, duel_id: int) -> tuple[str, int, int]:
    """(status of round 1, submissions, result posts queued)."""
    async with database.transaction() as session:
        status = await session.scalar(
            select(Round.status).where(Round.duel_id == duel_id, Round.number == 1)
        )
        subs = await session.scalar(select(func.count(Submission.id)))
        results = await session.scalar(
            select(func.count(OutboxPost.id)).where(OutboxPost.kind == "round_result")
        )
    return str(status), int(subs or 0), int(results or 0)


async def attempt_all(w: World, duel_id: int) -> dict[str, tuple[float, str]]:
    """A button click, a DM move and a /round close; what each answered, and after how long."""
    fake = w.fake
    seen: dict[str, tuple[float, str]] = {}
    prompt = next(
        m for m in fake.dms_to(w.ann.id) if f"duelbot:move:{duel_id}:1:evade" in m.custom_ids()
    )
    began = time.monotonic()
    click = await fake.click_button(w.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
    first = await click.response(timeout=5)
    seen["button: first answer"] = (time.monotonic() - began, "defer" if first.is_defer else "")
    reply = await click.reply(timeout=60)
    seen["button"] = (time.monotonic() - began, reply.content)

    before = len(fake.dms_to(w.bob.id))
    began = time.monotonic()
    await fake.send_dm(w.bob.id, f"#{duel_id} side swipe")
    answers = await fake.wait_for_dms(w.bob.id, before + 1, timeout=60)
    seen["dm text"] = (time.monotonic() - began, answers[-1].content)

    began = time.monotonic()
    handle = await fake.invoke_slash(
        w.guild.id,
        w.channel_id,
        w.commander.id,
        "round",
        subcommand="close",
        options={"duel": duel_id},
    )
    reply = await handle.reply(timeout=60)
    seen["/round close"] = (time.monotonic() - began, reply.content)
    return seen


async def prepared(w: World) -> int:
    duel_id = await setup_duel(w)
    assert "Round 1" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content
    await w.fake.wait_for_dms(w.ann.id, 1, timeout=10)
    return duel_id


def report(name: str, seen: dict[str, tuple[float, str]]) -> None:
    for what, (seconds, text) in seen.items():
        print(f"FIGURE db-fault {name}: {what} answered after {seconds:.2f} s: {text[:60]!r}")


async def recovers(w: World, duel_id: int, database: Database) -> None:
    """Without a restart: the next click and DM are taken, and the round closes."""
    seen = await attempt_all(w, duel_id)
    assert "Move received: **Evade**" in seen["button"][1], seen
    assert "Move received: **Side Swipe**" in seen["dm text"][1], seen
    assert "is closed" in seen["/round close"][1], seen
    assert await round_state(database, duel_id) == ("closed", 2, 1)


@pytest.mark.parametrize("db_backend", ["postgres"])
async def test_postgres_unavailable_then_back(
    fake_discord: FakeDiscord, migrated_db_url: str
) -> None:
    fake = fake_discord
    async with proxied(migrated_db_url) as (proxy, url):
        database = make_test_database(url)
        try:
            async with running_world(fake, database, populate(fake)) as w:
                duel_id = await prepared(w)
                proxy.down()
                began = time.monotonic()
                seen = await attempt_all(w, duel_id)
                report("postgres down", seen)
                for what in ("button", "dm text", "/round close"):
                    assert seen[what][1] == UNAVAILABLE, (what, seen)
                    assert seen[what][0] < 5, (what, seen)
                assert seen["button: first answer"][1] == "defer"
                proxy.restore()
                print(f"FIGURE db-fault postgres down for {time.monotonic() - began:.2f} s")
                assert await round_state(database, duel_id) == ("open", 0, 0)
                began = time.monotonic()
                await recovers(w, duel_id, database)
                print(
                    f"FIGURE db-fault postgres back: the next commands worked, "
                    f"{time.monotonic() - began:.2f} s for all three"
                )
        finally:
            await database.dispose()


def hold_exclusive_lock(
    path: Path, seconds: float, started: asyncio.Event, loop: asyncio.AbstractEventLoop
) -> None:
    # Wait for the bot's own short write transactions (the outbox poll) to let go first.
    conn = sqlite3.connect(path, isolation_level=None, timeout=15)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        loop.call_soon_threadsafe(started.set)
        time.sleep(seconds)
        conn.execute("ROLLBACK")
    finally:
        conn.close()


@pytest.mark.parametrize("db_backend", ["sqlite"])
@pytest.mark.parametrize("held", [2.0, 12.0])
async def test_sqlite_locked_by_another_writer(
    fake_discord: FakeDiscord, migrated_db_url: str, held: float
) -> None:
    """A lock shorter than the busy timeout: the commands wait and succeed. Longer: they
    answer "try again" (the click was deferred first, inside Discord's 3 s)."""
    from bot.db.engine import SQLITE_BUSY_TIMEOUT

    fake = fake_discord
    database = make_test_database(migrated_db_url)
    path = Path(migrated_db_url.removeprefix("sqlite+aiosqlite:///"))
    try:
        async with running_world(fake, database, populate(fake)) as w:
            duel_id = await prepared(w)
            await asyncio.sleep(0.3)  # the outbox has posted the round
            loop = asyncio.get_running_loop()
            started = asyncio.Event()
            holder = loop.run_in_executor(None, hold_exclusive_lock, path, held, started, loop)
            await asyncio.wait_for(started.wait(), timeout=20)
            seen = await attempt_all(w, duel_id)
            await holder
            report(f"sqlite locked {held:.0f} s (busy timeout {SQLITE_BUSY_TIMEOUT:.0f} s)", seen)
            assert seen["button: first answer"][1] == "defer"
            assert seen["button: first answer"][0] < 3
            if held < SQLITE_BUSY_TIMEOUT:
                assert "Move received" in seen["button"][1], seen
                assert "Move received" in seen["dm text"][1], seen
                assert "is closed" in seen["/round close"][1], seen
                assert await round_state(database, duel_id) == ("closed", 2, 1)
                return
            assert seen["button"][1] == UNAVAILABLE, seen
            # It may first queue for the one connection behind a worker that waits too.
            assert seen["button"][0] < 2 * SQLITE_BUSY_TIMEOUT + 2, seen
            status, subs, results = await round_state(database, duel_id)
            # Nothing half-written: the refused click stored nothing; a round is closed with
            # its result post queued, or open without one (the lock ended while the DM or
            # the close waited, so those may have gone through).
            async with database.transaction() as session:
                stored = list((await session.execute(select(Submission))).scalars())
            assert all(s.user_id != w.ann.id for s in stored)
            assert (status, results) in {("closed", 1), ("open", 0)}, (status, subs, results)
            print(
                f"FIGURE db-fault sqlite locked {held:.0f} s: after the lock {status}, {subs} moves"
            )
            # The bot goes on without a restart.
            if status == "open":
                await w.slash(w.commander, "round", "close", duel=duel_id)
            assert "Round 2" in (await w.slash(w.commander, "round", "open", duel=duel_id)).content
    finally:
        await database.dispose()
