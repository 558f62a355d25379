"""SQLite's lane (bot/db/sqlite_lane.py): moves run on a connection of their own, kept
checked out; the lane's lock serialises them with the ORM transactions on the pool's
connection, so the two connections never wait on each other inside SQLite (a busy wait
there would fail at once with the short busy timeout set here); a lane whose connection
died opens a new one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from bot.db import engine
from bot.db.engine import make_database


def add(conn: Connection, value: str) -> tuple[int, bool]:
    conn.execute(text("INSERT INTO t (v) VALUES (:v)"), {"v": value})
    return int(conn.execute(text("SELECT count(*) FROM t")).scalar_one()), True


async def test_moves_and_orm_transactions_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "SQLITE_BUSY_TIMEOUT", 0.0)
    db = make_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        async with db.transaction() as session:
            await session.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))

        async def move(k: int) -> None:
            async with db.connection_transaction() as work:
                await work.run(lambda conn: add(conn, f"move {k}"))

        async def orm(k: int) -> None:
            async with db.transaction() as session:
                await session.execute(text("INSERT INTO t (v) VALUES (:v)"), {"v": f"orm {k}"})
                await asyncio.sleep(0)  # hold the transaction open across a loop turn
                await session.execute(text("SELECT count(*) FROM t"))

        await asyncio.gather(*(f(k) for k in range(30) for f in (move, orm)))
        async with db.transaction() as session:
            count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
        assert count == 60
        assert db.lane is not None
        async with db.lane.lock:
            _, driver = await db.lane.connection()
        await driver.close()  # the lane's connection dies
        await move(99)
        async with db.lane.lock:
            _, again = await db.lane.connection()
        assert again is not driver and again.is_open
    finally:
        await db.dispose()
