"""A snapshot of every table of the database, to prove that a refusal changed nothing.

Not member_languages: which language a member last used is noted on every interaction,
refused or not (issue 28: their DMs speak it), and is no state of any duel."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import Base

NOT_STATE = frozenset({"member_languages"})


async def snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    tables: dict[str, list[tuple[Any, ...]]] = {}
    async with db.transaction() as session:
        for table in Base.metadata.sorted_tables:
            if table.name in NOT_STATE:
                continue
            rows = (await session.execute(select(table))).all()
            tables[table.name] = sorted((tuple(r) for r in rows), key=repr)
    return tables


async def settle(db: Database, timeout: float = 10.0) -> None:
    """Wait until the outbox worker has delivered every pending post (its writes are not
    the command's)."""
    import asyncio

    from sqlalchemy import func

    from bot.db.models import OutboxPost

    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        async with db.transaction() as session:
            pending = (
                await session.execute(
                    select(func.count())
                    .select_from(OutboxPost)
                    .where(OutboxPost.status == "pending")
                )
            ).scalar_one()
        if not pending:
            return
        if loop.time() > end:
            raise AssertionError(f"{pending} outbox post(s) still pending after {timeout} s")
        await asyncio.sleep(0.05)
