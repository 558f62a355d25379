"""SQLite's lane: the connection a move's transaction runs on, and the lock every
transaction of the process takes on SQLite.

Why: a move on SQLite is one call of duelbot's own driver (bot/db/sqlite_thread.py). Around
that call, checking a connection out of SQLAlchemy's async pool and in again (greenlet
switches, the pool's bookkeeping, a shielded close task) cost about 0.3 ms of the event
loop's CPU per move, measured: as much again as the hop. The lane keeps ONE connection
checked out for the moves, so a move costs the lock and its call; and that connection runs
its statements and COMMIT in the event loop's own thread (``SqliteThread.runs_inline``): a
move's hop to the database's thread cost, under load, three times the move itself.

SQLite has one writer at a time, and every duelbot transaction writes or may write (BEGIN
IMMEDIATE): the pool of one connection used to be what serialised them in the process. Now
the lane's lock does, for the moves (``Database.connection_transaction``) and for the ORM
transactions on the pool's connection (``Database.transaction``) alike, so the two
connections never wait on each other inside SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.db.sqlite_thread import SqliteThread


class SqliteLane:
    """The moves' connection (made at first use, kept checked out) and the writers' lock."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine  # pool of one: the lane's connection
        self.lock = asyncio.Lock()
        self._connection: AsyncConnection | None = None

    async def connection(self) -> tuple[AsyncConnection, SqliteThread]:
        """The lane's connection and its driver (call with the lock held)."""
        conn = self._connection
        if conn is None or conn.closed or conn.invalidated or not _driver(conn).is_open:
            if conn is not None:
                await _discard(conn)
            conn = self._connection = await self.engine.connect()
            await _driver(conn).go_inline()  # see bot/db/sqlite_thread.py, "Inline"
        return conn, _driver(conn)

    async def dispose(self) -> None:
        if self._connection is not None:
            await _discard(self._connection)
            self._connection = None
        await self.engine.dispose()


def _driver(conn: AsyncConnection) -> Any:
    # Checked out and valid (see ``connection``): read without a greenlet hop.
    return conn.sync_connection.connection.driver_connection  # type: ignore[union-attr]


async def _discard(conn: AsyncConnection) -> None:
    # already gone (closed, or its thread stopped): nothing to give back
    with contextlib.suppress(Exception):
        await conn.invalidate()
    with contextlib.suppress(Exception):
        await conn.close()
