"""The test-only fourth ruleset on its own: its rules, and that the registry takes it."""

from __future__ import annotations

import pytest

from bot.rules import registry
from bot.rules.base import Fighter
from bot.rules.dice import FairDice, ScriptedDice
from bot.rules.errors import RulesError
from tests.rulesets.fencing import FENCING, RULESET_ID


def bout(touches: str = "2") -> object:
    return FENCING.initial_state(
        Fighter("Ann", {"skill": 1}), Fighter("Bob", {"skill": 0}), {"touches": touches}
    )


def test_triangle_scores_without_dice() -> None:
    result = FENCING.resolve(bout(), {"a": "thrust", "b": "feint"}, ScriptedDice(()), None)
    assert (result.outcome, result.rolls) == ("a_touch", ())
    result = FENCING.resolve(bout(), {"a": "thrust", "b": "parry"}, ScriptedDice(()), None)
    assert result.outcome == "b_touch"


def test_same_action_is_a_tie_break_with_skill() -> None:
    # Ann 3 + skill 1 = 4 against Bob 4 + skill 0 = 4: equal totals, no touch.
    result = FENCING.resolve(bout(), {"a": "feint", "b": "feint"}, ScriptedDice((3, 4)), None)
    assert result.outcome == "no_touch" and [r.value for r in result.rolls] == [3, 4]
    result = FENCING.resolve(bout(), {"a": "feint", "b": "feint"}, ScriptedDice((4, 4)), None)
    assert result.outcome == "a_touch"


def test_two_touches_win_and_the_house_rule_changes_it() -> None:
    state = bout()
    for expected in ("a_touch", "a_wins"):
        result = FENCING.resolve(state, {"a": "parry", "b": "thrust"}, ScriptedDice(()), None)
        assert result.outcome == expected
        state = result.state
    assert result.ended and result.winner == "a"
    one = FENCING.resolve(bout("1"), {"a": None, "b": "thrust"}, ScriptedDice(()), None)
    assert (one.outcome, one.winner) == ("b_wins", "b")
    with pytest.raises(RulesError, match="touches must be one of 1, 2, 3"):
        bout("9")


def test_readjudicates_from_stored_json() -> None:
    state = bout()
    played = FENCING.resolve(state, {"a": "feint", "b": "feint"}, FairDice("ab" * 32, 5, 1), None)
    again = FENCING.readjudicate_round(
        {
            "state_before": state.to_dict(),  # type: ignore[attr-defined]
            "choices": {"a": "feint", "b": "feint"},
            "seed": "ab" * 32,
            "duel_id": 5,
            "round_no": 1,
        }
    )
    assert again.to_dict() == played.to_dict()


def test_registry_takes_and_drops_a_test_ruleset() -> None:
    assert RULESET_ID not in registry.ids()
    registry.register(FENCING)
    try:
        assert registry.get(RULESET_ID) is FENCING
    finally:
        registry.unregister(RULESET_ID)
    assert RULESET_ID not in registry.ids()
