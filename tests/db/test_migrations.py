"""Migrations and models agree, on SQLite and PostgreSQL, and the migration API behaves."""

from __future__ import annotations

import asyncio
import io
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, select, text

from bot.config import DatabaseSettings, Settings
from bot.db import migrate
from bot.db.engine import Database, make_database
from bot.db.models import Base, GuildSettings
from tests.db.support import backend_of, schema_of

EXPECTED_TABLES = {
    "guild_settings",
    "duellist_profiles",
    "duels",
    "rounds",
    "submissions",
    "outbox",
    "channel_webhooks",
    "member_languages",
    "audit_log",
    "ladders",
    "ladder_ratings",
    "ladder_entries",
}


def _diffs(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(
        conn, opts={"compare_type": True, "compare_server_default": True}
    )
    return list(compare_metadata(context, Base.metadata))


def _table_names(conn: Connection) -> set[str]:
    return set(inspect(conn).get_table_names())


async def _run(url: str, fn: Any) -> Any:
    db = make_database(url)
    try:
        async with db.engine.connect() as conn:
            return await conn.run_sync(fn)
    finally:
        await db.dispose()


async def test_models_and_migrations_agree(db_url: str) -> None:
    await migrate.upgrade(db_url)

    assert await _run(db_url, _diffs) == []
    tables = await _run(db_url, _table_names)
    assert tables == EXPECTED_TABLES | {"alembic_version"}
    # The same check through env.py's own autogenerate configuration (render, filters).
    await asyncio.to_thread(command.check, migrate.alembic_config(db_url))


@pytest.mark.parametrize("db_backend", [pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_postgres_migrates_into_its_own_schema_only(db_url: str) -> None:
    assert backend_of(db_url) == "postgresql"
    schema = schema_of(db_url)
    await migrate.upgrade(db_url)

    def where(conn: Connection) -> tuple[str, set[str]]:
        current = conn.execute(text("SELECT current_schema()")).scalar_one()
        rows = conn.execute(
            text("SELECT table_name FROM information_schema.tables WHERE table_schema = :s"),
            {"s": schema},
        )
        return current, {r[0] for r in rows}

    current, tables = await _run(db_url, where)
    assert current == schema
    assert tables == EXPECTED_TABLES | {"alembic_version"}


async def test_upgrade_then_downgrade_to_base_and_back(db_url: str) -> None:
    await migrate.upgrade(db_url)
    assert await migrate.current_revision(db_url) == migrate.head_revision()

    await migrate.downgrade(db_url, "base")
    assert await _run(db_url, _table_names) <= {"alembic_version"}
    assert await migrate.current_revision(db_url) is None

    await migrate.upgrade(db_url)
    assert await _run(db_url, _diffs) == []


async def test_upgrade_from_a_running_loop_with_settings_and_twice(db_url: str) -> None:
    settings = Settings(database=DatabaseSettings(url=db_url))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    try:
        await migrate.upgrade(settings)  # a Settings object, as `duelbot db upgrade` passes
    finally:
        task.cancel()
    assert ticks > 1, "upgrade blocked the event loop"
    await migrate.upgrade(db_url)  # already at head: a no-op
    # Even the blocking variant works when called (wrongly) from inside a running loop.
    migrate.upgrade_sync(db_url)
    assert await migrate.current_revision(db_url) == migrate.head_revision()


async def test_concurrent_upgrades_apply_once(db_url: str) -> None:
    # In one process (serialised by bot.db.migrate) and from two more processes at once (the
    # database serialises them: BEGIN IMMEDIATE on SQLite, an advisory lock on PostgreSQL).
    code = "import sys; from bot.db.migrate import upgrade_sync; upgrade_sync(sys.argv[1])"
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, db_url, stderr=asyncio.subprocess.PIPE
        )
        for _ in range(2)
    ]
    await asyncio.gather(*(migrate.upgrade(db_url) for _ in range(3)))
    for proc in procs:
        _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        assert proc.returncode == 0, err.decode()

    def versions(conn: Connection) -> list[str]:
        return [r[0] for r in conn.execute(text("SELECT version_num FROM alembic_version"))]

    assert await _run(db_url, versions) == [migrate.head_revision()]


@pytest.mark.parametrize("db_backend", ["sqlite"])
async def test_sqlite_runs_in_wal_mode_with_foreign_keys(database: Database) -> None:
    async with database.engine.connect() as conn:
        journal = (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one()
        foreign_keys = (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar_one()
    assert journal == "wal"
    assert foreign_keys == 1


async def test_migrated_database_round_trips_utc_datetimes(database: Database) -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone(timedelta(hours=2)))
    async with database.transaction() as session:
        session.add(
            GuildSettings(
                guild_id=2**62 + 1,  # a snowflake needs BIGINT
                change_of_choice=True,
                missing_move="none",
                house_rule_defaults={},
                updated_at=moment,
            )
        )
    async with database.transaction() as session:
        row = (await session.execute(select(GuildSettings))).scalar_one()
    assert row.guild_id == 2**62 + 1
    assert row.updated_at == moment
    assert row.updated_at.tzinfo == UTC


def test_offline_sql_and_any_working_directory(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # migrations are found relative to the package, not the cwd
    config = migrate.alembic_config(db_url)
    out = io.StringIO()
    config.output_buffer = out
    command.upgrade(config, "head", sql=True)
    sql = out.getvalue()
    for table in EXPECTED_TABLES:
        assert f"CREATE TABLE {table}" in sql
    assert "CREATE INDEX ix_duels_guild_status" in sql
