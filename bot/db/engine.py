"""Engine and sessionmaker. SQLite: WAL, foreign keys, BEGIN IMMEDIATE, one connection.

Why one connection on SQLite: SQLite has one writer anyway; with a pool, writers queue on
the file lock (measured: slowest transaction 2-3 s with 15 connections, p99 0.14 s with one).
Why BEGIN IMMEDIATE: aiosqlite's default deferred BEGIN lets a read-then-write race lose
updates when a second process (the CLI, a second bot) writes the same file.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection, event, make_url
from sqlalchemy.dialects.sqlite.aiosqlite import SQLiteDialect_aiosqlite
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import Session
from sqlalchemy.pool import AsyncAdaptedQueuePool, Pool

from bot.db.models import OutboxPost
from bot.db.sqlite_lane import SqliteLane
from bot.db.sqlite_thread import SqliteThread

log = logging.getLogger(__name__)

# Set in a session's ``info`` when the session adds an outbox row (see _note_outbox_rows).
OUTBOX_WRITTEN = "duelbot.outbox_written"

# Seconds a SQLite write waits for another writer's lock before giving up ("try again").
# Transactions here take milliseconds; a lock held longer is another process (a backup, a
# CLI): the user should hear "try again" within seconds, not after 30 s of "thinking".
SQLITE_BUSY_TIMEOUT = 5.0
BEGIN = "BEGIN IMMEDIATE"
APPLICATION_NAME = "duelbot"
IDLE_PING_SECONDS = 10.0
IDLE_SINCE = "duelbot_idle_since"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def split_search_path(url: str) -> tuple[str, str | None]:
    """``(url without it, schema)`` for a PostgreSQL URL with a ``?search_path=`` query.

    asyncpg takes the search path as a server setting, not as a URL query, so the option is
    lifted out of the URL here. It lets one plain URL string (an env var, a subprocess)
    point duelbot at a schema other than ``public``: the tests run each in its own schema.
    """
    if is_sqlite(url):
        return url, None
    parsed = make_url(url)
    schema = parsed.query.get("search_path")
    if schema is None:
        return url, None
    if not isinstance(schema, str):
        schema = ",".join(schema)
    stripped = parsed.difference_update_query(["search_path"])
    return stripped.render_as_string(hide_password=False), schema


def make_engine(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = 10,
    connect_args: Mapping[str, Any] | None = None,
    poolclass: type[Pool] | None = None,
) -> AsyncEngine:
    """The engine for ``url``; ``connect_args`` are merged over duelbot's own.

    ``poolclass`` (e.g. ``NullPool``) replaces the default pool; on SQLite the single
    connection pool is what serialises writers, so only pass one for short-lived tools.
    """
    extra = dict(connect_args or {})
    if is_sqlite(url):
        if poolclass is None:
            pool_args: dict[str, Any] = {
                "poolclass": AsyncAdaptedQueuePool,
                "pool_size": 1,
                "max_overflow": 0,
                "pool_timeout": 30,
            }
        else:
            pool_args = {"poolclass": poolclass}
        # duelbot's own connection (one worker thread, one hop per statement or per move:
        # bot/db/sqlite_thread.py) in place of aiosqlite's, through SQLAlchemy's public
        # async_creator; the URL only names the file (and its sqlite3 options).
        args, options = SQLiteDialect_aiosqlite().create_connect_args(make_url(url))
        options = {**options, "timeout": SQLITE_BUSY_TIMEOUT, **extra}
        # the lane's connection runs in the event loop's thread (bot/db/sqlite_thread.py,
        # "Inline"), one caller at a time
        options["check_same_thread"] = False
        engine = create_async_engine(
            url,
            echo=echo,
            hide_parameters=True,  # SQL logs must never show a secret move
            async_creator=SqliteThread.opener(*args, **options),
            **pool_args,
        )
        _configure_sqlite(engine)
        return engine
    url, schema = split_search_path(url)
    settings = dict(extra.get("server_settings") or {})
    if schema is not None:
        settings.setdefault("search_path", schema)
    # named in pg_stat_activity (an operator, or bench/cost_bench.py, finds its backends)
    settings.setdefault("application_name", APPLICATION_NAME)
    extra["server_settings"] = settings
    if poolclass is None:
        pool_args = {"pool_size": pool_size, "max_overflow": pool_size}
    else:
        pool_args = {"poolclass": poolclass}
    engine = create_async_engine(
        url, echo=echo, hide_parameters=True, connect_args=extra, **pool_args
    )
    _ping_after_idle(engine)
    return engine


def _ping_after_idle(engine: AsyncEngine) -> None:
    """A connection idle longer than IDLE_PING_SECONDS is pinged at check-out, and replaced
    if the server is gone (a restart while the bot was quiet). SQLAlchemy's pool_pre_ping
    pinged at every check-out: one more round trip per move, the server's CPU included
    (issue 27); a connection in steady use is known alive from its last transaction, and
    one that died meanwhile fails that one transaction ("try again"), which invalidates
    the pool's connections."""

    @event.listens_for(engine.sync_engine, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info[IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get(IDLE_SINCE)
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            # the pool opens a new connection in its place (and tries up to three times)
            raise DisconnectionError(f"an idle connection failed its ping: {error}") from error


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The driver never begins or commits on its own (SqliteThread opens sqlite3 with
        # isolation_level=None), so BEGIN IMMEDIATE is ours.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # FULL: a COMMIT returns once the WAL is on disk (fsync), so an acknowledged move
        # survives a power cut too; NORMAL only survives a crash of the process. Measured
        # on this VM: 0.66 ms of wall time and 0.13 ms of CPU per commit, in aiosqlite's
        # thread; group commit shares one among the moves of a batch (issue 14).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT * 1000)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        driver = conn.connection.driver_connection
        if isinstance(driver, SqliteThread):
            # straight to the driver, which sends it with the first statement: a statement
            # executed through SQLAlchemy only to be held back cost a fifth of a move's CPU
            driver.hold_begin(BEGIN)
        else:
            conn.exec_driver_sql(BEGIN)


class DatabaseUnavailable(Exception):
    """The database could not be reached or was locked too long; the transaction was
    rolled back, so nothing was written."""


@event.listens_for(Session, "before_flush")
def _note_outbox_rows(session: Session, _context: Any, _instances: Any) -> None:
    """Remember that this transaction writes an outbox post: every flush (the commit's
    included) passes here with the new rows still in ``session.new``."""
    if any(isinstance(row, OutboxPost) for row in session.new):
        session.info[OUTBOX_WRITTEN] = True


OutboxListener = Callable[[], None]
T = TypeVar("T")


@dataclass
class Work:
    """One transaction on a Core connection (``Database.connection_transaction``).

    On SQLite (``driver`` set) the transaction is the driver's own: begun with the first
    step's hop, committed in a step's hop, with no begin or commit through SQLAlchemy's
    async layer (each of those is a greenlet switch and pool bookkeeping: measured, about
    as much CPU in the event loop as the move's statements in the database's thread)."""

    connection: AsyncConnection
    driver: SqliteThread | None = None
    joined: AsyncSession | None = None
    # Set once a step finished the transaction (``run``): nothing may follow.
    finished: bool = False

    async def run(self, step: Callable[[Connection], tuple[T, bool]]) -> T:
        """``step`` on a SYNC Core connection in this transaction, so one function of
        Core statements serves both backends: on SQLite in ONE call of the driver
        (``SqliteThread.run_core``: the held-back BEGIN IMMEDIATE, every statement of the
        step; inline on the lane's connection), on PostgreSQL through
        ``AsyncConnection.run_sync`` (no thread).

        The step answers its result and whether the transaction has nothing more to do
        (the caller's decision). Then this unit of work commits it, on SQLite in the same
        call (none of its own for the COMMIT), on PostgreSQL when the block ends (one
        round trip either way); after it, the transaction takes no further work."""
        self._check_open()
        if self.driver is not None:
            try:
                result, self.finished = await self.driver.run_core(step)
            except sqlite3.Error as error:
                # the step's statements raise SQLAlchemy's errors already; the BEGIN and
                # the COMMIT around them are sqlite3's own calls: wrapped the same way
                raise DBAPIError.instance(None, None, error, sqlite3.Error) from error
            return result
        result, self.finished = await self.connection.run_sync(step)
        return result

    def session(self) -> AsyncSession:
        """An ORM session in this transaction (made at first use). On PostgreSQL inside a
        SAVEPOINT of the connection's transaction; on SQLite the session's begin joins the
        driver's transaction already open (``SqliteThread.hold_begin``). Either way the
        transaction is committed or rolled back by ``connection_transaction``."""
        self._check_open()
        if self.joined is None:
            self.joined = AsyncSession(
                bind=self.connection,
                expire_on_commit=False,
                join_transaction_mode="create_savepoint",
            )
        return self.joined

    def _check_open(self) -> None:
        if self.finished:
            raise RuntimeError("this transaction was finished by a step (Work.run)")


@dataclass
class Database:
    """The engine plus a sessionmaker; services open one transaction per public method.

    The unit of work tells whoever listens (the bot's poster) that outbox posts are waiting,
    after the transaction that wrote them has committed: no call site has to remember it.
    """

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    outbox_listeners: list[OutboxListener] = field(default_factory=list)
    # SQLite: the moves' connection and the lock of every transaction (bot/db/sqlite_lane.py)
    lane: SqliteLane | None = None

    def on_outbox_written(self, listener: OutboxListener) -> Callable[[], None]:
        """Call ``listener`` after every commit that wrote an outbox post; returns the
        function that stops it."""
        self.outbox_listeners.append(listener)

        def stop() -> None:
            if listener in self.outbox_listeners:
                self.outbox_listeners.remove(listener)

        return stop

    def _outbox_written(self) -> None:
        for listener in list(self.outbox_listeners):
            try:
                listener()
            except Exception:
                # The post is committed: the poster's next poll finds it anyway.
                log.exception("An outbox listener failed")

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        async with (
            self._writers(),
            _unavailable_when_unreachable(),
            self.sessionmaker.begin() as session,
        ):
            yield session
        # Here only after the commit succeeded (a rollback raised above).
        if session.info.pop(OUTBOX_WRITTEN, False):
            self._outbox_written()

    @asynccontextmanager
    async def connection_transaction(self) -> AsyncIterator[Work]:
        """A transaction on a Core connection, for a use case that mostly runs Core
        statements (a move): no ORM session unless the work asks for one
        (``Work.session``, joined to the same transaction, e.g. to close the round the move
        completed). Committed when the block ends; the poster is woken as by
        ``transaction``; errors as ``transaction``'s."""
        if self.lane is not None:
            async with self.lane.lock, self._lane_transaction(self.lane) as work:
                yield work
        else:
            async with _unavailable_when_unreachable(), self.engine.begin() as conn:
                work = Work(conn)
                try:
                    yield work
                    if work.joined is not None:  # releases its savepoint: the outer one commits
                        await work.joined.commit()
                finally:
                    if work.joined is not None:
                        await work.joined.close()  # the connection's transaction stays ours
        if work.joined is not None and work.joined.info.pop(OUTBOX_WRITTEN, False):
            self._outbox_written()

    @asynccontextmanager
    async def _lane_transaction(self, lane: SqliteLane) -> AsyncIterator[Work]:
        """SQLite's: the driver's own transaction on the lane's connection (see ``Work``):
        the BEGIN IMMEDIATE rides with the first hop, a step commits in its hop, a joined
        session's commit is the driver's COMMIT; anything else rolls back."""
        async with _unavailable_when_unreachable():
            conn, driver = await lane.connection()
            driver.hold_begin(BEGIN)
            work = Work(conn, driver)
            try:
                yield work
                if work.joined is not None:
                    await work.joined.commit()
                elif not work.finished:
                    await driver.commit()
            except BaseException:
                await driver.rollback()
                raise
            finally:
                if work.joined is not None:
                    await work.joined.close()

    def _writers(self) -> Any:
        """The lane's lock on SQLite (one writer at a time in the process), else nothing."""
        return self.lane.lock if self.lane is not None else nullcontext()

    async def dispose(self) -> None:
        if self.lane is not None:
            await self.lane.dispose()
        await self.engine.dispose()


@asynccontextmanager
async def _unavailable_when_unreachable() -> AsyncIterator[None]:
    """Errors of a database that cannot be reached (or is locked past the busy timeout)
    become DatabaseUnavailable; any other error passes through."""
    try:
        yield
    except (OperationalError, InterfaceError, PoolTimeout, ConnectionError, OSError) as exc:
        # PoolTimeout: no connection free in time (e.g. all waiting on a locked file).
        raise DatabaseUnavailable(str(exc)) from exc
    except DBAPIError as exc:
        if exc.connection_invalidated:
            raise DatabaseUnavailable(str(exc)) from exc
        raise


def make_database(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = 10,
    connect_args: Mapping[str, Any] | None = None,
    poolclass: type[Pool] | None = None,
) -> Database:
    engine = make_engine(
        url, echo=echo, pool_size=pool_size, connect_args=connect_args, poolclass=poolclass
    )
    lane = None
    if is_sqlite(url):
        lane = SqliteLane(make_engine(url, echo=echo, connect_args=connect_args))
    return Database(engine, async_sessionmaker(engine, expire_on_commit=False), lane=lane)
