"""Migration 0003 on SQLite and PostgreSQL: duels.end_kind is backfilled from the rounds (not
from the text of end_reason), and live duels get their rules fixed from the server's
settings at upgrade time; old rows keep working through the services afterwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import JSON, TableClause, column, insert, select, table
from sqlalchemy.types import TypeEngine

from bot.config import DuelSettings
from bot.db import migrate
from bot.db.engine import make_database
from bot.db.models import Duel, UTCDateTime
from bot.services.container import Services
from bot.services.errors import StateConflict

GUILD = 4242
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
OLD_OPTIONS = {"missing_move": "none", "locked_blocks_retreat": False}  # as 0001/0002 stored


def state(locked: bool = False) -> dict[str, Any]:
    return {
        "a": {"name": "Ann", "str": 5, "agi": 3},
        "b": {"name": "Bob", "str": 4, "agi": 2},
        "locked": locked,
    }


def old_table(name: str, row: dict[str, Any]) -> TableClause:
    """Table ``name`` as revision 0002 had it, for inserting ``row`` (the models are
    today's: migration 0007 dropped columns 0002 required)."""

    def typed(key: str, value: Any) -> TypeEngine[Any] | None:
        if isinstance(value, datetime):
            return UTCDateTime()
        return JSON() if isinstance(value, dict) else None

    return table(name, *(column(key, typed(key, value)) for key, value in row.items()))


def duel_row(duel_id: int, status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": duel_id,
        "guild_id": GUILD,
        "channel_id": 1,
        "thread_id": None,
        "ruleset": "rule-2.14",
        "a_user_id": 11,
        "b_user_id": 12,
        "state": state(),
        "options": dict(OLD_OPTIONS),
        "status": status,
        "locked": False,
        "winner": None,
        "end_reason": None,
        "rounds_played": 0,
        "created_by": 1,
        "created_at": T0,
        "ended_at": None,
        **extra,
    }


def round_row(duel_id: int, number: int, status: str, closed_at: datetime | None) -> dict[str, Any]:
    ended = status == "closed" and duel_id == 1
    return {
        "duel_id": duel_id,
        "number": number,
        "status": status,
        "opened_by": 1,
        "opened_at": T0,
        "deadline": None,
        "reminders_sent": {},
        "seed": "00" * 32,
        "commitment": "11" * 32,
        "state_before": state(),
        "closed_by": 1 if closed_at else None,
        "closed_at": closed_at,
        "close_reason": "commander" if status == "closed" else "duel_ended",
        "outcome": ("a_wins" if ended else "no_effect") if status == "closed" else None,
        "result": {"outcome": "a_wins" if ended else "no_effect", "ended": ended}
        if status == "closed"
        else None,
        "undone_by": None,
        "undone_at": None,
    }


@pytest.mark.parametrize("change_of_choice", [True, False])
async def test_upgrade_from_0002_backfills_end_kind_and_fixes_live_rules(
    db_url: str, change_of_choice: bool
) -> None:
    await migrate.upgrade(db_url, "0002")
    t1, t2, t3 = (T0 + timedelta(hours=h) for h in (1, 2, 3))
    db = make_database(db_url)
    try:
        async with db.transaction() as session:
            settings = {
                "guild_id": GUILD,
                "change_of_choice": change_of_choice,
                "commander_role_id": None,
                "admin_role_id": None,
                "results_channel_id": None,
                "missing_move": "forfeit",
                "locked_blocks_retreat": True,
                "updated_at": T0,
            }
            await session.execute(insert(old_table("guild_settings", settings)).values(settings))
            for row in (
                # 1: ended by round 1's result (the close wrote both times from one clock).
                duel_row(1, "ended", winner="a", end_reason="round 1: a_wins", ended_at=t1),
                # 2: ended by a commander whose reason only looks like a result.
                duel_row(2, "ended", end_reason="round 3: a_wins", ended_at=t3),
                # 3: ended by a commander while round 2 was open (cancelled at the end time).
                duel_row(3, "ended", end_reason="left the server", ended_at=t2),
                # 4: live, between rounds.
                duel_row(4, "live", rounds_played=1),
            ):
                await session.execute(insert(old_table("duels", row)).values(row))
            for row in (  # ids from the database: later rounds take the next ones
                round_row(1, 1, "closed", t1),
                round_row(2, 1, "closed", t1),
                round_row(3, 1, "closed", t1),
                round_row(3, 2, "cancelled", t2),
                round_row(4, 1, "closed", t1),
            ):
                await session.execute(insert(old_table("rounds", row)).values(row))
    finally:
        await db.dispose()

    await migrate.upgrade(db_url)

    db = make_database(db_url)
    try:
        async with db.transaction() as session:
            duels = {d.id: d for d in (await session.execute(select(Duel))).scalars()}
        assert {i: d.end_kind for i, d in duels.items()} == {
            1: "result",
            2: "commander",
            3: "commander",
            4: None,
        }
        # The live duel is fixed to the server's settings at upgrade time, change of choice
        # included; ended duels keep what they recorded.
        assert duels[4].options == {
            "change_of_choice": change_of_choice,
            "missing_move": "forfeit",
            "locked_blocks_retreat": True,
        }
        for i in (1, 2, 3):
            assert duels[i].options == OLD_OPTIONS

        # The fixture's rounds closed in November: an undo window wide enough that the
        # window (issue 23) does not decide what this test is about.
        services = Services.create(db, DuelSettings(undo_window_hours=24 * 365))
        # Only the duel a result ended can have that round undone; "round 3: ..." text does
        # not make a commander's end undoable.
        with pytest.raises(StateConflict, match="ended by a commander"):
            await services.duels.undo_round(
                duel_id=2, guild_id=GUILD, actor_id=1, reason="try to revive it"
            )
        undone = await services.duels.undo_round(
            duel_id=1, guild_id=GUILD, actor_id=1, reason="wrong stats"
        )
        assert undone.status == "live" and undone.end_kind is None
        # The old live duel plays on under the rules fixed at the upgrade.
        await services.duels.open_round(duel_id=4, guild_id=GUILD, actor_id=1)
        await services.duels.submit_move(user_id=11, move="evade", via="slash", duel_id=4)
        closed = await services.duels.close_round(duel_id=4, guild_id=GUILD, actor_id=1)
        assert closed.outcome == "a_wins"  # forfeit: Bob sent nothing
        assert closed.result.options.missing_move == "forfeit"
        assert closed.result.options.change_of_choice is change_of_choice
        assert closed.duel.end_kind == "result"
    finally:
        await db.dispose()

    # And back: 0002's schema again, the data intact.
    await migrate.downgrade(db_url, "0002")
    assert await migrate.current_revision(db_url) == "0002"
