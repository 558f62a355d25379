"""The SQLite engine runs on duelbot's own connection (bot/db/sqlite_thread.py: one worker
thread, one sqlite3 connection), plugged in through SQLAlchemy's public ``async_creator``:
each statement is ONE hop into the thread (the lane's connection runs inline instead), a
transaction's BEGIN IMMEDIATE rides with its first statement, ``Work.run`` runs a whole step
in one call, and it still behaves as
SQLAlchemy's adapter expects: rows, row counts, RETURNING, executemany, errors,
transactions, the write lock."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import engine
from bot.db.engine import Database, DatabaseUnavailable, make_database
from bot.db.sqlite_thread import SqliteThread


async def driver_of(session: AsyncSession) -> SqliteThread:
    raw = await (await session.connection()).get_raw_connection()
    driver = raw.driver_connection
    assert isinstance(driver, SqliteThread)  # not aiosqlite's
    return driver


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    made = make_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    async with made.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
    yield made
    await made.dispose()


async def test_one_hop_per_statement(db: Database) -> None:
    async with db.transaction() as session:
        driver = await driver_of(session)
        before = driver.hops
        new_id = (
            await session.execute(text("INSERT INTO t (v) VALUES ('a') RETURNING id"))
        ).scalar_one()
        # BEGIN IMMEDIATE and the INSERT in one call (SQLAlchemy's aiosqlite adapter: 7)
        assert driver.hops - before == 1
        await session.execute(text("INSERT INTO t (v) VALUES (:v)"), [{"v": "b"}, {"v": "c"}])
        updated = await session.execute(text("UPDATE t SET v = v || '!' WHERE v != 'a'"))
        assert updated.rowcount == 2  # type: ignore[attr-defined]
        rows = (await session.execute(text("SELECT id, v FROM t ORDER BY id"))).all()
        assert driver.hops - before == 4
    assert [tuple(r) for r in rows] == [(new_id, "a"), (new_id + 1, "b!"), (new_id + 2, "c!")]
    with pytest.raises(IntegrityError):
        async with db.transaction() as session:
            await session.execute(text("INSERT INTO t (v) VALUES ('z')"))
            await session.execute(text("INSERT INTO t (v) VALUES ('a')"))
    before = driver.hops
    async with db.engine.begin():  # a transaction without statements: no hop at all
        pass
    assert driver.hops == before
    async with db.transaction() as session:  # the failed transaction left nothing
        count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
    assert count == 3


def add(conn: Connection, value: str, *, finish: bool = False) -> tuple[int, bool]:
    """A step: insert ``value``, answer the row count and whether that ends the
    transaction."""
    conn.execute(text("INSERT INTO t (v) VALUES (:v)"), {"v": value})
    return int(conn.execute(text("SELECT count(*) FROM t")).scalar_one()), finish


async def test_a_step_is_one_hop_and_commits_only_when_asked(db: Database) -> None:
    assert db.lane is not None
    async with db.lane.lock:
        _, driver = await db.lane.connection()  # the moves' connection (bot/db/sqlite_lane.py)
    before, hops = driver.inline_runs, driver.hops
    async with db.connection_transaction() as work:
        # BEGIN IMMEDIATE, two statements and the COMMIT: one run, in the caller's thread
        # (no hop); the block's end then has nothing left to do
        assert await work.run(lambda conn: add(conn, "a", finish=True)) == 1
        assert work.finished
        with pytest.raises(RuntimeError):
            work.session()  # the transaction is over: nothing may join it
    assert driver.inline_runs - before == 1 and driver.hops == hops
    async with db.connection_transaction() as work:  # not finished: the block commits
        assert await work.run(lambda conn: add(conn, "b")) == 2
        assert not work.finished
        await work.session().execute(text("INSERT INTO t (v) VALUES ('c')"))
    async with db.transaction() as session:
        values = (await session.execute(text("SELECT v FROM t ORDER BY v"))).scalars().all()
    assert values == ["a", "b", "c"]
    with pytest.raises(IntegrityError):  # a failing step rolls the whole transaction back
        async with db.connection_transaction() as work:
            await work.run(lambda conn: add(conn, "d"))
            await work.run(lambda conn: add(conn, "a"))
    async with db.transaction() as session:
        count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
    assert count == 3


async def test_a_locked_file_fails_the_step_as_a_statement_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The held-back BEGIN IMMEDIATE is sqlite3's own call in the step's hop: a file locked
    by another process fails it (busy timeout) as a failing statement does (SQLAlchemy's
    OperationalError: the database is unavailable), and the next transaction begins."""
    monkeypatch.setattr(engine, "SQLITE_BUSY_TIMEOUT", 0.2)
    path = tmp_path / "x.db"
    db = make_database(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(DatabaseUnavailable, match="locked") as failed:
            async with db.connection_transaction() as work:
                await work.run(lambda conn: add(conn, "a", finish=True))
        assert isinstance(failed.value.__cause__, OperationalError)
        other.execute("ROLLBACK")
        other.close()
        async with db.connection_transaction() as work:
            assert await work.run(lambda conn: add(conn, "a", finish=True)) == 1
    finally:
        await db.dispose()


async def test_the_connection_lives_in_one_thread_until_disposed(tmp_path: Path) -> None:
    before = {t.ident for t in threading.enumerate()}
    db = make_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    async with db.transaction() as session:
        driver = await driver_of(session)
        names = await driver.run(lambda conn: conn.execute("PRAGMA journal_mode").fetchone())
        assert names == ("wal",)
        mode = await driver.run(lambda conn: conn.execute("PRAGMA synchronous").fetchone())
        assert mode == (2,)  # FULL: an acknowledged move survives a power cut
    workers = [t for t in threading.enumerate() if t.ident not in before]
    assert [t.name for t in workers] == ["duelbot-sqlite"]
    await db.dispose()
    workers[0].join(timeout=5)
    assert not workers[0].is_alive()
    with pytest.raises(ValueError, match="closed"):
        await driver.run(lambda conn: conn.execute("SELECT 1"))


async def test_the_lane_runs_a_step_in_the_callers_thread_the_pool_in_its_own(
    db: Database,
) -> None:
    """The moves' connection runs inline (``runs_inline``: no hop to a thread, issue 27);
    the ORM pool's connection hops to its worker thread. Both commit for real."""
    here = threading.get_ident()

    def where(conn: Connection) -> tuple[int, bool]:
        conn.execute(text("INSERT INTO t (v) VALUES ('lane')"))
        return threading.get_ident(), True

    async with db.connection_transaction() as work:
        assert await work.run(where) == here
    async with db.transaction() as session:
        driver = await driver_of(session)
        assert not driver.runs_inline
        pool_thread = await driver.run(lambda _conn: threading.get_ident())
        count = (await session.execute(text("SELECT count(*) FROM t WHERE v = 'lane'"))).scalar()
    assert pool_thread != here and count == 1
    assert db.lane is not None
    async with db.lane.lock:
        _, lane_driver = await db.lane.connection()
    assert lane_driver.runs_inline and not lane_driver.in_transaction



async def test_the_lane_waits_for_another_process_lock_in_its_thread_not_the_loop(
    tmp_path: Path,
) -> None:
    """A write lock held elsewhere (a second shard's process on the same file): the lane's
    inline BEGIN finds it taken at once, and the transaction's first call waits in the
    worker thread, with the busy timeout, while the event loop goes on."""
    path = tmp_path / "x.db"
    db = make_database(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
        assert db.lane is not None
        async with db.lane.lock:
            _, driver = await db.lane.connection()
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")

        async def move() -> int:
            async with db.connection_transaction() as work:
                return await work.run(lambda conn: add(conn, "a", finish=True))

        hops = driver.hops
        task = asyncio.create_task(move())
        ticks = 0
        for _ in range(20):  # the loop runs while the move waits for the lock
            await asyncio.sleep(0.005)
            ticks += 1
        assert not task.done() and ticks == 20
        other.execute("ROLLBACK")
        other.close()
        assert await task == 1
        assert driver.hops - hops == 1  # that one transaction hopped; the next runs inline
        inline = driver.inline_runs
        async with db.connection_transaction() as work:
            assert await work.run(lambda conn: add(conn, "b", finish=True)) == 2
        assert driver.inline_runs - inline == 1 and driver.hops - hops == 1
    finally:
        await db.dispose()
