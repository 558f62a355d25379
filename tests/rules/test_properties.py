"""Hypothesis properties of rule 2.14's exact odds, checked against an independent reference."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.dice import RandomDice, enumerate_outcomes
from bot.rules.rule_2_14.moves import MOVE_IDS, OUTCOMES
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from tests.rules.reference import reference_distribution

any_stat = st.integers(min_value=-10**6, max_value=10**6)
small_stat = st.integers(min_value=-3, max_value=9)
move_or_none = st.sampled_from((*MOVE_IDS, None))
options = st.builds(
    Options,
    missing_move=st.sampled_from(("none", "forfeit")),
    locked_blocks_retreat=st.booleans(),
)

SWAP = {
    "a_wins": "b_wins",
    "b_wins": "a_wins",
    "a_retreats": "b_retreats",
    "b_retreats": "a_retreats",
}


def nonzero(dist: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: v for k, v in dist.items() if v != 0}


@settings(max_examples=60, deadline=None)
@given(any_stat, any_stat, any_stat, any_stat, st.booleans(), options)
def test_odds_sum_to_exactly_1_and_nobody_wins_twice(
    a_str: int, a_agi: int, b_str: int, b_agi: int, locked: bool, opts: Options
) -> None:
    table = RULE_2_14.odds_table(
        Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi), opts, locked=locked
    )
    assert len(table) == 25
    for _a_move, _b_move, outcomes in table:
        assert sum(outcomes.values(), Fraction(0)) == 1
        assert all(p > 0 for p in outcomes.values())
        assert set(outcomes) <= set(OUTCOMES)
        # No move pair lets both duellists win, on any dice.
        assert not ("a_wins" in outcomes and "b_wins" in outcomes)


@settings(max_examples=200, deadline=None)
@given(small_stat, small_stat, small_stat, small_stat, move_or_none, move_or_none,
       st.booleans(), options)
def test_engine_matches_the_independent_reference(
    a_str: int,
    a_agi: int,
    b_str: int,
    b_agi: int,
    a_move: str | None,
    b_move: str | None,
    locked: bool,
    opts: Options,
) -> None:
    state = DuelState(Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi), locked=locked)
    engine = RULE_2_14.outcome_distribution(state, {"a": a_move, "b": b_move}, opts)
    expected = reference_distribution(
        (a_str, a_agi),
        (b_str, b_agi),
        a_move,
        b_move,
        locked=locked,
        missing_move=opts.missing_move,
        locked_blocks_retreat=opts.locked_blocks_retreat,
    )
    assert nonzero(engine) == nonzero(expected)


@settings(max_examples=40, deadline=None)
@given(small_stat, small_stat, small_stat, small_stat)
def test_odds_table_matches_the_reference_for_all_25_pairs(
    a_str: int, a_agi: int, b_str: int, b_agi: int
) -> None:
    table = RULE_2_14.odds_table(Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi))
    for a_move, b_move, outcomes in table:
        assert outcomes == nonzero(
            reference_distribution((a_str, a_agi), (b_str, b_agi), a_move, b_move)
        ), (a_move, b_move)


@settings(max_examples=40, deadline=None)
@given(small_stat, small_stat, small_stat, small_stat, move_or_none, move_or_none)
def test_roll_classes_equal_enumerating_every_face(
    a_str: int, a_agi: int, b_str: int, b_agi: int, a_move: str | None, b_move: str | None
) -> None:
    state = DuelState(Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi))
    choices = {"a": a_move, "b": b_move}
    every_face = enumerate_outcomes(
        lambda dice: RULE_2_14.resolve(state, choices, dice).outcome,
        lambda sides, purpose: [(face, 1) for face in range(1, sides + 1)],
    )
    assert every_face == RULE_2_14.outcome_distribution(state, choices, Options())


@settings(max_examples=60, deadline=None)
@given(any_stat, any_stat, any_stat, any_stat, move_or_none, move_or_none,
       st.booleans(), options)
def test_swapping_a_and_b_swaps_the_outcome_distribution(
    a_str: int,
    a_agi: int,
    b_str: int,
    b_agi: int,
    a_move: str | None,
    b_move: str | None,
    locked: bool,
    opts: Options,
) -> None:
    a, b = Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi)
    forward = RULE_2_14.outcome_distribution(
        DuelState(a, b, locked=locked), {"a": a_move, "b": b_move}, opts
    )
    backward = RULE_2_14.outcome_distribution(
        DuelState(b, a, locked=locked), {"a": b_move, "b": a_move}, opts
    )
    assert {SWAP.get(k, k): v for k, v in forward.items()} == backward


@settings(max_examples=200, deadline=None)
@given(any_stat, any_stat, any_stat, any_stat, move_or_none, move_or_none,
       st.booleans(), options, st.integers(0, 2**32))
def test_a_single_round_is_consistent(
    a_str: int,
    a_agi: int,
    b_str: int,
    b_agi: int,
    a_move: str | None,
    b_move: str | None,
    locked: bool,
    opts: Options,
    rng_seed: int,
) -> None:
    state = DuelState(Duellist("A", a_str, a_agi), Duellist("B", b_str, b_agi), locked=locked)
    result = RULE_2_14.resolve(
        state, {"a": a_move, "b": b_move}, RandomDice(random.Random(rng_seed)), opts
    )
    assert result.outcome in OUTCOMES
    wins = [e for e in result.log if e.text.endswith("wins the duel")]
    assert len(wins) == (1 if result.winner else 0)
    assert (result.outcome == f"{result.winner}_wins") == (result.winner is not None)
    assert result.ended == (result.outcome not in ("locked", "no_effect"))
    assert result.state.locked == (locked or result.outcome == "locked" or result.state.locked)
    if result.outcome == "locked":
        assert result.state.locked
    assert len(result.rolls) <= 2
    for k, roll in enumerate(result.rolls):
        assert roll.index == k
        if roll.sides <= 0:
            assert roll.value == 0
        else:
            assert 1 <= roll.value <= roll.sides
