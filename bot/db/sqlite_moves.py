"""The move hot path on SQLite: a whole batch of moves in ONE call in aiosqlite's worker
thread (issue 14).

Every statement through SQLAlchemy costs a hand-over to aiosqlite's thread and back (a GIL
hand-over and an event-loop wake-up) plus SQLAlchemy's execution machinery; the batch's
BEGIN IMMEDIATE, its reads and writes and its COMMIT here run as plain sqlite3 calls in one
such call. The SQL is the SQL of ``queries.move_targets`` / ``side_moves`` / ``store_move``
(PostgreSQL keeps those), and the values are stored exactly as SQLAlchemy stores them on
SQLite: datetimes as naive UTC text with microseconds, JSON as text
(tests/services/test_group_commit.py reads them back through the ORM).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.db.engine import DatabaseUnavailable

T = TypeVar("T")

_COLUMNS = (
    "SELECT d.id, d.guild_id, d.a_user_id, d.b_user_id, d.ruleset, d.state, d.options, "
    "d.status, r.id, r.number, r.deadline FROM duels AS d "
)
_TARGET_BY_DUEL = (
    _COLUMNS + "JOIN rounds AS r ON r.duel_id = d.id AND r.status = 'open' WHERE d.id = ?"
)
_TARGETS_OF_USER = (
    _COLUMNS + "JOIN rounds AS r ON r.duel_id = d.id WHERE d.status = 'live' AND "
    "r.status = 'open' AND (d.a_user_id = ? OR d.b_user_id = ?) ORDER BY d.id"
)
_SIDE_MOVES = (
    "SELECT count(*), max(CASE WHEN superseded_at IS NULL THEN id END), "
    "max(CASE WHEN superseded_at IS NULL THEN move END) "
    "FROM submissions WHERE round_id = ? AND side = ?"
)
_SUPERSEDE = "UPDATE submissions SET superseded_at = ? WHERE id = ?"
_STORE = (
    "INSERT INTO submissions (round_id, side, user_id, move, via, submitted_at) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)


class MoveTarget(NamedTuple):
    """A duel and its open round, as ``queries.move_targets`` returns them."""

    id: int
    guild_id: int
    a_user_id: int
    b_user_id: int
    ruleset: str
    state: dict[str, Any]
    options: dict[str, Any] | None
    status: str
    round_id: int
    round_number: int
    round_deadline: datetime | None


class CommitFailed(DatabaseUnavailable):
    """The batch's COMMIT failed: whether it took effect is not known."""


def _stored_time(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _read_time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def move_targets(
    c: sqlite3.Connection, *, duel_id: int | None = None, user_id: int | None = None
) -> list[MoveTarget]:
    if duel_id is not None:
        rows = c.execute(_TARGET_BY_DUEL, (duel_id,)).fetchall()
    else:
        rows = c.execute(_TARGETS_OF_USER, (user_id, user_id)).fetchall()
    return [
        MoveTarget(
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            json.loads(r[5]),
            None if r[6] is None else json.loads(r[6]),
            r[7],
            r[8],
            r[9],
            _read_time(r[10]),
        )
        for r in rows
    ]


def side_moves(
    c: sqlite3.Connection, round_id: int, side: str
) -> tuple[int, int | None, str | None]:
    count, current_id, move = c.execute(_SIDE_MOVES, (round_id, side)).fetchone()
    return int(count), current_id, move


def store_move(
    c: sqlite3.Connection,
    *,
    round_id: int,
    side: str,
    user_id: int,
    move: str,
    via: str,
    at: datetime,
    supersede_id: int | None,
) -> None:
    stamp = _stored_time(at)
    if supersede_id is not None:
        c.execute(_SUPERSEDE, (stamp, supersede_id))
    c.execute(_STORE, (round_id, side, user_id, move, via, stamp))


def _commit(c: sqlite3.Connection) -> None:
    c.commit()


async def run_batch(conn: AsyncConnection, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(c)`` in aiosqlite's thread inside ``conn``'s transaction, and the COMMIT in the
    same call (the caller's commit then finds nothing to do). A locked database raises
    DatabaseUnavailable; a failed COMMIT raises CommitFailed."""
    raw = await conn.get_raw_connection()
    adapted: Any = raw.dbapi_connection  # bot.db.sqlite_onehop.OneHopConnection
    driver = adapted._connection  # the aiosqlite connection
    begin, adapted._pending_begin = adapted._pending_begin, None

    def call(c: sqlite3.Connection) -> T:
        try:
            if begin is not None:
                c.execute(begin)
            result = work(c)
        except sqlite3.OperationalError as exc:  # locked past the busy timeout, disk
            raise DatabaseUnavailable(str(exc)) from exc
        try:
            _commit(c)
        except sqlite3.Error as exc:
            raise CommitFailed(str(exc)) from exc
        return result

    async with adapted._execute_mutex:
        outcome: T = await driver._execute(call, driver._conn)
        return outcome
