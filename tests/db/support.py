"""Helpers for database tests (the fixtures themselves live in tests/conftest.py).

A test database is named by one URL string:
  * SQLite: ``sqlite+aiosqlite:////tmp/.../duelbot.db``;
  * PostgreSQL: ``postgresql+asyncpg://postgres@127.0.0.1:5432/test?search_path=t_1a2b3c``:
    bot.db.engine lifts ``search_path`` into asyncpg's server settings, so the same string
    works for ``make_database``, ``bot.db.migrate`` and a subprocess's DUELBOT_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import secrets
from collections.abc import Coroutine
from typing import Any, TypeVar

import asyncpg
from sqlalchemy import make_url

from bot.db import migrate
from bot.db.engine import Database, make_database, split_search_path

T = TypeVar("T")

DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def postgres_base_url() -> str:
    """The server the PostgreSQL tests use ($DUELBOT_TEST_POSTGRES_URL overrides)."""
    return os.environ.get("DUELBOT_TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL


def postgres_required() -> bool:
    return os.environ.get("DUELBOT_REQUIRE_POSTGRES", "").strip().lower() in {"1", "true", "yes"}


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh loop in a worker thread (safe inside a loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def asyncpg_dsn(url: str) -> str:
    """A plain ``postgresql://`` DSN for asyncpg from a SQLAlchemy URL (search_path dropped)."""
    url, _ = split_search_path(url)
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def with_schema(url: str, schema: str) -> str:
    """``url`` pointed at PostgreSQL schema ``schema`` (via the ``search_path`` query)."""
    url, _ = split_search_path(url)
    return (
        make_url(url)
        .update_query_dict({"search_path": schema})
        .render_as_string(hide_password=False)
    )


def schema_of(url: str) -> str | None:
    return split_search_path(url)[1]


def backend_of(url: str) -> str:
    """``"sqlite"`` or ``"postgresql"``."""
    return make_url(url).get_backend_name()


async def postgres_ping(url: str, timeout: float = 3.0) -> None:
    """Raise if the server at ``url`` cannot be reached."""
    conn = await asyncpg.connect(asyncpg_dsn(url), timeout=timeout)
    await conn.close()


async def create_schema(base_url: str, prefix: str = "t_") -> str:
    """Create a fresh, randomly named schema; return its name."""
    schema = f"{prefix}{secrets.token_hex(6)}"
    conn = await asyncpg.connect(asyncpg_dsn(base_url), timeout=10)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await conn.close()
    return schema


async def drop_schema(base_url: str, schema: str) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(base_url), timeout=10)
    try:
        # Do not hang the suite on a connection a test forgot to close.
        await conn.execute("SET lock_timeout = '10s'")
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def make_test_database(url: str, schema: str | None = None, **kwargs: Any) -> Database:
    """A ``Database`` on ``url`` (and PostgreSQL ``schema``, if not already in the URL).

    ``kwargs`` go to ``bot.db.engine.make_database`` (``pool_size``, ``connect_args``,
    ``poolclass``, ``echo``). Dispose it yourself, or use the ``make_db`` fixture.
    """
    if schema is not None:
        url = with_schema(url, schema)
    return make_database(url, **kwargs)


async def migrated_database(url: str, schema: str | None = None, **kwargs: Any) -> Database:
    """Upgrade ``url`` (and ``schema``) to head through alembic; a Database on it.

    The caller disposes it. The schema must exist (``create_schema``).
    """
    if schema is not None:
        url = with_schema(url, schema)
    await migrate.upgrade(url)
    return make_database(url, **kwargs)
