"""A move's statements reach their rows through indexes on the duel or the user, on SQLite
as the bot runs it (no ANALYZE): no scan of every open round, so a move costs the same
with 10 or 10,000 live duels (issue 27: what grows with the number of live duels)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.dialects import sqlite

from bot.db import migrate, queries
from bot.db.prepared import Prepared


@pytest.mark.parametrize(
    "name",
    ["_TARGET_BY_DUEL_RUN", "_TARGETS_OF_USER_RUN", "_DUEL_BY_ID_RUN", "_ROUND_MOVES_RUN"],
)
def test_a_move_reads_through_indexes(tmp_path: Path, name: str) -> None:
    path = tmp_path / "plans.db"
    migrate.upgrade_sync(f"sqlite+aiosqlite:///{path}")
    prepared: Prepared = getattr(queries, name)
    sql = prepared.sql(sqlite.dialect())
    with sqlite3.connect(path) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", [1] * sql.count("?"))]
    steps = [step for step in plan if step.startswith(("SEARCH", "SCAN"))]
    assert steps and all(step.startswith("SEARCH") for step in steps), plan
    assert not any("ix_rounds_status_deadline" in step for step in steps), plan
