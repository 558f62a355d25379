"""Alembic environment for duelbot (async engines: aiosqlite, asyncpg).

Where the database is, first match wins:
  1. ``config.attributes["connection"]``: a sync ``Connection`` to run on (connection sharing,
     e.g. from ``AsyncConnection.run_sync``); the caller owns its transaction;
  2. ``config.attributes["url"]`` (bot.db.migrate sets it), or ``alembic -x url=...``;
  3. ``sqlalchemy.url`` in the alembic config;
  4. duelbot's own configuration (``bot.config.load_settings()``: config.toml and
     ``DUELBOT_DATABASE_URL``).
A PostgreSQL schema other than the default comes from ``config.attributes["schema"]``,
``-x schema=...`` or a ``?search_path=`` query in the URL: the connection's search_path is set
to it and the alembic_version table lives in it.

SQLite: migrations run with foreign keys OFF (batch mode recreates tables, and dropping a
parent table with foreign keys ON would cascade into its children), inside one
``BEGIN IMMEDIATE`` transaction (so two processes starting at once migrate one after the
other), and ``PRAGMA foreign_key_check`` must come back empty before the commit.
PostgreSQL: one transaction, under an advisory lock per schema.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import zlib
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool
from sqlalchemy.types import TypeDecorator, TypeEngine

from bot.db.engine import is_sqlite, split_search_path
from bot.db.models import Base

config = context.config
target_metadata = Base.metadata
VERSION_TABLE = "alembic_version"

if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _x_args() -> dict[str, str]:
    return context.get_x_argument(as_dictionary=True)


def _database_url() -> str:
    url = config.attributes.get("url") or _x_args().get("url")
    url = url or config.get_main_option("sqlalchemy.url")
    if not url:
        from bot.config import load_settings

        url = load_settings().database.url
    return str(url)


def _schema(url: str) -> tuple[str, str | None]:
    """The URL without any ``search_path`` query, and the schema to migrate (or None)."""
    url, from_url = split_search_path(url)
    schema = config.attributes.get("schema") or _x_args().get("schema") or from_url
    if schema is not None:
        schema = schema.split(",")[0].strip()
    return url, schema or None


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | bool:
    """Render our TypeDecorators (UTCDateTime) as their plain SQLAlchemy implementation type.

    Migrations must not import bot.db.models: a later model change would rewrite history.
    """
    if type_ == "type" and isinstance(obj, TypeDecorator):
        impl = obj.impl if isinstance(obj.impl, TypeEngine) else obj.impl_instance
        return f"sa.{impl!r}"
    return False


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    return not (type_ == "table" and name == VERSION_TABLE)


def _configure(connection: Connection | None, schema: str | None, **extra: Any) -> None:
    opts: dict[str, Any] = {
        "target_metadata": target_metadata,
        "render_as_batch": True,
        "compare_type": True,  # compiled DDL: UTCDateTime compares as its impl
        "compare_server_default": True,
        "render_item": render_item,
        "include_name": include_name,
        "version_table": VERSION_TABLE,
    }
    if schema is not None:
        opts["version_table_schema"] = schema
    if connection is not None and connection.dialect.name == "sqlite":
        # We own the transactions (see _sqlite_engine), so SQLite's DDL is transactional.
        opts["transactional_ddl"] = True
    opts.update(extra)
    context.configure(connection=connection, **opts)


def run_migrations_offline() -> None:
    url, schema = _schema(_database_url())
    _configure(None, schema, url=url, literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection, schema: str | None = None) -> None:
    _configure(connection, schema)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            if schema is not None:
                found = connection.execute(
                    text("SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": schema}
                ).first()
                if found is None:
                    raise RuntimeError(
                        f"PostgreSQL schema {schema!r} does not exist; create it first "
                        f"(CREATE SCHEMA {schema})."
                    )
            key = zlib.crc32(f"duelbot-migrations:{schema or ''}".encode()) - 2**31
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})
        context.run_migrations()
        if connection.dialect.name == "sqlite":
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"migration left broken foreign keys: {broken[:10]}")


def _sqlite_engine(url: str) -> AsyncEngine:
    engine = create_async_engine(url, poolclass=NullPool, connect_args={"timeout": 30})

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=OFF")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


async def run_async_migrations() -> None:
    url, schema = _schema(_database_url())
    if is_sqlite(url):
        engine = _sqlite_engine(url)
    else:
        connect_args: dict[str, Any] = {}
        if schema is not None:
            connect_args["server_settings"] = {"search_path": schema}
        engine = create_async_engine(url, poolclass=NullPool, connect_args=connect_args)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations, schema)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _, schema = _schema(str(connection.engine.url))
        do_run_migrations(connection, schema)
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(run_async_migrations())
        return
    # Called synchronously from inside a running event loop: asyncio.run() would refuse, so
    # run our own loop in a worker thread (this blocks the calling loop until done; async
    # callers should use ``await bot.db.migrate.upgrade(...)`` instead).
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="alembic") as pool:
        pool.submit(asyncio.run, run_async_migrations()).result()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
