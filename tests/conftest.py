"""Shared fixtures: a database on each backend, migrated through alembic; ``--run-slow``.

Database fixtures (every one parametrised over ``sqlite`` and ``postgres``):

* ``db_url`` -> str: a fresh, EMPTY database. SQLite: a new file under tmp_path.
  PostgreSQL: a new schema ``t_<random>`` on $DUELBOT_TEST_POSTGRES_URL (default
  postgresql+asyncpg://postgres@127.0.0.1:5432/test), the URL carrying
  ``?search_path=<schema>``; the schema is dropped (CASCADE) afterwards.
* ``migrated_db_url`` -> str: the same, upgraded to head by alembic (sync fixture: usable
  by sync tests, e.g. to run the CLI in a subprocess with DUELBOT_DATABASE_URL).
* ``database`` -> bot.db.engine.Database on ``migrated_db_url``, disposed afterwards.
* ``make_db`` -> ``make_db(**make_database_kwargs) -> Database``: more Databases on the same
  database (a "second process"), all disposed afterwards.

If PostgreSQL is unreachable its tests are skipped (and the summary says so loudly), unless
DUELBOT_REQUIRE_POSTGRES=1 (CI), which turns that into a failure. ``-m "not postgres"``
deselects them.
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.db import migrate
from bot.db.engine import Database
from tests.db.support import (
    create_schema,
    drop_schema,
    make_test_database,
    postgres_base_url,
    postgres_ping,
    postgres_required,
    run_sync,
    with_schema,
)

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]

_postgres_skips = pytest.StashKey[list[str]]()


# --- options and markers ----------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        default=False,
        help="also run tests marked @pytest.mark.slow",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip_slow = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


def pytest_report_header(config: pytest.Config) -> str:
    required = "required" if postgres_required() else "optional"
    return f"duelbot PostgreSQL tests: {postgres_base_url()} ({required})"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    skips = config.stash.get(_postgres_skips, [])
    if skips:
        terminalreporter.write_sep("!", "PostgreSQL tests were SKIPPED", red=True, bold=True)
        terminalreporter.write_line(skips[0])
        terminalreporter.write_line(
            "Start PostgreSQL (or set DUELBOT_TEST_POSTGRES_URL); CI sets "
            "DUELBOT_REQUIRE_POSTGRES=1 so that this fails instead."
        )


# --- servers ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server(request: pytest.FixtureRequest) -> str:
    """The base URL of a reachable PostgreSQL server, or skip (fail if required)."""
    url = postgres_base_url()
    try:
        run_sync(postgres_ping(url))
    except Exception as exc:
        reason = (
            f"PostgreSQL unreachable at {url} ({type(exc).__name__}: {exc}); "
            "PostgreSQL variants of the database tests are NOT being run"
        )
        if postgres_required():
            pytest.fail(f"DUELBOT_REQUIRE_POSTGRES=1 but {reason}", pytrace=False)
        request.config.stash.setdefault(_postgres_skips, []).append(reason)
        pytest.skip(reason)
    return url


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session (by alembic), copied per test."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    migrate.upgrade_sync(f"sqlite+aiosqlite:///{path}")
    # The last connection closed checkpointed the WAL; copying the main file is enough.
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    return path


# --- per-test databases ----------------------------------------------------------------------


@pytest.fixture(params=BACKENDS)
def db_backend(request: pytest.FixtureRequest) -> str:
    """``"sqlite"`` or ``"postgres"``: the backend of this test's ``db_url``."""
    return str(request.param)


@pytest.fixture
def db_url(db_backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database on this backend (see the module docstring)."""
    if db_backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'duelbot.db'}"
        return
    base = request.getfixturevalue("postgres_server")
    schema = run_sync(create_schema(base))
    try:
        yield with_schema(base, schema)
    finally:
        try:
            run_sync(drop_schema(base, schema))
        except Exception as exc:  # pragma: no cover - leaves a stray schema, not a failure
            warnings.warn(f"could not drop test schema {schema}: {exc}", stacklevel=1)


@pytest.fixture
def migrated_db_url(db_backend: str, db_url: str, request: pytest.FixtureRequest) -> str:
    """``db_url`` upgraded to head through alembic."""
    if db_backend == "sqlite":
        template: Path = request.getfixturevalue("_sqlite_template")
        target = Path(db_url.removeprefix("sqlite+aiosqlite:///"))
        shutil.copyfile(template, target)
    else:
        migrate.upgrade_sync(db_url)
    return db_url


@pytest.fixture
async def database(migrated_db_url: str) -> AsyncIterator[Database]:
    """A migrated ``Database`` on this backend, disposed after the test."""
    db = make_test_database(migrated_db_url)
    try:
        yield db
    finally:
        await db.dispose()


@pytest.fixture
async def make_db(migrated_db_url: str) -> AsyncIterator[Callable[..., Database]]:
    """Factory for more ``Database`` objects on the test's (migrated) database."""
    made: list[Database] = []

    def factory(**kwargs: Any) -> Database:
        db = make_test_database(migrated_db_url, **kwargs)
        made.append(db)
        return db

    try:
        yield factory
    finally:
        for db in made:
            await db.dispose()

