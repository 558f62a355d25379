"""Service errors carry structured fields and name no command of any front end (issue 12):
the Discord layer words the next step (tests/discord/test_error_hints.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.config import DuelSettings
from bot.db.engine import make_database
from bot.services.container import Services
from bot.services.errors import AmbiguousDuel, NextStep, NotFound, StateConflict, Unavailable
from bot.services.scope import DuelScope
from tests.services.helpers import ALICE, BOB, CAROL, COMMANDER, GUILD, duel_with_round

SERVICES = Path(__file__).resolve().parents[2] / "bot" / "services"


async def test_a_second_open_names_the_duel_the_round_and_the_next_step(
    services: Services,
) -> None:
    duel_id = await duel_with_round(services)
    with pytest.raises(StateConflict) as err:
        await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert (err.value.duel_id, err.value.round_no) == (duel_id, 1)
    assert err.value.next_step is NextStep.CLOSE_ROUND
    assert "/round" not in err.value.message


async def test_a_missing_sheet_names_the_step_not_the_command(services: Services) -> None:
    with pytest.raises(NotFound) as err:
        await services.duels.start_duel(
            guild_id=GUILD, channel_id=1, actor_id=COMMANDER, a=ALICE, b=BOB
        )
    assert err.value.message == "Alice has no stats in this server yet."
    assert err.value.next_step is NextStep.SET_STATS


async def test_an_ambiguous_move_lists_the_duels(services: Services) -> None:
    first = await duel_with_round(services, ALICE, BOB)
    second = await duel_with_round(services, ALICE, CAROL)
    with pytest.raises(AmbiguousDuel) as err:
        await services.duels.submit_move(user_id=ALICE.user_id, move="evade", via="dm_text")
    assert err.value.duel_ids == (first, second)
    assert (err.value.duel_id, err.value.next_step) == (first, NextStep.NAME_THE_DUEL)
    assert "`" not in err.value.message


def test_unknown_duel_numbers_name_the_scope_step() -> None:
    in_server = DuelScope(guild_id=GUILD).not_found(7)
    in_dm = DuelScope.of_caller(ALICE.user_id, None).not_found(7)
    assert (in_server.duel_id, in_server.next_step) == (7, NextStep.LIST_DUELS)
    assert (in_dm.duel_id, in_dm.next_step) == (7, NextStep.LIST_OWN_ROUNDS)
    assert in_server.message == "There is no duel #7 in this server."


async def test_an_unreachable_database_is_the_services_unavailable() -> None:
    db = make_database("postgresql+asyncpg://nobody:secret@127.0.0.1:1/none")  # refused
    try:
        with pytest.raises(Unavailable) as err:
            await Services.create(db, DuelSettings()).duels.get_duel(1)
    finally:
        await db.dispose()
    assert err.value.detail
    assert "nothing was recorded" in err.value.message


def test_no_service_message_holds_slash_command_syntax() -> None:
    """String literals of bot/services other than docstrings: no `/command`."""
    offenders = []
    for path in sorted(SERVICES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and "`/" in node.value
            ):
                offenders.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert offenders == []
