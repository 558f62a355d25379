"""Apply alembic migrations from code: ``duelbot db upgrade`` and the bot's start.

The alembic configuration is built here, not read from alembic.ini, so this works from any
working directory and from an installed package. The migrations directory is found at, first
match wins: $DUELBOT_MIGRATIONS_DIR; ``migrations/`` next to the ``bot`` package (a source
checkout or an editable install); ``migrations/`` in the working directory and in
``sys.prefix`` (data files); ``/app/migrations`` (the Docker image).

alembic's command API is synchronous and our env.py runs its own event loop, so the async
functions here run alembic in a worker thread: they are safe to await from a running loop
(the bot's), and they do not block it.

alembic keeps its migration context in a module global, so two alembic commands must not
run at the same time in one process: ``_ALEMBIC_LOCK`` serialises them here. Between
processes, env.py serialises on the database (BEGIN IMMEDIATE on SQLite, an advisory lock on
PostgreSQL), so concurrent upgrades apply each migration once.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path
from typing import Protocol

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from bot.db.engine import make_engine

__all__ = [
    "MigrationsNotFound",
    "alembic_config",
    "current_revision",
    "downgrade",
    "downgrade_sync",
    "head_revision",
    "migrations_dir",
    "upgrade",
    "upgrade_sync",
]


_ALEMBIC_LOCK = threading.Lock()


class MigrationsNotFound(RuntimeError):
    """The alembic migrations directory is nowhere to be found."""


class _HasDatabaseUrl(Protocol):
    @property
    def url(self) -> str: ...


class _HasDatabase(Protocol):
    @property
    def database(self) -> _HasDatabaseUrl: ...


Target = str | _HasDatabase | _HasDatabaseUrl
"""A database URL, a ``bot.config.Settings`` or a ``bot.config.DatabaseSettings``."""


def database_url(target: Target) -> str:
    if isinstance(target, str):
        return target
    database = getattr(target, "database", None)
    if database is not None:
        return str(database.url)
    url = getattr(target, "url", None)
    if isinstance(url, str):
        return url
    raise TypeError(f"expected a database URL or Settings, not {type(target).__name__}")


def _candidates() -> list[Path]:
    found: list[Path] = []
    env = os.environ.get("DUELBOT_MIGRATIONS_DIR")
    if env:
        found.append(Path(env))
    package_root = Path(__file__).resolve().parents[2]  # .../bot/db/migrate.py -> repo root
    found += [
        package_root / "migrations",
        Path.cwd() / "migrations",
        Path(sys.prefix) / "share" / "duelbot" / "migrations",
        Path("/app/migrations"),
    ]
    return found


def migrations_dir() -> Path:
    """The directory holding env.py and versions/ (see the module docstring for the order)."""
    candidates = _candidates()
    for path in candidates:
        if (path / "env.py").is_file() and (path / "versions").is_dir():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise MigrationsNotFound(
        f"duelbot's migrations directory was not found (tried {tried}); "
        "set DUELBOT_MIGRATIONS_DIR to the migrations/ directory of the duelbot source."
    )


def alembic_config(
    url: str | None = None, *, schema: str | None = None, connection: Connection | None = None
) -> Config:
    """An alembic ``Config`` for duelbot's migrations, pointed at ``url`` (and ``schema``).

    Without a URL env.py falls back to duelbot's configuration. ``connection`` (a sync
    connection, e.g. inside ``AsyncConnection.run_sync``) makes alembic run on it, in the
    caller's transaction.
    """
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("path_separator", "os")
    if url is not None:
        # attributes, not set_main_option: the ini parser would treat "%" in a password.
        config.attributes["url"] = url
    if schema is not None:
        config.attributes["schema"] = schema
    if connection is not None:
        config.attributes["connection"] = connection
    config.attributes["configure_logger"] = False
    return config


def upgrade_sync(target: Target, revision: str = "head", *, schema: str | None = None) -> None:
    """Upgrade to ``revision``. Blocks; from async code use ``await upgrade(...)``."""
    config = alembic_config(database_url(target), schema=schema)
    with _ALEMBIC_LOCK:
        command.upgrade(config, revision)


def downgrade_sync(target: Target, revision: str, *, schema: str | None = None) -> None:
    """Downgrade to ``revision`` (``"base"`` drops every table). Blocks."""
    config = alembic_config(database_url(target), schema=schema)
    with _ALEMBIC_LOCK:
        command.downgrade(config, revision)


async def upgrade(target: Target, revision: str = "head", *, schema: str | None = None) -> None:
    """Upgrade the database of ``target`` (a URL or Settings) to ``revision``."""
    await asyncio.to_thread(upgrade_sync, target, revision, schema=schema)


async def downgrade(target: Target, revision: str, *, schema: str | None = None) -> None:
    """Downgrade the database of ``target`` (a URL or Settings) to ``revision``."""
    await asyncio.to_thread(downgrade_sync, target, revision, schema=schema)


def head_revision() -> str | None:
    """The head revision of the migration scripts."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


async def current_revision(target: Target) -> str | None:
    """The revision the database is at, or None if it was never migrated."""
    engine = make_engine(database_url(target))
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision()
            )
    finally:
        await engine.dispose()
