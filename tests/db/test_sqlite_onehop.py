"""The SQLite engine runs each statement in ONE aiosqlite worker-thread call
(bot/db/sqlite_onehop.py) and still behaves as SQLAlchemy's adapter does: rows, row counts,
RETURNING, executemany, errors, transactions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from bot.db.engine import make_database


async def test_one_hop_per_statement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = make_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        async with db.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
        hops = 0
        real = aiosqlite.Connection._execute

        async def counting(self: aiosqlite.Connection, fn: Any, *args: Any, **kw: Any) -> Any:
            nonlocal hops
            hops += 1
            return await real(self, fn, *args, **kw)

        monkeypatch.setattr(aiosqlite.Connection, "_execute", counting)
        async with db.transaction() as session:
            before = hops
            new_id = (
                await session.execute(text("INSERT INTO t (v) VALUES ('a') RETURNING id"))
            ).scalar_one()
            # BEGIN IMMEDIATE and the INSERT in one call (SQLAlchemy's adapter: 3 + 4)
            assert hops - before == 1
            await session.execute(text("INSERT INTO t (v) VALUES (:v)"), [{"v": "b"}, {"v": "c"}])
            updated = await session.execute(text("UPDATE t SET v = v || '!' WHERE v != 'a'"))
            assert updated.rowcount == 2  # type: ignore[attr-defined]
            rows = (await session.execute(text("SELECT id, v FROM t ORDER BY id"))).all()
        assert [tuple(r) for r in rows] == [(new_id, "a"), (new_id + 1, "b!"), (new_id + 2, "c!")]
        with pytest.raises(IntegrityError):
            async with db.transaction() as session:
                await session.execute(text("INSERT INTO t (v) VALUES ('z')"))
                await session.execute(text("INSERT INTO t (v) VALUES ('a')"))
        before = hops
        async with db.engine.begin():  # a transaction without statements: no hop at all
            pass
        assert hops == before
        async with db.transaction() as session:  # the failed transaction left nothing
            count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
        assert count == 3
    finally:
        await db.dispose()
