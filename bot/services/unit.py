"""The unit of work every use case runs in: one database transaction, committed when the
block ends (the database wakes the poster after a commit that queued posts). The db layer's
own exception never leaves the services: a database that cannot be reached is
``Unavailable``, the services' error for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database, DatabaseUnavailable, Work
from bot.services.errors import Unavailable


@asynccontextmanager
async def transaction(db: Database) -> AsyncIterator[AsyncSession]:
    try:
        async with db.transaction() as session:
            yield session
    except DatabaseUnavailable as exc:
        raise Unavailable(str(exc)) from exc


@asynccontextmanager
async def connection_transaction(db: Database) -> AsyncIterator[Work]:
    """The same unit of work on a Core connection (a move's hot path; an ORM session joins
    it only if the work asks, ``Work.session``)."""
    try:
        async with db.connection_transaction() as work:
            yield work
    except DatabaseUnavailable as exc:
        raise Unavailable(str(exc)) from exc
