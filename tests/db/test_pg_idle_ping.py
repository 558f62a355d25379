"""PostgreSQL: a pooled connection idle past IDLE_PING_SECONDS is pinged at check-out and
replaced when the server dropped it (a restart while the bot was quiet), so the next
transaction works; one in steady use is not pinged (no extra round trip per move)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from bot.db import engine
from bot.db.engine import make_database


@pytest.mark.parametrize("db_backend", ["postgres"])
async def test_an_idle_connection_dropped_by_the_server_is_replaced(
    migrated_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = make_database(migrated_db_url, pool_size=1)
    admin = make_database(migrated_db_url, pool_size=1)
    pings: list[object] = []
    real_ping = db.engine.dialect.do_ping
    monkeypatch.setattr(db.engine.dialect, "do_ping", lambda c: pings.append(c) or real_ping(c))
    try:
        async with db.transaction() as session:
            first = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        async with db.transaction() as session:  # in steady use: no ping
            again = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert again == first and not pings
        async with admin.transaction() as session:  # the server drops the idle connection
            await session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        monkeypatch.setattr(engine, "IDLE_PING_SECONDS", 0.0)
        async with db.transaction() as session:
            replaced = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert replaced != first and pings
    finally:
        await db.dispose()
        await admin.dispose()
