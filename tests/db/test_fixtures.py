"""The shared database fixtures do what tests/conftest.py promises."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import AuditEntry
from tests.db.support import backend_of, schema_of


async def test_make_db_shares_the_tests_database(
    database: Database, make_db: Callable[..., Database], migrated_db_url: str
) -> None:
    other = make_db(pool_size=2)
    async with database.transaction() as session:
        session.add(AuditEntry(action="test", details={"n": 1}))
    async with other.transaction() as session:
        count = (await session.execute(select(func.count()).select_from(AuditEntry))).scalar()
    assert count == 1
    if backend_of(migrated_db_url) == "postgresql":
        assert schema_of(migrated_db_url) is not None


async def test_each_test_gets_an_empty_database(database: Database) -> None:
    async with database.transaction() as session:
        count = (await session.execute(select(func.count()).select_from(AuditEntry))).scalar()
    assert count == 0
