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


# The engine begins every transaction with this statement (bot/db/engine.py). It is held
# back and sent in the same hop as the transaction's first statement: a transaction then
# costs one hop less, and one with no statement at all costs none.
BEGIN = "BEGIN IMMEDIATE"


def _run(
    conn: sqlite3.Connection, begin: str | None, operation: str, parameters: Any, many: bool
) -> _Outcome:
    """In aiosqlite's worker thread: the whole statement (after the held-back BEGIN)."""
    cursor = conn.cursor()
    try:
        if begin is not None:
            cursor.execute(begin)
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


def _in_transaction(conn: aiosqlite.Connection) -> bool:
    """Whether the sqlite3 connection is inside a transaction (read without a hop: the
    flag is the library's autocommit state; no statement runs on it meanwhile)."""
    try:
        return conn._conn.in_transaction
    except ValueError:  # closed: let the driver's own call say so
        return True


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
        if operation == BEGIN and not parameters:
            adapted: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
            adapted._pending_begin = operation
            return None
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
        adapted: OneHopConnection = self._adapt_connection  # type: ignore[assignment]
        async with adapted._execute_mutex:
            begin, adapted._pending_begin = adapted._pending_begin, None
            try:
                outcome: _Outcome = await conn._execute(  # type: ignore[no-untyped-call]
                    _run, conn._conn, begin, operation, parameters, many
                )
            except BaseException:
                if begin is not None and not _in_transaction(conn):
                    adapted._pending_begin = begin  # the BEGIN itself failed: still to do
                raise
        self._description, rows, self._rowcount, self._lastrowid = outcome
        self._rows = collections.deque(rows)


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ("_pending_begin",)
    _cursor_cls = OneHopCursor

    def __init__(self, dbapi: Any, connection: Any) -> None:
        super().__init__(dbapi, connection)
        self._pending_begin: str | None = None

    # sqlite3's own commit() and rollback() do nothing outside a transaction; here that is
    # known without a hop (the pool's rollback at every check-in is one such call).
    def commit(self) -> None:
        self._pending_begin = None
        if _in_transaction(self._connection):  # type: ignore[arg-type]
            super().commit()

    def rollback(self) -> None:
        self._pending_begin = None
        if _in_transaction(self._connection):  # type: ignore[arg-type]
            super().rollback()


class OneHopDbapi(AsyncAdapt_aiosqlite_dbapi):
    """Pass as ``module=`` to ``create_async_engine`` for a ``sqlite+aiosqlite`` URL."""

    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        return OneHopConnection(self, adapted._connection)


def onehop_dbapi() -> OneHopDbapi:
    return OneHopDbapi(aiosqlite, sqlite3)
