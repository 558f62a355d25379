"""acceptance.accept, the one decision on a move (issue 25): pure, over frozen snapshots, no
database. Every entry (DM, button, /move) goes through it (tests/services/test_move_path.py
and the services' tests check the wiring); here, each answer it can give."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.config import DuelSettings
from bot.rules.base import Fighter
from bot.rules.registry import get as get_ruleset
from bot.services.acceptance import (
    DuelSnapshot,
    MoveRequest,
    RoundSnapshot,
    SideMoves,
    accept,
    choose_round,
)
from bot.services.errors import (
    AmbiguousDuel,
    InvalidInput,
    MoveAlreadyLocked,
    NotFound,
    RoundNotOpen,
    TooManyChanges,
)
from tests.rules.test_foeq import FOEQ, start

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
ANN, BOB = 11, 12


def rule_214_duel(duel_id: int = 7, **changes: Any) -> DuelSnapshot:
    rules = get_ruleset("rule-2.14")
    state = rules.initial_state(
        Fighter("Ann", {"str": 5, "agi": 3}), Fighter("Bob", {"str": 4, "agi": 2}), {}
    )
    duel = DuelSnapshot(
        duel_id, 1, ANN, BOB, "rule-2.14", state.to_dict(), {"change_of_choice": True}, "live"
    )
    return replace(duel, **changes)


ROUND = RoundSnapshot(id=70, number=1, deadline=None)


def request(user_id: int = ANN, move: str = "ev", **changes: Any) -> MoveRequest:
    return replace(MoveRequest(user_id, move, "dm_text", duel_id=7), **changes)


def test_a_first_move_is_accepted_and_does_not_complete_the_round() -> None:
    took = accept(request(), rule_214_duel(), ROUND, {}, DuelSettings(), NOW)
    assert (took.side, took.move_id, took.label) == ("a", "evade", "Evade")
    assert took.supersedes is None and took.changed_from is None
    assert not took.completes_round


def test_the_move_that_completes_the_round_says_so_only_with_close_when_all() -> None:
    bob_moved = {"b": SideMoves(1, 900, "side_swipe")}
    closing = DuelSettings(close_when_all_submitted=True)
    took = accept(request(), rule_214_duel(), ROUND, bob_moved, closing, NOW)
    assert took.completes_round
    took = accept(request(), rule_214_duel(), ROUND, bob_moved, DuelSettings(), NOW)
    assert not took.completes_round


def test_a_change_supersedes_the_stored_move_and_its_label_is_told() -> None:
    mine = {"a": SideMoves(1, 901, "side_swipe")}
    took = accept(request(move="ffs"), rule_214_duel(), ROUND, mine, DuelSettings(), NOW)
    assert took.supersedes == 901 and took.changed_from == "side_swipe"
    assert took.changed_from_label == "Side Swipe" and took.move_id == "full_frontal_strike"


@pytest.mark.parametrize(
    ("duel_changes", "rnd", "req_changes", "moves", "error", "words"),
    [
        ({}, ROUND, {"move": "dance"}, {}, InvalidInput, ""),
        ({"status": "ended"}, ROUND, {}, {}, RoundNotOpen, "has ended"),
        ({}, None, {}, {}, RoundNotOpen, "no open round"),
        ({}, ROUND, {"round_no": 3}, {}, RoundNotOpen, "That round of duel #7 is over"),
        (
            {},
            replace(ROUND, deadline=NOW - timedelta(seconds=1)),
            {},
            {},
            RoundNotOpen,
            "deadline",
        ),
        (
            {"options": {"change_of_choice": False}},
            ROUND,
            {},
            {"a": SideMoves(1, 5, "side_swipe")},
            MoveAlreadyLocked,
            "already locked in Side Swipe",
        ),
        ({}, ROUND, {}, {"a": SideMoves(4, 5, "side_swipe")}, TooManyChanges, "3 times"),
    ],
)
def test_each_refusal_gives_its_reason(
    duel_changes: dict[str, Any],
    rnd: RoundSnapshot | None,
    req_changes: dict[str, Any],
    moves: dict[str, SideMoves],
    error: type[Exception],
    words: str,
) -> None:
    settings = DuelSettings(max_move_changes=3)
    with pytest.raises(error) as refused:
        accept(request(**req_changes), rule_214_duel(**duel_changes), rnd, moves, settings, NOW)
    assert words in str(refused.value)
    assert getattr(refused.value, "duel_id", None) == 7


def test_a_dm_finds_its_one_open_round_or_is_told_why_not() -> None:
    one = (rule_214_duel(), ROUND)
    assert choose_round([one], ANN) == one
    with pytest.raises(NotFound):
        choose_round([], ANN)
    with pytest.raises(AmbiguousDuel) as several:
        choose_round([one, (rule_214_duel(8), replace(ROUND, id=80))], ANN)
    assert several.value.duel_ids == (7, 8)


def test_a_multi_step_step_completes_when_every_awaited_side_has_chosen() -> None:
    """FoEQ (its steps advance at once) goes through the same decision: the step completes
    with the last awaited side's move, whatever close_when_all_submitted says."""
    state = start()  # FoEQ's first step: both sides choose a stake, a style and a slot
    duel = DuelSnapshot(7, 1, ANN, BOB, "foeq-spell-duel", state.to_dict(), {}, "live")
    move = FOEQ.moves(state, "a")[0].id
    first = accept(request(move=move), duel, ROUND, {}, DuelSettings(), NOW)
    assert first.move_id == move and not first.completes_round
    bob_moved = {"b": SideMoves(1, 3, FOEQ.moves(state, "b")[0].id)}
    last = accept(request(move=move), duel, ROUND, bob_moved, DuelSettings(), NOW)
    assert last.completes_round
