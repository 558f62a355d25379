"""bot/db/prepared.py: a move's statements run straight on SQLite's own connection give the
rows SQLAlchemy's execution gives (types converted alike: UTC datetimes, JSON), and write
what SQLAlchemy reads back. On PostgreSQL they go through ``Connection.execute``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, select

from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Round, Submission
from bot.db.prepared import Prepared
from bot.services.container import Services
from tests.services.helpers import ALICE, duel_with_round


def _both(conn: Connection, prepared: Prepared, params: dict[str, Any]) -> tuple[Any, Any]:
    fast = prepared.rows(conn, params)
    slow = [tuple(row) for row in conn.execute(prepared.statement, params)]  # type: ignore
    return fast, slow


async def test_reads_match_sqlalchemys_and_writes_read_back(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    deadline = datetime(2030, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    async with database.transaction() as session:
        rnd = (await session.execute(select(Round).where(Round.duel_id == duel_id))).scalar_one()
        rnd.deadline = deadline
        round_id = rnd.id
    at = datetime(2030, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)

    def step(conn: Connection) -> tuple[dict[str, Any], bool]:
        seen: dict[str, Any] = {}
        for name, prepared, params in (
            ("by_duel", queries._TARGET_BY_DUEL_RUN, {"duel_id": duel_id}),
            ("of_user", queries._TARGETS_OF_USER_RUN, {"user_id": ALICE.user_id}),
            ("duel", queries._DUEL_BY_ID_RUN, {"duel_id": duel_id}),
        ):
            seen[name] = _both(conn, prepared, params)
        queries.store_move(
            conn, round_id=round_id, side="a", user_id=ALICE.user_id, move="evade",
            via="dm_text", at=at, supersede_id=None,
        )
        first = queries.round_moves(conn, round_id)["a"][1]
        queries.store_move(
            conn, round_id=round_id, side="a", user_id=ALICE.user_id, move="attack",
            via="dm_text", at=at + timedelta(seconds=1), supersede_id=first,
        )
        seen["moves"] = _both(conn, queries._ROUND_MOVES_RUN, {"round_id": round_id})
        seen["targets"] = queries.move_targets(conn, duel_id=duel_id)
        seen["first"] = first
        return seen, True

    async with database.connection_transaction() as work:
        seen = await work.run(step)

    for name in ("by_duel", "of_user", "duel", "moves"):
        fast, slow = seen[name]
        assert fast == slow and fast, name
    row = seen["targets"][0]
    assert row[queries.TARGET_ROUND_ID] == round_id
    assert row[10] == deadline and row[10].tzinfo is not None  # a UTC datetime, not text
    assert isinstance(row[5], dict) and isinstance(row[6], dict)  # JSON decoded
    assert seen["moves"][0] == [("a", 2, seen["first"] + 1, "attack")]
    async with database.transaction() as session:
        stored = (await session.execute(select(Submission).order_by(Submission.id))).scalars()
        got = [(s.move, s.submitted_at, s.superseded_at) for s in stored]
    assert got == [
        ("evade", at, at + timedelta(seconds=1)),
        ("attack", at + timedelta(seconds=1), None),
    ]


def test_an_insert_names_only_the_columns_it_writes() -> None:
    from sqlalchemy.dialects import sqlite

    sql = queries._STORE_RUN.sql(sqlite.dialect())
    columns = "round_id, side, user_id, move, via, submitted_at"
    assert sql.startswith(f"INSERT INTO submissions ({columns})")
