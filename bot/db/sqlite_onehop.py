"""SQLAlchemy's aiosqlite adapter with one thread hop per statement instead of four.

aiosqlite runs every sqlite3 call in its worker thread; SQLAlchemy's adapter makes four such
calls per statement (open a cursor, execute, fetch all rows, close the cursor), each a
queue put, a GIL hand-over to the worker, a future resolved back through the event loop's
self-pipe. Profiled under load (docs/benchmarks.md, issue 14) these hops cost about as much
CPU as the statements themselves. Here a statement is ONE call in the worker thread that
does all four and hands back the description, the rows, the row count and the last row
id: the same sqlite3 connection, the same order of statements, the same transactions (the
engine's BEGIN IMMEDIATE and COMMIT are statements like any other), so nothing changes
but the number of hops.

It relies on aiosqlite's ``Connection._execute(fn)`` (queue ``fn`` for the worker thread)
and ``Connection._conn`` (its sqlite3 connection), both stable since aiosqlite 0.17;
tests/db/test_sqlite_onehop.py pins the behaviour.
"""

from __future__ import annotations

import collections
import sqlite3
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_

_Outcome = tuple[Any, list[Any], int, int | None]


def _run(conn: sqlite3.Connection, operation: str, parameters: Any, many: bool) -> _Outcome:
    """In aiosqlite's worker thread: the whole statement."""
    cursor = conn.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered cursor whose statement runs in one worker-thread call."""

    __slots__ = ("_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: Any) -> None:  # no cursor opened in the thread
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._cursor = None  # type: ignore[assignment]
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    async def _async_soft_close(self) -> None:
        return None  # nothing open in the thread: the rows are already here

    def close(self) -> None:
        self._rows.clear()

    def execute(self, operation: Any, parameters: Any = None) -> Any:
        try:
            return await_(self._hop(operation, parameters, False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> Any:
        try:
            return await_(self._hop(operation, seq_of_parameters, True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _hop(self, operation: Any, parameters: Any, many: bool) -> None:
        conn: aiosqlite.Connection = self._connection  # type: ignore[assignment]
        async with self._adapt_connection._execute_mutex:
            outcome: _Outcome = await conn._execute(  # type: ignore[no-untyped-call]
                _run, conn._conn, operation, parameters, many
            )
        self._description, rows, self._rowcount, self._lastrowid = outcome
        self._rows = collections.deque(rows)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()
    _cursor_cls = OneHopCursor


class OneHopDbapi(AsyncAdapt_aiosqlite_dbapi):
    """Pass as ``module=`` to ``create_async_engine`` for a ``sqlite+aiosqlite`` URL."""

    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        adapted.__class__ = OneHopConnection
        return adapted


def onehop_dbapi() -> OneHopDbapi:
    return OneHopDbapi(aiosqlite, sqlite3)
