"""duelbot's own asyncio SQLite connection: ONE worker thread owning ONE sqlite3 connection.

Why not aiosqlite: every aiosqlite call is one thread hop (a queue put, a GIL hand-over to
the worker, a future resolved back through the event loop's self-pipe), and SQLAlchemy's
adapter makes four per statement. Profiled under load (docs/benchmarks.md, issues 14 and
25) the hops cost about as much CPU as the statements. Doing better with aiosqlite meant
reaching into its private ``Connection._execute`` and ``_conn``; issue 25 forbids that.

What this gives:

* ``run(fn, *args)``: the public hop. ``fn(sqlite3_connection, *args)`` runs in the worker
  thread, any number of statements in ONE hop;
* ``run_core(step, *args)``: the same hop, ``step`` getting a SYNC SQLAlchemy
  ``Connection`` over the thread's sqlite3 connection, so the Core statements of
  bot/db/queries.py run here exactly as on PostgreSQL (``AsyncConnection.run_sync``);
* the aiosqlite-shaped surface SQLAlchemy's ``sqlite+aiosqlite`` dialect adapter calls
  (``cursor()`` with ``execute``/``executemany``/``fetchall``/``description``...,
  ``commit``, ``rollback``, ``close``, ``stop``, ``create_function``, ``isolation_level``),
  plugged in with the public ``create_async_engine(..., async_creator=SqliteThread.opener(
  ...))``. A statement through that surface is ONE hop too (cursor, execute, rows, close
  all in the thread at once; the rows come back buffered).

A transaction's ``BEGIN`` (the engine sends ``BEGIN IMMEDIATE``, bot/db/engine.py) is held
back and sent in the same hop as the transaction's first statement or ``run``: a
transaction then costs one hop less, and one with no statement at all costs none. A
``commit``/``rollback`` outside a transaction is known without a hop (the worker reports
``in_transaction`` after every hop) and costs none.

**Inline** (``runs_inline``, set by bot/db/sqlite_lane.py on the moves' connection): ``run``
calls ``fn`` right away in the caller's thread (the event loop's) instead of hopping, the
COMMIT included. Why: under load a move's hop cost the database's thread three times what
the move costs alone (0.75 against 0.25 ms, docs/benchmarks.md issue 27): sqlite3 gives
the GIL up around every statement and the COMMIT's fsync, and takes it back from an event
loop busy with discord.py. Inline, a move costs what it costs alone, and its fsync'd
COMMIT holds the event loop for the disk's flush: 0.23 ms of wall time here. Keeping only
the COMMIT in the thread was measured too, and was worse: its hand-back waits for the GIL
behind the busy event loop, with the lane's lock held (docs/decisions.md, "Cost per move,
the fifth pass"). It is safe because the connection is used by one caller at a time (the
lane's lock) and never while a hop of its own is under way (each call is awaited to its
end); sqlite3 is opened with ``check_same_thread=False`` for it. The event loop never waits for
another process's write lock: a transaction's BEGIN is tried inline with a busy timeout of
0, and when the lock is taken (a second shard's process on the same file) that transaction's
first call hops to the thread and waits there, with the connection's own busy timeout
(``go_inline``). The thread opens and closes the connection, and serves the connections
that are not inline (the ORM pool's).

The connection is opened with ``isolation_level=None``: sqlite3 never begins or commits on
its own; the transactions are the engine's (and a ``run_core`` step's, when it answers "commit":
the step's decision). This module never commits of its own accord.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from contextvars import copy_context
from functools import partial
from operator import methodcaller
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.pool import StaticPool

T = TypeVar("T")
P = ParamSpec("P")

_Job = Callable[[], Any]
# (the loop and future to answer on, None: nobody waits; the work), or None: stop the thread
_Request = tuple[asyncio.AbstractEventLoop | None, "asyncio.Future[Any] | None", _Job] | None
# a statement's outcome, as one hop hands it back
_Outcome = tuple[Any, list[Any], int, int | None]

CLOSED = "Connection closed"  # aiosqlite's words: SQLAlchemy's dialect maps them


def _busy_timeout_to_zero(conn: sqlite3.Connection) -> int:
    (was,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute("PRAGMA busy_timeout=0")
    return int(was)


def _is_begin(operation: str, parameters: Any) -> bool:
    return not parameters and operation.lstrip()[:5].upper() == "BEGIN"


def _statement(conn: sqlite3.Connection, operation: str, parameters: Any, many: bool) -> _Outcome:
    """In the worker thread: a whole statement, its rows fetched."""
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


class LentConnection:
    """The thread's sqlite3 connection as lent to the in-thread sync ``Engine``:
    statements pass through, but ending the transaction or the connection is not the
    borrower's (SQLAlchemy's ``Connection`` rolls back at its close, its pool at check-in:
    here those are no-ops; the transaction is the async engine's and ``run_core``'s)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def cursor(self) -> sqlite3.Cursor:
        return self.conn.cursor()

    def commit(self) -> None:
        return None

    def rollback(self) -> None:
        return None

    def close(self) -> None:
        return None

    def create_function(self, *args: Any, **kw: Any) -> None:
        self.conn.create_function(*args, **kw)

    @property
    def isolation_level(self) -> str | None:
        return self.conn.isolation_level


class SqliteThreadCursor:
    """aiosqlite's cursor, as far as SQLAlchemy's adapter uses it: buffered, one hop per
    statement (none for a held-back BEGIN)."""

    arraysize = 1

    def __init__(self, connection: SqliteThread) -> None:
        self.connection = connection
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.rows: list[Any] = []

    async def __aenter__(self) -> SqliteThreadCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def execute(self, operation: str, parameters: Any = None) -> SqliteThreadCursor:
        if _is_begin(operation, parameters):
            self.connection.hold_begin(operation)
            self._took(None, [], -1, None)
        else:
            self._took(*await self.connection.run(_statement, operation, parameters, False))
        return self

    async def executemany(
        self, operation: str, seq_of_parameters: Sequence[Any]
    ) -> SqliteThreadCursor:
        self._took(*await self.connection.run(_statement, operation, seq_of_parameters, True))
        return self

    def _took(self, description: Any, rows: list[Any], rowcount: int, last: int | None) -> None:
        self.description, self.rows, self.rowcount, self.lastrowid = (
            description,
            rows,
            rowcount,
            last,
        )

    async def fetchone(self) -> Any:
        return self.rows.pop(0) if self.rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        count = self.arraysize if size is None else size
        taken, self.rows = self.rows[:count], self.rows[count:]
        return taken

    async def fetchall(self) -> list[Any]:
        taken, self.rows = self.rows, []
        return taken

    async def close(self) -> None:
        self.rows = []


class SqliteThread:
    """One sqlite3 connection in one worker thread of its own; see the module's doc."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="duelbot-sqlite", daemon=True)
        self._sqlite: sqlite3.Connection | None = None  # used in the worker thread only
        self._core: Connection | None = None  # run_core's, made in the worker thread
        self._core_engine: Engine | None = None
        self._open = False
        self._pending_begin: str | None = None
        self.in_transaction = False  # as the worker last reported it
        # True: ``run`` runs in the caller's thread (see the module's doc); set by go_inline
        self.runs_inline = False
        self._busy_ms = 0  # the busy timeout the connection was opened with (go_inline)
        # (tests and profiling count them) hops into the worker thread; runs in the caller's
        self.hops = 0
        self.inline_runs = 0

    # -- opening and the hop -------------------------------------------------------------

    @classmethod
    async def connect(cls, database: str, **kwargs: Any) -> SqliteThread:
        """Open ``sqlite3.connect(database, **kwargs)`` in a new worker thread
        (``isolation_level`` is always None: see the module's doc)."""
        self = cls()
        self._thread.start()
        try:
            await self._hop(partial(self._connect, database, kwargs))
        except BaseException:
            self._requests.put(None)
            raise
        self._open = True
        return self

    @classmethod
    def opener(cls, database: str, **kwargs: Any) -> Callable[[], Any]:
        """An ``async_creator`` for ``create_async_engine``."""
        return partial(cls.connect, database, **kwargs)

    def _connect(self, database: str, kwargs: dict[str, Any]) -> None:
        self._sqlite = sqlite3.connect(database, **{**kwargs, "isolation_level": None})

    def _serve(self) -> None:
        while (request := self._requests.get()) is not None:
            loop, future, job = request
            try:
                outcome, failure = job(), None
            except BaseException as error:  # handed to the awaiting task
                outcome, failure = None, error
            if loop is None or future is None:
                continue
            conn = self._sqlite
            in_transaction = conn is not None and self._in_transaction_in_thread(conn)
            # RuntimeError: the loop is closed, nobody is waiting any more
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._settle, future, outcome, failure, in_transaction)

    @staticmethod
    def _in_transaction_in_thread(conn: sqlite3.Connection) -> bool:
        try:
            return conn.in_transaction
        except sqlite3.ProgrammingError:  # closed
            return False

    def _settle(
        self,
        future: asyncio.Future[Any],
        outcome: Any,
        failure: BaseException | None,
        in_transaction: bool,
    ) -> None:
        self.in_transaction = in_transaction
        if future.cancelled():
            return
        if failure is None:
            future.set_result(outcome)
        else:
            future.set_exception(failure)

    def _hop(self, job: _Job) -> asyncio.Future[Any]:
        self.hops += 1
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._requests.put((loop, future, job))
        return future

    async def run(self, fn: Callable[Concatenate[sqlite3.Connection, P], T], *args: Any) -> T:
        """``fn(sqlite3_connection, *args)`` in the worker thread: one hop, after the
        held-back BEGIN if a transaction was begun."""
        if not self._open:
            raise ValueError(CLOSED)
        begin, self._pending_begin = self._pending_begin, None
        begin_then = self._begin_then
        if self.runs_inline:
            if begin is None or self._begin_at_once(begin):
                return self._run_inline(fn, args)
            # Another process holds SQLite's write lock: wait for it in the worker
            # thread (the busy timeout), not in the event loop's.
            begin_then = self._begin_waiting
        # In the caller's context, as asyncio.to_thread does: what the step builds for a
        # reader (a move's label, its round's words) speaks the caller's language scope.
        job = partial(copy_context().run, begin_then, begin, fn, args)
        try:
            result: T = await self._hop(job)
        except BaseException:
            if begin is not None and not self.in_transaction:
                self._pending_begin = begin  # the BEGIN itself failed: still to do
            raise
        return result

    def _begin_at_once(self, begin: str) -> bool:
        """Inline: the transaction's BEGIN if SQLite's write lock is free now (the lane's
        connection has a busy timeout of 0, ``go_inline``); False if another process
        holds it."""
        conn = self._sqlite
        assert conn is not None
        try:
            conn.execute(begin)
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                self._pending_begin = begin  # still to do
                raise
            return False
        finally:
            self.in_transaction = self._in_transaction_in_thread(conn)
        return True

    def _begin_waiting(
        self, begin: str | None, fn: Callable[..., T], args: tuple[Any, ...]
    ) -> T:
        """In the worker thread: the BEGIN with the busy timeout the connection was opened
        with (see ``go_inline``), then ``fn``."""
        conn = self._sqlite
        assert conn is not None and begin is not None
        conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        try:
            conn.execute(begin)
        finally:
            conn.execute("PRAGMA busy_timeout=0")
        return fn(conn, *args)

    async def go_inline(self) -> None:
        """From now on ``run`` runs in the caller's thread (see the module's doc). The busy
        timeout becomes 0 for the BEGIN tried there; a BEGIN that finds the write lock
        taken waits in the worker thread, with the timeout the connection had."""
        self._busy_ms = await self.run(_busy_timeout_to_zero)
        self.runs_inline = True

    def _run_inline(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        self.inline_runs += 1
        conn = self._sqlite
        assert conn is not None
        try:
            return fn(conn, *args)
        finally:
            self.in_transaction = self._in_transaction_in_thread(conn)

    def _begin_then(self, begin: str | None, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        conn = self._sqlite
        assert conn is not None
        if begin is not None:
            conn.execute(begin)
        return fn(conn, *args)

    async def run_core(
        self, step: Callable[Concatenate[Connection, P], tuple[T, bool]], *args: Any
    ) -> tuple[T, bool]:
        """``step(sync_connection, *args)`` in the worker thread (one hop), on a SYNC
        SQLAlchemy ``Connection`` over this sqlite3 connection, in the transaction begun
        (the held-back BEGIN first). The step answers its result and whether to commit:
        its caller's decision, carried out in the same hop (inline: the same call).
        Returned as the step's."""
        return await self.run(self._core_step, step, args)

    def _core_step(
        self,
        conn: sqlite3.Connection,
        step: Callable[..., tuple[T, bool]],
        args: tuple[Any, ...],
    ) -> tuple[T, bool]:
        core = self._core_connection(conn)
        try:
            result, commit = step(core, *args)
        finally:
            core.rollback()  # SQLAlchemy's bookkeeping only: the lent rollback does nothing
        if commit:
            conn.commit()
        return result, commit

    def _core_connection(self, conn: sqlite3.Connection) -> Connection:
        if self._core is None or self._core.invalidated:
            if self._core_engine is None:
                lent = LentConnection(conn)
                self._core_engine = create_engine(
                    "sqlite://",
                    creator=lambda: lent,
                    poolclass=StaticPool,
                    hide_parameters=True,  # SQL logs must never show a secret move
                )
            self._core = self._core_engine.connect()
        return self._core

    @property
    def is_open(self) -> bool:
        return self._open

    # -- what SQLAlchemy's aiosqlite adapter calls --------------------------------------

    def hold_begin(self, operation: str) -> None:
        """Keep ``operation`` (a BEGIN) for the next hop (see the module's doc). In a
        transaction already (begun by a step, bot/db/engine.py ``Work``), an ORM session's
        begin joins it: nothing to send."""
        if not self.in_transaction:
            self._pending_begin = operation

    @property
    def _connection(self) -> bool:
        """Read by SQLAlchemy's adapter (aiosqlite's name for its sqlite3 connection,
        None once closed) before a commit or rollback: whether this one is open."""
        return self._open

    @property
    def isolation_level(self) -> str | None:
        return None  # always: see the module's doc

    def cursor(self) -> SqliteThreadCursor:
        return SqliteThreadCursor(self)

    async def execute(self, operation: str, parameters: Any = None) -> SqliteThreadCursor:
        return await self.cursor().execute(operation, parameters)

    # (methodcaller: a sqlite3.connect(factory=...) subclass's own commit is the one called)
    async def commit(self) -> None:
        await self._end(methodcaller("commit"))

    async def rollback(self) -> None:
        await self._end(methodcaller("rollback"))

    async def _end(self, how: Callable[[sqlite3.Connection], None]) -> None:
        self._pending_begin = None  # begun but no statement yet: nothing to end
        if self.in_transaction:
            await self.run(how)

    async def create_function(self, *args: Any, **kw: Any) -> None:
        await self.run(lambda conn: conn.create_function(*args, **kw))

    async def close(self) -> None:
        if not self._open:
            return
        self._open = False
        try:
            await self._hop(self._close_in_thread)
        finally:
            self._requests.put(None)

    def stop(self) -> None:
        """Close without waiting (SQLAlchemy's forced terminate)."""
        if self._open:
            self._open = False
            self._requests.put((None, None, self._close_in_thread))
            self._requests.put(None)

    def _close_in_thread(self) -> None:
        self._core = None
        if self._core_engine is not None:
            self._core_engine.dispose(close=False)
            self._core_engine = None
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
