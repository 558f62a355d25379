"""The one path of a move (issue 25, RoundCommands.submit_move over acceptance.accept):
moves that arrive together are all stored, each answered only after its transaction
committed; a refusal among them leaves the others alone; a failed commit acknowledges
none; a move that completes the round closes it in the same pass, exactly once.
(These were the group-commit tests of issue 14; they pass against the one path.)"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.sqlite_thread import SqliteThread
from bot.services.container import Services
from bot.services.errors import InvalidInput, MoveAlreadyLocked, Unavailable
from bot.services.published import Sides
from bot.services.views import MemberRef
from tests.services.helpers import (
    ALICE,
    BOB,
    COMMANDER,
    GUILD,
    duel_with_round,
    give_stats,
    submissions,
)


async def test_moves_arriving_together_are_all_stored(
    services: Services, database: Database
) -> None:
    pairs = [(MemberRef(500 + 2 * i, f"A{i}"), MemberRef(501 + 2 * i, f"B{i}")) for i in range(10)]
    await give_stats(services, *(m for pair in pairs for m in pair))
    duel_ids = [await duel_with_round(services, a, b) for a, b in pairs]
    receipts = await asyncio.gather(
        *(
            services.duels.submit_move(user_id=m.user_id, move="ev", via="dm_button", duel_id=d)
            for d, pair in zip(duel_ids, pairs, strict=True)
            for m in pair
        )
    )
    assert [r.move for r in receipts] == ["evade"] * 20
    assert {(r.duel_id, r.side) for r in receipts} == {(d, s) for d in duel_ids for s in "ab"}
    assert len(await submissions(database)) == 20


async def test_a_refusal_among_concurrent_moves_leaves_the_others(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    results = await asyncio.gather(
        # change of choice is off: Alice's second move is refused, with its details
        services.duels.submit_move(user_id=ALICE.user_id, move="ss", via="dm_text"),
        services.duels.submit_move(user_id=BOB.user_id, move="nonsense", via="dm_text"),
        services.duels.submit_move(
            user_id=BOB.user_id, move="ffs", via="dm_button", duel_id=duel_id
        ),
        return_exceptions=True,
    )
    assert isinstance(results[0], MoveAlreadyLocked) and results[0].duel_id == duel_id
    assert isinstance(results[1], InvalidInput)
    assert not isinstance(results[2], BaseException) and results[2].move == "full_frontal_strike"
    stored = sorted((s.side, s.move) for s in await submissions(database))
    assert stored == [("a", "evade"), ("b", "full_frontal_strike")]
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.result.choices == Sides("evade", "full_frontal_strike")


class FailingCommit(sqlite3.Connection):
    """A sqlite3 connection whose COMMIT fails while ``failing`` is set (a full disk)."""

    failing = False

    def commit(self) -> None:
        if FailingCommit.failing:
            raise sqlite3.OperationalError("disk I/O error")
        super().commit()


async def test_a_failed_commit_acknowledges_no_move(
    database: Database,
    make_db: Callable[..., Database],
    db_backend: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On SQLite the COMMIT of a move is sqlite3's own (in the step's hop: no SQLAlchemy
    call to break), so the connection's class fails it; on PostgreSQL SQLAlchemy's."""
    if db_backend == "sqlite":
        database = make_db(connect_args={"factory": FailingCommit})
    services = Services.create(database, DuelSettings())
    await duel_with_round(services)

    def failing(self: Connection) -> Any:
        raise OperationalError("COMMIT", {}, Exception("disk I/O error"))

    if db_backend == "sqlite":
        monkeypatch.setattr(FailingCommit, "failing", True)
    else:
        monkeypatch.setattr(Connection, "_commit_impl", failing)
    results = await asyncio.gather(
        services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text"),
        services.duels.submit_move(user_id=BOB.user_id, move="ev", via="dm_text"),
        return_exceptions=True,
    )
    monkeypatch.undo()
    assert all(isinstance(r, Unavailable) for r in results), results
    assert await submissions(database) == []
    # and the next moves go through
    receipt = await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    assert receipt.move == "evade" and len(await submissions(database)) == 1


async def test_every_entry_stores_the_same_values(database: Database, db_backend: str) -> None:
    """A first move (a DM) and a completing one (a button, which closes the round) store
    the same kinds of values, stored as SQLAlchemy stores them: the ORM reads both back
    alike, and SQLite holds naive UTC text with microseconds."""
    services = Services.create(database, DuelSettings())
    step_by_step = Services.create(database, DuelSettings(close_when_all_submitted=True))
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    await step_by_step.duels.submit_move(
        user_id=BOB.user_id, move="ss", via="dm_button", duel_id=duel_id
    )
    rows = {s.side: s for s in await submissions(database)}
    assert set(rows) == {"a", "b"}
    for row in rows.values():
        assert row.submitted_at.tzinfo is not None and row.superseded_at is None
    assert abs((rows["a"].submitted_at - rows["b"].submitted_at).total_seconds()) < 60
    if db_backend == "sqlite":
        async with database.transaction() as session:
            raw = (await session.execute(text("SELECT submitted_at FROM submissions"))).all()
        stamp = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$")
        assert all(stamp.match(r[0]) for r in raw), raw


async def test_close_when_all_submitted_closes_once(database: Database) -> None:
    """With close_when_all_submitted the move that completes a round closes it in its own
    transaction, exactly once, even when both moves arrive together."""
    services = Services.create(database, DuelSettings(close_when_all_submitted=True))
    duel_id = await duel_with_round(services)
    receipts = await asyncio.gather(
        services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text"),
        services.duels.submit_move(
            user_id=BOB.user_id, move="ffs", via="dm_button", duel_id=duel_id
        ),
    )
    closed = [r.closed for r in receipts if r.closed is not None]
    assert len(closed) == 1 and closed[0].result.choices == Sides(
        "evade", "full_frontal_strike"
    )
    assert len(await submissions(database)) == 2
    status = await services.duels.round_status(duel_id, GUILD)
    assert not (status.round_no == 1 and status.is_open)  # round 1 is closed


async def test_a_move_is_one_hop_on_sqlite(
    make_db: Callable[..., Database], db_backend: str
) -> None:
    """On SQLite a move that leaves its round open is ONE call into the database's thread:
    BEGIN IMMEDIATE, the reads, the store and the COMMIT (issue 25's cost); a change of
    choice too. The move that completes the round continues in the same transaction (the
    close), so it takes more."""
    if db_backend != "sqlite":
        pytest.skip("PostgreSQL has no database thread (run_sync, asyncpg)")
    database = make_db(pool_size=1)
    services = Services.create(
        database, DuelSettings(change_of_choice=True, close_when_all_submitted=True)
    )
    duel_id = await duel_with_round(services)
    assert database.lane is not None
    async with database.lane.lock:
        _, driver = await database.lane.connection()  # the moves' connection
    async with database.transaction() as session:
        raw = await (await session.connection()).get_raw_connection()
        pool_driver = raw.driver_connection  # the ORM transactions' connection
    assert isinstance(driver, SqliteThread) and isinstance(pool_driver, SqliteThread)
    for move in ("ev", "ss"):  # a first move, then a change of it
        before, hops, pool_before = driver.inline_runs, driver.hops, pool_driver.hops
        receipt = await services.duels.submit_move(
            user_id=ALICE.user_id, move=move, via="dm_button", duel_id=duel_id
        )
        # the move's pass and its COMMIT in one run, inline: no hop to the thread
        assert driver.inline_runs - before == 1 and driver.hops == hops
        assert receipt.closed is None
        assert pool_driver.hops == pool_before  # the pool's connection is not touched
    completing = await services.duels.submit_move(user_id=BOB.user_id, move="ev", via="dm_text")
    assert completing.closed is not None
    stored = sorted((s.side, s.move, s.superseded_at is None) for s in await submissions(database))
    assert stored == [("a", "evade", False), ("a", "side_swipe", True), ("b", "evade", True)]
