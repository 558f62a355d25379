"""Rule 2.14 with scripted dice: every move pair and every clause of the interpretation."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.rules.dice import ScriptedDice
from bot.rules.errors import InvalidChoice, InvalidRoundInput
from bot.rules.rule_2_14.moves import (
    EVADE,
    FULL_FRONTAL_STRIKE,
    LOCK_ATTEMPT,
    MOVE_IDS,
    RETREAT,
    SIDE_SWIPE,
    parse_move,
)
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options

FFS, SS, LA, EV, RT = FULL_FRONTAL_STRIKE, SIDE_SWIPE, LOCK_ATTEMPT, EVADE, RETREAT

# A is strong and quick, B weak and slow: A's dice are DICE6, B's are DICE-6 (always 0);
# A's Lock Attempt succeeds (8 > 2), B's fails (2 < 8).
STRONG = Duellist("Alice", 8, 8)
WEAK = Duellist("Bob", 2, 2)


def resolve(
    a_move: str | None,
    b_move: str | None,
    script: Sequence[int] = (),
    *,
    a: Duellist = STRONG,
    b: Duellist = WEAK,
    locked: bool = False,
    options: Options | None = None,
):  # type: ignore[no-untyped-def]
    dice = ScriptedDice(script, duel_id=7, round_no=3)
    result = RULE_2_14.resolve(
        DuelState(a=a, b=b, locked=locked), {"a": a_move, "b": b_move}, dice, options
    )
    assert dice._next == len(script), "the script was not used up"
    return result


def rolls(result) -> list[tuple[str, str, int, int]]:  # type: ignore[no-untyped-def]
    return [(r.side, r.purpose, r.sides, r.value) for r in result.rolls]


# (a_move, b_move, script, outcome, locked after, rolls as (for, purpose, sides, value))
PAIRS = [
    (FFS, FFS, [], "locked", True, []),
    (FFS, SS, [], "b_wins", False, []),
    (FFS, LA, [2], "a_wins", False, [("a", FFS, 6, 2)]),
    (FFS, EV, [5], "a_wins", False, [("b", EV, -6, 0), ("a", FFS, 6, 5)]),
    (FFS, RT, [3], "a_wins", False, [("a", FFS, 6, 3)]),
    (SS, FFS, [], "a_wins", False, []),
    (SS, SS, [], "no_effect", False, []),
    (SS, LA, [], "no_effect", False, []),
    (SS, EV, [], "no_effect", False, [("b", EV, -6, 0)]),
    (SS, RT, [], "b_retreats", False, []),
    (LA, FFS, [], "locked", True, [("b", FFS, -6, 0)]),
    (LA, SS, [], "locked", True, []),
    (LA, LA, [], "no_effect", False, []),
    (LA, EV, [], "no_effect", False, []),
    (LA, RT, [], "b_retreats", True, []),
    (EV, FFS, [2], "no_effect", False, [("a", EV, 6, 2)]),
    (EV, SS, [4], "no_effect", False, [("a", EV, 6, 4)]),
    (EV, LA, [], "no_effect", False, []),
    (EV, EV, [], "no_effect", False, []),
    (EV, RT, [3], "b_retreats", False, [("a", EV, 6, 3)]),
    (RT, FFS, [], "a_retreats", False, [("b", FFS, -6, 0)]),
    (RT, SS, [], "a_retreats", False, []),
    (RT, LA, [], "a_retreats", False, []),
    (RT, EV, [], "a_retreats", False, [("b", EV, -6, 0)]),
    (RT, RT, [], "both_retreat", False, []),
]


def test_the_table_covers_all_25_pairs() -> None:
    assert {(p[0], p[1]) for p in PAIRS} == {(a, b) for a in MOVE_IDS for b in MOVE_IDS}


@pytest.mark.parametrize(("a_move", "b_move", "script", "outcome", "locked", "made"), PAIRS)
def test_every_move_pair(a_move, b_move, script, outcome, locked, made) -> None:  # type: ignore[no-untyped-def]
    result = resolve(a_move, b_move, script)
    assert result.outcome == outcome
    assert result.state.locked is locked
    assert result.state.locked is locked
    assert rolls(result) == made
    assert result.winner == (outcome[0] if outcome.endswith("_wins") else None)
    assert result.ended == (outcome not in ("locked", "no_effect"))
    assert result.choices == {"a": a_move, "b": b_move}
    for event in result.log:
        assert event.clause.startswith(("2.14", "duelbot")), event


@pytest.mark.parametrize(("a_move", "b_move", "script", "outcome", "locked", "made"), PAIRS)
def test_every_move_pair_mirrored(a_move, b_move, script, outcome, locked, made) -> None:  # type: ignore[no-untyped-def]
    """The same round with A and B swapped gives the mirrored outcome."""
    mirror = {"a_wins": "b_wins", "b_wins": "a_wins", "a_retreats": "b_retreats",
              "b_retreats": "a_retreats"}
    result = resolve(b_move, a_move, script, a=WEAK, b=STRONG)
    assert result.outcome == mirror.get(outcome, outcome)
    assert result.state.locked is locked
    flip = {"a": "b", "b": "a"}
    assert sorted(rolls(result)) == sorted((flip[s], p, x, v) for s, p, x, v in made)


# -- attacks ---------------------------------------------------------------------------


def test_full_frontal_strike_roll_of_1_fails() -> None:
    result = resolve(FFS, LA, [1])
    assert result.outcome == "no_effect"
    assert "not greater than 1, fails" in str(result.log[-2])


def test_full_frontal_strike_against_retreat_that_fails_lets_the_retreat_happen() -> None:
    result = resolve(FFS, RT, [1])
    assert result.outcome == "b_retreats"
    assert result.winner is None


def test_full_frontal_strike_dice_is_str_minus_agi() -> None:
    result = resolve(FFS, None, [7], a=Duellist("A", 12, 0), b=Duellist("B", 0, 3))
    assert rolls(result) == [("a", FFS, 9, 7)]
    assert "STR 12 - AGI 3" in str(result.log[1])
    assert result.outcome == "a_wins"


@pytest.mark.parametrize("x", [0, -1, -50])
def test_full_frontal_strike_with_x_at_most_0_rolls_0_and_fails(x: int) -> None:
    a = Duellist("A", 5, 5)
    b = Duellist("B", 5, 5 - x)
    result = resolve(FFS, None, [], a=a, b=b)
    assert rolls(result) == [("a", FFS, x, 0)]
    assert result.outcome == "no_effect"
    assert "X <= 0 yields 0" in str(result.log[1])


def test_dice1_always_fails() -> None:
    result = resolve(FFS, None, [1], a=Duellist("A", 6, 0), b=Duellist("B", 0, 5))
    assert rolls(result) == [("a", FFS, 1, 1)]
    assert result.outcome == "no_effect"


def test_both_full_frontal_strike_locks_without_rolling_and_logs_once() -> None:
    result = resolve(FFS, FFS)
    assert result.rolls == ()
    assert [e.clause for e in result.log].count("2.14 Attacks, Full Frontal Strike") == 1


def test_side_swipe_prevails_over_full_frontal_strike_whatever_the_stats() -> None:
    weakling = Duellist("W", 0, 0)
    result = resolve(SS, FFS, a=weakling, b=Duellist("Giant", 100, 100))
    assert result.outcome == "a_wins"
    assert result.rolls == ()
    assert any(e.clause == "2.14 Attacks, Side Swipe" for e in result.log)


def test_side_swipe_against_side_swipe_both_fail() -> None:
    result = resolve(SS, SS)
    assert result.outcome == "no_effect"
    assert "both attacks fail" in " ".join(str(e) for e in result.log)


# -- defences --------------------------------------------------------------------------


def test_lock_attempt_needs_strictly_greater_strength() -> None:
    equal = resolve(LA, SS, a=Duellist("A", 5, 1), b=Duellist("B", 1, 5))
    assert equal.outcome == "no_effect"
    assert equal.state.locked is False
    greater = resolve(LA, SS, a=Duellist("A", 6, 1), b=Duellist("B", 1, 5))
    assert greater.outcome == "locked"


def test_evade_success_cancels_the_attack_so_it_never_rolls() -> None:
    result = resolve(EV, FFS, [2])
    assert len(result.rolls) == 1
    assert "fails automatically" in " ".join(str(e) for e in result.log)


def test_evade_failure_lets_the_attack_roll() -> None:
    a = Duellist("A", 3, 3)
    b = Duellist("B", 3, 3)  # evade DICE0, strike DICE0: both 0
    result = resolve(EV, FFS, [], a=a, b=b)
    assert rolls(result) == [("a", EV, 0, 0), ("b", FFS, 0, 0)]
    assert result.outcome == "no_effect"


def test_evade_rolls_even_against_no_move() -> None:
    result = resolve(EV, None, [6])
    assert rolls(result) == [("a", EV, 6, 6)]
    assert "made no attack to evade" in " ".join(str(e) for e in result.log)


def test_evade_dice_is_agi_minus_opponent_str() -> None:
    result = resolve(EV, SS, [1], a=Duellist("A", 0, 10), b=Duellist("B", 3, 0))
    assert rolls(result) == [("a", EV, 7, 1)]
    assert "AGI 10 - STR 3" in str(result.log[0])


def test_both_defend_nothing_is_administered_and_nothing_rolls() -> None:
    result = resolve(EV, LA)
    assert result.rolls == ()
    assert result.state.locked is False
    assert result.log[0].clause == "2.14 Defences"


# -- order of rolls and labels ---------------------------------------------------------


def test_rolls_are_numbered_in_order_with_their_labels() -> None:
    result = resolve(FFS, EV, [5])
    assert [r.index for r in result.rolls] == [0, 1]
    assert [r.label for r in result.rolls] == [
        "duel:7:round:3:roll:0",
        "duel:7:round:3:roll:1",
    ]
    assert [r.purpose for r in result.rolls] == [EV, FFS]  # B's defence before A's attack


# -- retreat, priorities and the lock --------------------------------------------------


def test_win_counts_before_a_lock() -> None:
    a = Duellist("A", 8, 1)
    b = Duellist("B", 5, 2)  # B's lock succeeds (5 > 1); A strikes with DICE6
    result = resolve(FFS, LA, [6], a=a, b=b)
    assert result.outcome == "a_wins"
    assert result.state.locked is True


def test_retreat_counts_before_a_lock() -> None:
    result = resolve(LA, RT)
    assert result.outcome == "b_retreats"
    assert result.state.locked is True
    assert result.ended is True


def test_struck_down_duellist_has_not_retreated() -> None:
    result = resolve(FFS, RT, [2])
    assert "struck down before the retreat" in " ".join(str(e) for e in result.log)


def test_lock_persists_in_the_state_but_the_outcome_is_locked_only_when_made() -> None:
    first = resolve(FFS, FFS)
    assert first.outcome == "locked"
    second = RULE_2_14.resolve(first.state, {"a": SS, "b": SS}, ScriptedDice([]))
    assert second.outcome == "no_effect"
    assert second.state.locked is True
    assert second.state.locked is True
    third = RULE_2_14.resolve(second.state, {"a": FFS, "b": FFS}, ScriptedDice([]))
    assert third.outcome == "locked"


def test_locked_duellist_may_retreat_by_default() -> None:
    result = resolve(RT, SS, locked=True)
    assert result.outcome == "a_retreats"


def test_locked_blocks_retreat_from_an_earlier_lock() -> None:
    opts = Options(locked_blocks_retreat=True)
    result = resolve(RT, SS, locked=True, options=opts)
    assert result.outcome == "no_effect"
    assert result.ended is False
    assert any("retreat fails" in str(e) for e in result.log)
    both = resolve(RT, RT, locked=True, options=opts)
    assert both.outcome == "no_effect"


def test_locked_blocks_retreat_from_a_lock_made_this_round() -> None:
    result = resolve(LA, RT, options=Options(locked_blocks_retreat=True))
    assert result.outcome == "locked"
    assert result.ended is False


def test_locked_blocks_retreat_does_nothing_when_unlocked() -> None:
    result = resolve(SS, RT, options=Options(locked_blocks_retreat=True))
    assert result.outcome == "b_retreats"


# -- missing moves ---------------------------------------------------------------------


def test_missing_move_none_is_just_no_move() -> None:
    result = resolve(None, FFS, [3], a=Duellist("A", 0, 5), b=Duellist("B", 8, 0))
    assert rolls(result) == [("b", FFS, 3, 3)]
    assert result.outcome == "b_wins"
    assert "sent no move by the close" in str(result.log[0])


def test_both_missing_with_none_policy() -> None:
    result = resolve(None, None)
    assert result.outcome == "no_effect"


def test_missing_move_forfeit() -> None:
    result = resolve(None, SS, options=Options(missing_move="forfeit"))
    assert result.outcome == "b_wins"
    assert result.winner == "b"
    assert result.rolls == ()
    assert any(e.clause == "duelbot missing_move = forfeit" for e in result.log)
    result = resolve(EV, None, options=Options(missing_move="forfeit"))
    assert result.outcome == "a_wins"
    assert result.rolls == ()


def test_forfeit_beats_the_winners_own_retreat() -> None:
    result = resolve(None, RT, options=Options(missing_move="forfeit"))
    assert result.outcome == "b_wins"
    text = " ".join(str(e) for e in result.log)
    assert "struck down" not in text
    assert "already won" in text


def test_both_missing_under_forfeit_nobody_forfeits() -> None:
    result = resolve(None, None, options=Options(missing_move="forfeit"))
    assert result.outcome == "no_effect"
    assert "nobody forfeits" in " ".join(str(e) for e in result.log)


# -- validation ------------------------------------------------------------------------


def test_unknown_move_is_rejected() -> None:
    with pytest.raises(InvalidChoice, match="Allowed"):
        resolve("kick", SS)


def test_ended_duel_does_not_resolve() -> None:
    state = DuelState(a=STRONG, b=WEAK, ended=True, winner="a")
    with pytest.raises(InvalidRoundInput):
        RULE_2_14.resolve(state, {"a": SS, "b": SS}, ScriptedDice([]))


def test_bad_missing_move_option() -> None:
    with pytest.raises(InvalidRoundInput, match="missing_move"):
        Options(missing_move="explode")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("FFS", FFS),
        ("full frontal strike", FFS),
        ("Side-Swipe", SS),
        ("ss", SS),
        (" Lock Attempt ", LA),
        ("lock", LA),
        ("EV", EV),
        ("flee", RT),
        ("retreat", RT),
    ],
)
def test_parse_move_short_forms(text: str, move: str) -> None:
    assert parse_move(text) == move


def test_parse_move_rejects_nonsense() -> None:
    with pytest.raises(InvalidChoice, match="full_frontal_strike"):
        parse_move("kick")


def test_every_log_clause_is_documented() -> None:
    import random
    from pathlib import Path

    from bot.rules.dice import RandomDice

    doc = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "rule-2.14.md").read_text(
        encoding="utf-8"
    )
    rng = random.Random(214)
    seen: set[str] = set()
    moves = (*MOVE_IDS, None)
    for _ in range(3000):
        a = Duellist("A", rng.randint(-2, 9), rng.randint(-2, 9))
        b = Duellist("B", rng.randint(-2, 9), rng.randint(-2, 9))
        opts = Options(rng.choice(("none", "forfeit")), rng.random() < 0.5)
        result = RULE_2_14.resolve(
            DuelState(a, b, locked=rng.random() < 0.3),
            {"a": rng.choice(moves), "b": rng.choice(moves)},
            RandomDice(rng),
            opts,
        )
        seen.update(e.clause for e in result.log)
    assert len(seen) == 9
    for clause in seen:
        assert f"`{clause}`" in doc, clause
