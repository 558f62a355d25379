"""By This Axe duels: every clause with scripted dice, sheets, parsing, the challenge and
exact odds (checked against an independent every-face reference)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import registry
from bot.rules.base import Fighter, RoundResult, Side
from bot.rules.by_this_axe.allotments import Allotment, legal_allotments
from bot.rules.by_this_axe.challenge import challenge
from bot.rules.by_this_axe.odds import round_joint, round_odds, unsaved_hits_distribution
from bot.rules.by_this_axe.ruleset import BY_THIS_AXE
from bot.rules.by_this_axe.sheet import Combatant
from bot.rules.by_this_axe.state import DuelState, Options, forfeit_dice
from bot.rules.by_this_axe.tables import (
    CHARACTERS,
    FLEE,
    OUTCOMES,
    POOLS,
    RULESET_ID,
    describe_outcome,
)
from bot.rules.dice import FairDice, RandomDice, ScriptedDice, enumerate_outcomes
from bot.rules.errors import InvalidChoice, InvalidRoundInput, InvalidStats, RulesError
from tests.rules.by_this_axe_reference import reference_joint, reference_outcomes

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
R = BY_THIS_AXE


def fighter(name: str, character: str = "hero", **sheet: Any) -> Fighter:
    return Fighter(name, {"character": character, **sheet})


def duel(
    a: Fighter | None = None,
    b: Fighter | None = None,
    *,
    round_no: int = 1,
    **params: Any,
) -> DuelState:
    # These tests are of the rounds without the victim's step (forfeit = victim-chooses,
    # the default, has its own tests in test_house_rules.py): parry first unless named.
    if not {"forfeit", "trick_takes"} & set(params):
        params["forfeit"] = "parry-first"
    state = R.initial_state(a or fighter("Conan"), b or fighter("Kull"), params)
    return DuelState(
        a=state.a, b=state.b, round_no=round_no, allot_all=state.allot_all,
        flight=state.flight, forfeit=state.forfeit,
    )


def resolve(
    state: DuelState,
    a: str | None,
    b: str | None,
    script: Sequence[int] = (),
    options: Options | None = None,
) -> RoundResult:
    dice = ScriptedDice(script, duel_id=3, round_no=state.round_no)
    result = R.resolve(state, {"a": a, "b": b}, dice, options or Options())
    assert dice._next == len(script), "the script was not used up"
    return result


def rolls(result: RoundResult) -> list[tuple[str, str, int]]:
    return [(r.side, r.purpose, r.value) for r in result.rolls]


def log(result: RoundResult) -> list[str]:
    return [str(e) for e in result.log]


# -- registry, sheets -----------------------------------------------------------------------


def test_registered_under_its_id() -> None:
    assert registry.get(RULESET_ID) is R
    assert RULESET_ID == "by-this-axe"
    assert [f.name for f in R.sheet_fields] == ["character", "armor_save", "wounds", "leader"]


def test_dice_pools_by_character() -> None:
    assert POOLS == {
        "hero": 4, "superhero": 8, "champion": 12, "priest": 3, "mage": 3,
        "high_priest": 6, "wizard": 6,
    }


@pytest.mark.parametrize(
    ("character", "save"),
    [("hero", 5), ("superhero", 5), ("champion", 5), ("priest", 6), ("high_priest", 6),
     ("mage", 0), ("wizard", 0)],
)
def test_default_armor_save_by_type(character: str, save: int) -> None:
    assert R.validate_sheet({"character": character}) == {
        "character": character, "armor_save": save, "wounds": 1, "leader": False,
    }


@pytest.mark.parametrize(
    ("sheet", "clean"),
    [
        ({"character": "High Priest"}, {"character": "high_priest"}),
        ({"character": " HERO "}, {"character": "hero"}),
        ({"character": "high-priest"}, {"character": "high_priest"}),
        ({"character": "hero", "armor_save": 7}, {"armor_save": 0}),
        ({"character": "wizard", "armor_save": 4}, {"armor_save": 4}),
        ({"character": "hero", "armor_save": "3"}, {"armor_save": 3}),
        ({"character": "hero", "wounds": 3}, {"wounds": 3}),
        ({"character": "hero", "leader": True}, {"leader": True}),
        ({"character": "hero", "leader": "yes"}, {"leader": True}),
        ({"character": "hero", "leader": "no"}, {"leader": False}),
    ],
)
def test_sheet_normalisation(sheet: dict[str, Any], clean: dict[str, Any]) -> None:
    got = R.validate_sheet(sheet)
    assert {k: got[k] for k in clean} == clean


@pytest.mark.parametrize(
    ("sheet", "needles"),
    [
        ({}, ["character must be one of", "hero (4 dice)", "champion (12 dice)"]),
        ({"character": "orc"}, ["character", "'orc'"]),
        ({"character": "hero", "armor_save": 1}, ["armor_save", "1 would save every hit"]),
        ({"character": "hero", "armor_save": 8}, ["armor_save", "between 0 and 7"]),
        ({"character": "hero", "armor_save": True}, ["armor_save", "whole number"]),
        ({"character": "hero", "wounds": 0}, ["wounds", "between 1 and 99"]),
        ({"character": "hero", "wounds": 2.5}, ["wounds", "whole number"]),
        ({"character": "hero", "leader": "maybe"}, ["leader", "true or false"]),
    ],
)
def test_sheet_errors_name_the_field(sheet: dict[str, Any], needles: list[str]) -> None:
    with pytest.raises(InvalidStats) as err:
        R.validate_sheet(sheet)
    for needle in needles:
        assert needle in err.value.message


def test_initial_state_and_round_trip() -> None:
    state = R.initial_state(
        fighter("Conan", "champion", wounds=2, leader=True),
        fighter("Thoth", "wizard"),
        {"allot_all": True, "trick_takes": "attack_first"},
    )
    assert state.round_no == 1 and state.allot_all and state.forfeit == "attack-first"
    assert state.a == Combatant("Conan", "champion", 5, 2, True, 0)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["a"]["pool"] == 12 and data["round"] == 1
    assert R.state_from_dict(data) == state


@pytest.mark.parametrize(
    "params", [{"allot_all": "maybe"}, {"allot_all": 2}, {"trick_takes": "random"}]
)
def test_bad_params(params: dict[str, Any]) -> None:
    # A bool is parsed by its type (true/false/yes/no/1/0): anything else is refused.
    with pytest.raises(RulesError):
        R.initial_state(fighter("A"), fighter("B"), params)


def test_make_options_reads_missing_move_and_ignores_the_rest() -> None:
    assert R.make_options({}) == Options("none")
    assert R.make_options({"missing_move": "forfeit", "other": 1}) == Options("forfeit")
    assert R.make_options({"missing_move": "weird"}) == Options("none")


# -- choices ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "a3p1t0", "a3 p1 t0", "A3 P1 T0", "  a3  p1  t0 ", "3/1/0", "3 / 1 / 0", "3 1 0",
        "3,1,0", "3/1", "attack 3 parry 1 tricks 0", "Attack 3, Parry 1, Trick 0",
        "attack: 3 parry: 1", "ATTACK=3 PARRY=1 DIRTY TRICKS=0", "p1 a3", "a3 and p1",
        "att 3 def 1", "a３p１t０",
    ],
)
def test_parse_forms(text: str) -> None:
    assert R.parse_choice(text, duel(), "a") == "a3p1t0"


@pytest.mark.parametrize("text", ["flee", "FLEE", " Run away ", "escape", "run"])
def test_parse_flee_from_round_two(text: str) -> None:
    assert R.parse_choice(text, duel(round_no=2), "a") == FLEE
    assert R.parse_choice(text) == FLEE


def test_flee_is_refused_in_round_one() -> None:
    with pytest.raises(InvalidChoice) as err:
        R.parse_choice("flee", duel(), "a")
    assert "round 1" in err.value.message and "second round" not in err.value.message
    assert "beginning on round 2" in err.value.message


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("a0p3t1", ["at least one die must be allotted to attack", "pool of 4 dice"]),
        ("a3 t1", ["at least one die must be allotted to parry", "pool of 4 dice"]),
        ("a1p1t2", ["only one die can be allotted to dirty tricks", "pool of 4 dice"]),
        ("a3p2t0", ["5 dice allotted", "Conan (hero) has a pool of 4 dice"]),
        ("hello", ["'hello' is not an allotment", "a3 p1 t0"]),
        ("a3 a1 p1", ["names attack twice"]),
        ("attack 3 kick 1", ["'kick' is not a maneuver area"]),
        ("3/1/0/1", ["not an allotment"]),
        ("", ["not an allotment"]),
    ],
)
def test_parse_errors(text: str, needles: list[str]) -> None:
    with pytest.raises(InvalidChoice) as err:
        R.parse_choice(text, duel(), "a")
    for needle in needles:
        assert needle in err.value.message


def test_parse_without_state_checks_the_largest_pool() -> None:
    assert R.parse_choice("a10 p1 t1") == "a10p1t1"
    with pytest.raises(InvalidChoice, match="pool of 12 dice"):
        R.parse_choice("a12 p1")


def test_allot_all() -> None:
    state = duel(allot_all=True)
    assert R.parse_choice("a2p2", state, "a") == "a2p2t0"
    with pytest.raises(InvalidChoice) as err:
        R.parse_choice("a2p1", state, "a")
    assert "every die of the pool" in err.value.message and "3 dice allotted" in err.value.message


def test_moves_are_the_legal_allotments_ordered_then_flee() -> None:
    ids = [m.id for m in R.moves(duel(), "a")]
    assert ids == [
        "a3p1t0", "a2p2t0", "a1p3t0", "a2p1t1", "a1p2t1",
        "a2p1t0", "a1p2t0", "a1p1t1", "a1p1t0",
    ]
    assert R.moves(duel(), "a")[0].label == "Attack 3, Parry 1, Trick 0"
    assert R.moves(duel(), "a")[0].aliases == ("3/1/0",)
    assert [m.id for m in R.moves(duel(round_no=2), "a")][-1] == FLEE
    # Every listed move parses to itself.
    for move in R.moves(duel(round_no=2), "a"):
        assert R.parse_choice(move.id, duel(round_no=2), "a") == move.id


def test_moves_depend_on_the_side_and_allot_all() -> None:
    state = duel(fighter("A", "champion"), fighter("B", "priest"), allot_all=True)
    assert len(R.moves(state, "a")) == 21  # fits one Discord select (25)
    assert [m.id for m in R.moves(state, "b")] == ["a2p1t0", "a1p2t0", "a1p1t1"]
    for pool in set(POOLS.values()):
        every = legal_allotments(pool)
        assert len(every) == len(set(every))
        assert all(x.dice <= pool and x.attack >= 1 and x.parry >= 1 for x in every)


def test_moves_without_state_cover_every_allotment_for_labels() -> None:
    ids = {m.id for m in R.moves()}
    assert "a11p1t0" in ids and "a1p1t0" in ids and FLEE in ids
    assert R.choice_label("a3p1t0") == "Attack 3, Parry 1, Trick 0"
    assert R.choice_label(FLEE).startswith("Flee")
    assert R.choice_label(None) == "no allotment"


def test_no_moves_once_the_duel_ended() -> None:
    result = resolve(duel(), "a1p1t0", None, [1, 6, 1], Options())
    assert result.ended
    assert R.moves(result.state, "a") == ()
    with pytest.raises(InvalidRoundInput, match="already ended"):
        resolve(result.state, "a1p1t0", "a1p1t0")


# -- a round, clause by clause ----------------------------------------------------------------


def test_attacks_parries_and_armor_saves() -> None:
    # A: 3 attack dice 1,4,2 = 2 hits; B: 2 attack dice 6,3 = 1 hit; A parries 5 (none);
    # B parries 1,6 (one): 1 hit lands on each. A saves on 5; B rolls 4 against 5: wounded.
    result = resolve(duel(), "a3p1t0", "a2p2t0", [1, 4, 2, 6, 3, 5, 1, 6, 5, 4])
    assert rolls(result) == [
        ("a", "attack", 1), ("a", "attack", 4), ("a", "attack", 2),
        ("b", "attack", 6), ("b", "attack", 3),
        ("a", "parry", 5), ("b", "parry", 1), ("b", "parry", 6),
        ("a", "armor_save", 5), ("b", "armor_save", 4),
    ]
    assert result.outcome == "a_wins" and result.winner == "a" and result.ended
    assert result.state.b.wounds_taken == 1 and result.state.a.wounds_taken == 0
    lines = log(result)
    assert "By This Axe, Reveal: Conan reveals Attack 3, Parry 1, Trick 0" in lines
    assert "By This Axe, Attacks: Conan rolls 3 dice (1, 4, 2): 2 hits (1-3)" in lines
    assert "By This Axe, Parries: Kull rolls 2 dice (1, 6): 1 parry success (1-3)" in lines
    assert any(line.startswith("By This Axe, Armor saves: Kull saves on 5-6 (Heroic +1 "
                               "ignored)") for line in lines)
    assert lines[-1] == "By This Axe, Duels (rounds): Kull is defeated: Conan wins the duel"
    assert result.choices == {"a": "a3p1t0", "b": "a2p2t0"}


def test_no_save_rolls_nothing() -> None:
    state = duel(fighter("Thoth", "wizard"), fighter("Kull"))
    result = resolve(state, "a1p1t0", "a1p1t0", [6, 1, 6, 6])
    assert result.outcome == "b_wins"
    assert "armor_save" not in [r.purpose for r in result.rolls]
    assert "By This Axe, Armor saves: Thoth has no armor save: 1 hit unsaved" in log(result)


def test_counterattack_when_parries_exceed_incoming_hits() -> None:
    # A: attack 4 (miss); B: 1, 5 (one hit); A parries 1, 2, 6 (two) > 1 hit: counter 2 hits;
    # B's parries 6, 6. B saves the counter with a 6.
    result = resolve(duel(), "a1p3t0", "a2p2t0", [4, 1, 5, 1, 2, 6, 6, 6, 2, 6])
    assert rolls(result)[-2:] == [("a", "counterattack", 2), ("b", "armor_save", 6)]
    assert result.outcome == "continue" and result.state.round_no == 2
    assert any(line.startswith("By This Axe, Counterattack: Conan has more parry successes "
                               "(2) than incoming hits (1)") for line in log(result))
    # The same with an unsaved counter: B is defeated.
    result = resolve(duel(), "a1p3t0", "a2p2t0", [4, 1, 5, 1, 2, 6, 6, 6, 2, 3])
    assert result.outcome == "a_wins"


def test_equal_parries_and_hits_give_no_counterattack() -> None:
    # One hit each way, one parry success each: all negated, 1 is not more than 1.
    result = resolve(duel(), "a1p1t0", "a1p1t0", [1, 1, 1, 1])
    assert "counterattack" not in [r.purpose for r in result.rolls]
    assert result.outcome == "continue"


def test_a_counterattack_cannot_be_parried_and_both_can_fall() -> None:
    # No hits either way; all parries succeed: both counter, both hit, no saves (mages).
    state = duel(fighter("Thoth", "mage"), fighter("Rasp", "mage"))
    result = resolve(state, "a1p2t0", "a1p2t0", [5, 5, 1, 1, 1, 1, 1, 1])
    assert [r.purpose for r in result.rolls][-2:] == ["counterattack", "counterattack"]
    assert result.outcome == "both_defeated" and result.winner is None and result.ended


def test_dirty_trick_takes_parry_dice_first() -> None:
    result = resolve(duel(), "a2p1t1", "a2p2t0", [2, 6, 6, 6, 6, 6])
    assert rolls(result)[0] == ("a", "dirty_trick", 2)
    assert [r.purpose for r in result.rolls] == [
        "dirty_trick", "attack", "attack", "attack", "attack", "parry",
    ]
    assert any("Kull forfeits 0 attack and 2 parry dice for the round (parry first, then "
               "attack): Attack 2, Parry 0" in line for line in log(result))


def test_dirty_trick_never_goes_below_zero_and_can_take_attack_dice() -> None:
    assert forfeit_dice(Allotment(3, 1, 0), "parry_first") == Allotment(2, 0, 0)
    assert forfeit_dice(Allotment(1, 1, 1), "parry_first") == Allotment(0, 0, 1)
    assert forfeit_dice(Allotment(2, 2, 0), "attack_first") == Allotment(0, 2, 0)
    assert forfeit_dice(Allotment(1, 3, 0), "attack_first") == Allotment(0, 2, 0)
    assert forfeit_dice(Allotment(0, 0, 0), "parry_first") == Allotment(0, 0, 0)


def test_dirty_trick_attack_first_param() -> None:
    state = duel(trick_takes="attack_first")
    result = resolve(state, "a2p1t1", "a2p2t0", [1, 6, 6, 6, 6, 6])
    # B keeps no attack dice: only A's two attack dice and both parries roll.
    assert [(r.side, r.purpose) for r in result.rolls] == [
        ("a", "dirty_trick"), ("a", "attack"), ("a", "attack"), ("a", "parry"),
        ("b", "parry"), ("b", "parry"),
    ]


def test_dirty_trick_fails_on_3_to_6() -> None:
    result = resolve(duel(), "a2p1t1", "a2p2t0", [3, 6, 6, 6, 6, 6, 6, 6])
    assert "By This Axe, Dirty tricks: Conan rolls 3: no effect (3-6)" in log(result)
    assert len(result.rolls) == 8


def test_both_dirty_tricks_are_rolled_first_and_both_take_effect() -> None:
    # A's trick 1, B's trick 2: A -> a1p0, B -> a1p0; both hit; A saves, B does not.
    result = resolve(duel(), "a2p1t1", "a1p2t1", [1, 2, 1, 1, 6, 1])
    assert rolls(result) == [
        ("a", "dirty_trick", 1), ("b", "dirty_trick", 2), ("a", "attack", 1),
        ("b", "attack", 1), ("a", "armor_save", 6), ("b", "armor_save", 1),
    ]
    assert result.outcome == "a_wins"


def test_wounds_accumulate_across_rounds() -> None:
    state = duel(fighter("Conan", "champion", wounds=2, armor_save=0), fighter("Kull"))
    first = resolve(state, "a1p1t0", "a1p1t0", [6, 1, 6, 6])
    assert first.outcome == "continue" and not first.ended
    assert first.state.a.wounds_taken == 1 and first.state.round_no == 2
    assert "duelbot wounds: Conan takes 1 wound (1 of 2): still standing" in log(first)
    restored = R.state_from_dict(json.loads(json.dumps(first.state.to_dict())))
    second = resolve(restored, "a1p1t0", "a1p1t0", [6, 1, 6, 6])
    assert second.outcome == "b_wins" and second.state.a.wounds_taken == 2


def test_flee_succeeds_on_1_to_3_and_the_fleer_makes_no_attack_or_parry() -> None:
    # B hits twice; A (fleeing) has no parry; A saves both (5, 6) and rolls 3 to flee.
    state = duel(round_no=2, flight="after-blows")
    result = resolve(state, "flee", "a2p2t0", [1, 1, 6, 6, 5, 6, 3])
    assert [(r.side, r.purpose) for r in result.rolls] == [
        ("b", "attack"), ("b", "attack"), ("b", "parry"), ("b", "parry"),
        ("a", "armor_save"), ("a", "armor_save"), ("a", "flee"),
    ]
    assert result.outcome == "a_flees" and result.winner is None and result.ended
    assert "By This Axe, Duels (flight): Conan rolls 3: flees the duel (1-3)" in log(result)


def test_flee_fails_on_4_to_6() -> None:
    result = resolve(duel(round_no=2, flight="after-blows"), "flee", "a1p1t0", [6, 6, 4])
    assert result.outcome == "continue" and result.state.round_no == 3


def test_a_fleer_can_be_counterattacked() -> None:
    result = resolve(duel(round_no=2, flight="after-blows"), "flee", "a1p1t0", [6, 1, 2, 6, 1])
    assert [r.purpose for r in result.rolls] == [
        "attack", "parry", "counterattack", "armor_save", "flee",
    ]
    assert result.outcome == "a_flees"


def test_a_defeated_fleer_does_not_roll_to_flee() -> None:
    result = resolve(duel(round_no=2, flight="after-blows"), "flee", "a2p1t0", [1, 1, 6, 1, 6])
    assert "flee" not in [r.purpose for r in result.rolls]
    assert result.outcome == "b_wins"
    assert "By This Axe, Duels (flight): Conan is defeated before getting away: no flee roll" in (
        log(result)
    )


@pytest.mark.parametrize(
    ("script", "outcome"),
    [([1, 2], "both_flee"), ([1, 4], "a_flees"), ([5, 3], "b_flees"), ([5, 6], "continue")],
)
def test_both_flee(script: list[int], outcome: str) -> None:
    result = resolve(duel(round_no=2), "flee", "flee", script)
    assert [(r.side, r.purpose) for r in result.rolls] == [("a", "flee"), ("b", "flee")]
    assert result.outcome == outcome


def test_resolve_refuses_flee_in_round_one_and_bad_ids() -> None:
    with pytest.raises(InvalidChoice):
        resolve(duel(), "flee", "a1p1t0")
    with pytest.raises(InvalidChoice):
        resolve(duel(), "a4p1t0", "a1p1t0")


def test_missing_allotment_is_no_dice_by_default() -> None:
    result = resolve(duel(), None, "a1p1t0", [1, 6, 2])
    assert rolls(result) == [("b", "attack", 1), ("b", "parry", 6), ("a", "armor_save", 2)]
    assert result.outcome == "b_wins"
    assert result.choices == {"a": None, "b": "a1p1t0"}
    assert log(result)[1].startswith("duelbot missing allotment: Conan sent no allotment")


def test_missing_allotment_forfeits_when_the_option_says_so() -> None:
    result = resolve(duel(), None, "a1p1t0", [], Options("forfeit"))
    assert result.outcome == "b_wins" and result.rolls == () and result.ended
    both = resolve(duel(), None, None, [], Options("forfeit"))
    assert both.outcome == "continue" and both.rolls == ()


def test_fair_dice_labels_are_reproducible() -> None:
    state = duel(fighter("Conan", "champion"), fighter("Kull", "superhero"))
    choices: dict[Side, str | None] = {"a": "a6p5t1", "b": "a4p3t1"}
    one = R.resolve(state, choices, FairDice(SEED, 9, 1), Options())
    two = R.resolve(state, choices, FairDice(SEED, 9, 1), Options())
    assert one.to_dict() == two.to_dict()
    assert [r.label for r in one.rolls] == [
        f"duel:9:round:1:roll:{k}" for k in range(len(one.rolls))
    ]
    json.dumps(one.to_dict())


STEP = {"dirty_trick": 0, "attack": 1, "parry": 2, "counterattack": 3, "armor_save": 4,
        "flee": 5}


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from(CHARACTERS),
       st.sampled_from(CHARACTERS), st.booleans())
def test_rolls_follow_the_documented_order(
    rng: random.Random, ca: str, cb: str, later: bool
) -> None:
    state = duel(fighter("A", ca), fighter("B", cb), round_no=2 if later else 1)
    moves = {s: [m.id for m in R.moves(state, s)] for s in ("a", "b")}
    choices: dict[Side, str | None] = {
        "a": rng.choice([*moves["a"], None]), "b": rng.choice([*moves["b"], None]),
    }
    result = R.resolve(state, choices, RandomDice(rng), Options())
    # Before the blows (the default), the flee dice come first.
    keys = [(-1 if r.purpose == "flee" else STEP[r.purpose], r.side) for r in result.rolls]
    assert keys == sorted(keys)
    assert result.outcome in OUTCOMES
    assert (result.outcome == "continue") != result.ended


# -- the challenge ------------------------------------------------------------------------------


LEADER = fighter("Lord Hrolf", "champion", leader=True)
FOOT = fighter("Grim", "hero")
CHALLENGER = fighter("Conan")


def test_challenge_accepted() -> None:
    got = challenge(CHALLENGER, LEADER, True, True, True, ScriptedDice([]))
    assert (got.outcome, got.duel, got.declined, got.leadership_lost, got.roll) == (
        "accepted", True, False, False, None,
    )


def test_a_leaders_first_refusal_costs_leadership_for_the_turn() -> None:
    got = challenge(CHALLENGER, LEADER, False, False, True, ScriptedDice([]))
    assert got.outcome == "refused" and got.declined and got.leadership_lost and not got.duel
    assert any("loses all leadership value for this turn only" in str(e) for e in got.log)
    assert str(got.log[1]).startswith("By This Axe, Duels (refusal)")


def test_later_refusals_are_free_and_non_leaders_lose_nothing() -> None:
    later = challenge(CHALLENGER, LEADER, False, False, False, ScriptedDice([]))
    assert later.declined and not later.leadership_lost
    assert "without penalty" in str(later.log[-1])
    foot = challenge(CHALLENGER, FOOT, False, False, True, ScriptedDice([]))
    assert foot.declined and not foot.leadership_lost


@pytest.mark.parametrize("value", [1, 2, 3])
def test_a_duel_is_forced_on_1_to_3_when_units_are_in_contact(value: int) -> None:
    got = challenge(CHALLENGER, LEADER, False, True, True, ScriptedDice([value]))
    assert got.outcome == "forced" and got.duel and not got.declined
    assert not got.leadership_lost  # the refusal does not stand
    assert got.roll is not None and (got.roll.side, got.roll.purpose) == ("a", "force_duel")
    json.dumps(got.to_dict())


@pytest.mark.parametrize("value", [4, 5, 6])
def test_a_failed_force_leaves_the_refusal_standing(value: int) -> None:
    got = challenge(CHALLENGER, LEADER, False, True, True, ScriptedDice([value]))
    assert got.outcome == "refused" and got.leadership_lost and got.roll is not None


def test_no_force_roll_without_contact_or_when_not_attempted() -> None:
    assert challenge(CHALLENGER, FOOT, False, False, False, ScriptedDice([])).roll is None
    got = challenge(CHALLENGER, FOOT, False, True, False, ScriptedDice([]),
                    attempt_force=False)
    assert got.roll is None and got.outcome == "refused"


# -- exact odds ---------------------------------------------------------------------------------


def test_unsaved_hits_by_hand() -> None:
    # One attack die each way, one parry each; no save. Direct: hit and no parry = 1/4.
    # Counter: my parry succeeds (1/2) and their attack missed (1/2), then hits (1/2) = 1/8.
    dist = unsaved_hits_distribution(
        {"character": "hero"}, {"character": "mage"}, "a1p1t0", "a1p1t0"
    )
    assert dist == {0: Fraction(21, 32), 1: Fraction(5, 16), 2: Fraction(1, 32)}
    # A save on 5 keeps each landed hit with chance 2/3.
    saved = unsaved_hits_distribution(
        {"character": "mage"}, {"character": "hero"}, "a1p1t0", "a1p1t0"
    )
    assert saved[2] == Fraction(1, 32) * Fraction(2, 3) ** 2


def test_unsaved_hits_errors() -> None:
    with pytest.raises(InvalidChoice, match="pool of 3 dice"):
        unsaved_hits_distribution({"character": "priest"}, {"character": "hero"},
                                  "a3p1", "a1p1")
    with pytest.raises(InvalidStats):
        unsaved_hits_distribution({"character": "orc"}, {"character": "hero"}, "a1p1", "a1p1")


def test_flee_allots_nothing_in_the_odds() -> None:
    dist = unsaved_hits_distribution({"character": "hero"}, {"character": "hero"},
                                     "flee", "a3p1t0")
    assert dist == {0: Fraction(1)}


small_character = st.sampled_from(("priest", "mage", "hero"))
armor = st.sampled_from((0, 2, 3, 4, 5, 6, 7))
any_character = st.sampled_from(CHARACTERS)


def _pick(draw: st.DrawFn, character: str, flee_ok: bool) -> str:
    options = [x.id for x in legal_allotments(POOLS[character])]
    return draw(st.sampled_from([*options, FLEE] if flee_ok else options))


@st.composite
def matchups(draw: st.DrawFn, characters: st.SearchStrategy[str] = small_character) -> Any:
    ca, cb = draw(characters), draw(characters)
    sheets = [
        {"character": c, "armor_save": draw(armor), "wounds": draw(st.integers(1, 3))}
        for c in (ca, cb)
    ]
    taken = [draw(st.integers(0, s["wounds"] - 1)) for s in sheets]
    round_no = draw(st.sampled_from((1, 2)))
    takes = draw(st.sampled_from(("parry-first", "attack-first")))
    flight = draw(st.sampled_from(("before-blows", "after-blows")))
    a = Combatant.from_sheet("A", sheets[0])
    b = Combatant.from_sheet("B", sheets[1])
    state = DuelState(
        a=Combatant(a.name, a.character, a.armor_save, a.wounds, wounds_taken=taken[0]),
        b=Combatant(b.name, b.character, b.armor_save, b.wounds, wounds_taken=taken[1]),
        round_no=round_no,
        forfeit=takes,
        flight=flight,
    )
    return state, _pick(draw, ca, round_no >= 2), _pick(draw, cb, round_no >= 2)


def _allot(choice: str) -> tuple[int, int, int] | str:
    if choice == FLEE:
        return FLEE
    x = Allotment(*(int(n) for n in choice[1:].replace("p", " ").replace("t", " ").split()))
    return (x.attack, x.parry, x.tricks)


@settings(max_examples=60, deadline=None)
@given(matchups())
def test_exact_odds_equal_the_every_face_reference(m: Any) -> None:
    state, a, b = m
    got = R.outcome_distribution(state, {"a": a, "b": b}, Options())
    want = reference_outcomes(
        _allot(a), _allot(b), state.a.armor_save, state.b.armor_save,
        state.a.wounds - state.a.wounds_taken, state.b.wounds - state.b.wounds_taken,
        parry_first=state.forfeit == "parry-first",
        flee_first=state.flight == "before-blows",
    )
    assert got == want
    assert sum(got.values()) == 1


@settings(max_examples=40, deadline=None)
@given(matchups())
def test_unsaved_hits_equal_the_reference_joint(m: Any) -> None:
    state, a, b = m
    a_dice = _allot(a)
    b_dice = _allot(b)
    a_t = (0, 0, 0) if a_dice == FLEE else a_dice
    b_t = (0, 0, 0) if b_dice == FLEE else b_dice
    assert not isinstance(a_t, str) and not isinstance(b_t, str)
    ref = reference_joint(a_t, b_t, state.a.armor_save, state.b.armor_save,
                          parry_first=state.forfeit == "parry-first")
    joint = round_joint(state.a, state.b, Allotment(*a_t), Allotment(*b_t), state.forfeit)
    assert joint == {k: v for k, v in ref.items() if v}
    odds = round_odds(state, a, b)
    # Before the blows, a fleer who gets away (1 in 2) ends the round with no hit at all.
    reached = Fraction(1)
    if state.flight == "before-blows":
        reached = Fraction(1, 2 ** sum(1 for x in (a, b) if x == FLEE))
    on_b: dict[int, Fraction] = {0: 1 - reached}
    for (_, y), p in ref.items():
        on_b[y] = on_b.get(y, Fraction(0)) + p * reached
    assert odds.on_b == {k: v for k, v in sorted(on_b.items()) if v}
    assert sum(odds.on_a.values()) == 1 and sum(odds.on_b.values()) == 1


@settings(max_examples=15, deadline=None)
@given(matchups(st.sampled_from(("priest", "mage"))))
def test_class_based_enumeration_of_resolve_equals_the_counting(m: Any) -> None:
    state, a, b = m
    choices: dict[Side, str | None] = {"a": a, "b": b}
    enumerated = enumerate_outcomes(
        lambda dice: R.resolve(state, choices, dice, Options()).outcome, R.roll_classes
    )
    assert {k: v for k, v in enumerated.items() if v} == R.outcome_distribution(
        state, choices, Options()
    )


SWAP = {"a_wins": "b_wins", "b_wins": "a_wins", "a_flees": "b_flees", "b_flees": "a_flees"}


@settings(max_examples=40, deadline=None)
@given(matchups(any_character))
def test_swapping_sides_mirrors_the_odds(m: Any) -> None:
    state, a, b = m
    swapped = DuelState(a=state.b, b=state.a, round_no=state.round_no,
                        forfeit=state.forfeit, flight=state.flight)
    one = R.outcome_distribution(state, {"a": a, "b": b}, Options())
    two = R.outcome_distribution(swapped, {"a": b, "b": a}, Options())
    assert {SWAP.get(k, k): v for k, v in one.items()} == two
    assert sum(one.values()) == 1
    forward = round_odds(state, a, b)
    backward = round_odds(swapped, b, a)
    assert forward.on_a == backward.on_b and forward.on_b == backward.on_a


def test_outcome_distribution_with_a_forfeit_and_on_an_ended_duel() -> None:
    assert R.outcome_distribution(duel(), {"a": None, "b": "a1p1"}, Options("forfeit")) == {
        "b_wins": Fraction(1)
    }
    ended = resolve(duel(), None, "a1p1t0", [], Options("forfeit")).state
    with pytest.raises(InvalidRoundInput):
        R.outcome_distribution(ended, {"a": "a1p1", "b": "a1p1"}, Options())


def test_the_largest_pools_are_cheap() -> None:
    state = duel(fighter("A", "champion", wounds=3), fighter("B", "champion", wounds=3))
    for a, b in (("a6p5t1", "a5p6t1"), ("a11p1t0", "a1p10t1")):
        dist = R.outcome_distribution(state, {"a": a, "b": b}, Options())
        assert sum(dist.values()) == 1


def test_every_outcome_has_a_sentence() -> None:
    for outcome in OUTCOMES:
        assert describe_outcome(outcome, "Conan", "Kull") != outcome
    assert describe_outcome("a_wins", "Conan", "Kull") == "Kull is defeated: Conan wins the duel"
