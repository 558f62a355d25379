"""The FoEQ spell duel (bot/rules/foeq.py) against docs/rules/foeq-spell-duel.md."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import registry
from bot.rules.base import SIDES, Fighter, RoundResult, Side
from bot.rules.dice import FairDice, RandomDice, ScriptedDice
from bot.rules.errors import InvalidChoice, InvalidHouseRule, InvalidRoundInput, InvalidStats
from bot.rules.foeq.phases import awaiting_sides, is_secret, private_notes
from bot.rules.foeq.ruleset import FOEQ
from bot.rules.foeq.state import Corner, FoeqState, Options
from bot.rules.foeq.tables import RULESET_ID, STARE, STARE_MOVE_IDS, STYLES

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


def sheet(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "initiative": 0,
        "spell_attack": 0,
        "sleight_of_hand": 0,
        "performance": 0,
        "deception": 0,
        "intimidation": 0,
        "perception": 0,
        "insight": 0,
        "arcana": 0,
        "investigation": 0,
        "hp": 20,
        "hp_max": 20,
        "hit_dice": 3,
        "spell_slots": [2, 1],
        "schools": [],
    }
    base.update(overrides)
    return base


def start(
    public_stake: str = "pride",
    a: Mapping[str, Any] | None = None,
    b: Mapping[str, Any] | None = None,
) -> FoeqState:
    return FOEQ.initial_state(
        Fighter("Alice", a or sheet()),
        Fighter("Bob", b or sheet()),
        {"public_stake": public_stake, "challenger": "a"},
    )


def step(
    state: FoeqState,
    choices: Mapping[Side, str | None],
    script: Sequence[int] = (),
    options: Options | None = None,
) -> RoundResult:
    dice = ScriptedDice(script, duel_id=5, round_no=state.step + 1)
    result = FOEQ.resolve(state, choices, dice, options)
    assert dice._next == len(script), "the script was not used up"
    return result


def text(result: RoundResult) -> str:
    return "\n".join(str(e) for e in result.log)


def rolls(result: RoundResult) -> list[tuple[str, str, int, int]]:
    return [(r.side, r.purpose, r.sides, r.value) for r in result.rolls]


def at_stare_second(
    a_move: str,
    corner_a: Corner | None = None,
    corner_b: Corner | None = None,
    stare_round: int = 1,
    **sheets: Any,
) -> FoeqState:
    """A declared ``a_move`` first; B is to declare."""
    state = start(**sheets)
    return replace(
        state,
        corner_a=replace(corner_a or Corner("pride", "quick", 1, 1, 1), move=a_move),
        corner_b=corner_b or Corner("pride", "weird", 0, 1, 1),
        phase="stare_second",
        awaiting=("b",),
        public=True,
        stare_round=stare_round,
        first="a",
    )


def before_shot(
    corner_a: Corner, corner_b: Corner, a: Mapping[str, Any] | None = None,
    b: Mapping[str, Any] | None = None, public_stake: str = "pride",
) -> FoeqState:
    """The last Stare round's style decision by A: keeping it goes straight to the Shot."""
    state = start(public_stake, a, b)
    return replace(
        state, corner_a=corner_a, corner_b=corner_b, phase="stare_style",
        awaiting=("a",), public=False, stare_round=3, first="a",
    )


def neutral_reply(move: str) -> str:
    """A Move for B with no Strong Against relation either way."""
    for other in STARE_MOVE_IDS:
        if other != move and STARE[move].strong_against != other and (
            STARE[other].strong_against != move
        ):
            return other
    raise AssertionError(move)


# -- registry, sheets, params ---------------------------------------------------------


def test_registered_under_its_id() -> None:
    assert RULESET_ID == "foeq-spell-duel"
    assert registry.get(RULESET_ID) is FOEQ


def test_sheet_fields_and_defaults() -> None:
    names = [f.name for f in FOEQ.sheet_fields]
    assert names == [
        "initiative", "spell_attack", "sleight_of_hand", "performance", "deception",
        "intimidation", "perception", "insight", "arcana", "investigation", "hp", "hp_max",
        "hit_dice", "spell_slots", "free_cast_levels", "schools",
    ]
    clean = FOEQ.validate_sheet({"hp_max": 12, "spell_slots": {"3": 1}, "schools": "Illusion"})
    assert clean["hp"] == 12
    assert clean["spell_slots"] == [0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert clean["schools"] == ["illusion"]
    assert clean["arcana"] == 0


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({}, "hp_max"),
        ({"hp_max": 10, "hp": 11}, "hp"),
        ({"hp_max": 10, "arcana": "3"}, "arcana"),
        ({"hp_max": 10, "schools": ["pyromancy"]}, "schools"),
        ({"hp_max": 10, "spell_slots": [1] * 10}, "spell_slots"),
        ({"hp_max": 10, "spell_slots": {"10": 1}}, "spell_slots"),
        ({"hp_max": 10, "hit_dice": -1}, "hit_dice"),
        ({"hp_max": 10, "initiative": True}, "initiative"),
    ],
)
def test_bad_sheets_name_the_field(bad: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidStats, match=field):
        FOEQ.validate_sheet(bad)


def test_params_public_stake_and_challenger() -> None:
    state = FOEQ.initial_state(
        Fighter("A", sheet()), Fighter("B", sheet()),
        {"public_stake": "First Blood", "challenger": "b"},
    )
    assert (state.public_stake, state.challenger) == ("first_blood", "b")
    assert start().public_stake == "pride"
    # Refused by the one normalisation (normalize_params), naming the allowed values.
    with pytest.raises(InvalidHouseRule, match="pride, first_blood, death"):
        FOEQ.initial_state(Fighter("A", sheet()), Fighter("B", sheet()), {"public_stake": "x"})
    with pytest.raises(InvalidHouseRule, match="a, b"):
        FOEQ.initial_state(Fighter("A", sheet()), Fighter("B", sheet()), {"challenger": "c"})


def test_make_options() -> None:
    assert FOEQ.make_options({"missing_move": "forfeit", "other": 1}) == Options("forfeit")
    assert FOEQ.make_options({}) == Options("none")


# -- setup -----------------------------------------------------------------------------


def test_initial_state_awaits_both_secretly() -> None:
    state = start()
    assert state.phase == "setup"
    assert awaiting_sides(state) == ("a", "b") == FOEQ.awaiting_sides(state)
    assert is_secret(state) and FOEQ.is_secret(state)


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("stake=death;style=quick;slot=1", "stake=death;style=quick;slot=1"),
        ("death quick 1", "stake=death;style=quick;slot=1"),
        ("Quick, DEATH, level 1", "stake=death;style=quick;slot=1"),
        ("first blood wierd cantrip", "stake=first_blood;style=weird;slot=0"),
        ("First-Blood / Weird / 0", "stake=first_blood;style=weird;slot=0"),
        ("pride disruptive 2nd", "stake=pride;style=disruptive;slot=2"),
        ("stake: pride, style: steadfast, slot: 0", "stake=pride;style=steadfast;slot=0"),
    ],
)
def test_setup_parser_is_forgiving(typed: str, canonical: str) -> None:
    state = start()
    assert FOEQ.parse_choice(typed, state, "a") == canonical


def test_wierd_and_weird_are_one_style() -> None:
    state = start()
    assert FOEQ.parse_choice("pride wierd 0", state, "a") == FOEQ.parse_choice(
        "pride weird 0", state, "a"
    )
    assert "weird" in STYLES and "wierd" not in STYLES


@pytest.mark.parametrize(
    "typed", ["death quick", "death 1", "quick 1", "death pride quick 1", "death quick 1 2",
              "death quick 1 sword", ""],
)
def test_setup_needs_each_part_once(typed: str) -> None:
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice(typed, start(), "a")


def test_slot_level_must_be_available_and_free_casting_allows_more() -> None:
    state = start(a=sheet(spell_slots=[2, 0, 1]), b=sheet(free_cast_levels=[5]))
    levels = {spec.id for spec in FOEQ.setup_parts(state, "a")["slot"]}
    assert levels == {"0", "1", "3"}
    with pytest.raises(InvalidChoice, match="level 2"):
        FOEQ.parse_choice("pride quick 2", state, "a")
    with pytest.raises(InvalidChoice, match="level 4"):
        FOEQ.parse_choice("pride quick 4", state, "a")
    assert FOEQ.parse_choice("pride quick 5", state, "b").endswith("slot=5")
    menu = {m.id for m in FOEQ.moves(state, "a")}
    assert len(menu) == 3 * 5 * 3
    assert "stake=death;style=weird;slot=3" in menu


def test_setup_is_secret_and_rolls_the_first_initiative() -> None:
    result = step(
        start(), {"a": "death quick 1", "b": "pride weird 0"}, [5, 15]
    )
    assert result.outcome == "setup"
    assert result.choices == {"a": "secret", "b": "secret"}
    assert rolls(result) == [("a", "stare1_initiative", 20, 5), ("b", "stare1_initiative", 20, 15)]
    state = result.state
    assert (state.corner_a.stake, state.corner_a.style, state.corner_a.slot) == (
        "death", "quick", 1,
    )
    assert state.phase == "stare_first" and state.awaiting == ("a",) and state.public
    notes = private_notes(result)
    assert "Death" in notes["a"][0] and "Quick" in notes["a"][0]
    assert "Pride" in notes["b"][0] and "Weird" in notes["b"][0]
    log = text(result)
    for secret in ("Death", "Quick", "Weird", "slot level 1"):
        assert secret not in log


def test_secret_steps_publish_nothing_that_depends_on_the_secret() -> None:
    one = step(start(), {"a": "death quick 1", "b": "pride weird 0"}, [5, 15])
    two = step(start(), {"a": "pride steadfast 0", "b": "first_blood disruptive 1"}, [5, 15])
    assert (text(one), rolls(one), one.choices, one.outcome) == (
        text(two), rolls(two), two.choices, two.outcome,
    )


def test_choices_from_sides_not_awaited_are_refused() -> None:
    state = step(start(), {"a": "death quick 1", "b": "pride weird 0"}, [5, 15]).state
    with pytest.raises(InvalidRoundInput):
        FOEQ.resolve(state, {"b": "bluff"}, ScriptedDice([]), None)
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice("bluff", state, "b")
    assert FOEQ.moves(state, "b") == ()


# -- initiative --------------------------------------------------------------------------


def test_initiative_lower_declares_first_then_higher() -> None:
    state = step(start(), {"a": "death quick 1", "b": "pride weird 0"}, [15, 5]).state
    assert state.awaiting == ("b",) and state.first == "b"
    second = step(state, {"b": "bluff"})
    assert second.outcome == "declared" and second.rolls == ()
    assert second.state.phase == "stare_second" and second.state.awaiting == ("a",)
    assert "Bob declares Bluff" in text(second)


def test_initiative_adds_the_modifier() -> None:
    state = start(a=sheet(initiative=10), b=sheet(initiative=-2))
    result = step(state, {"a": "pride quick 0", "b": "pride quick 0"}, [1, 14])
    assert result.state.corner_a.initiative == 11  # 1 + 10
    assert result.state.corner_b.initiative == 12  # 14 - 2
    assert result.state.awaiting == ("a",) and result.state.first == "a"


def test_initiative_ties_are_rerolled_by_both() -> None:
    result = step(start(), {"a": "pride quick 0", "b": "pride quick 0"}, [10, 10, 7, 3, ])
    assert len(result.rolls) == 4
    assert result.state.awaiting == ("b",)
    assert "a tie at 10: both reroll" in text(result)


# -- the Stare: each Move's benefit ------------------------------------------------------

# Both start with one Trick and one Fault die. Change as (trick_a, fault_a, trick_b, fault_b).
BENEFITS = {
    "twitch": ((2, 1, 1, 1), (3, 1, 1, 1)),
    "show_off": ((2, 1, 1, 1), (2, 1, 1, 2)),
    "bluff": ((1, 1, 1, 2), (2, 1, 1, 2)),
    "the_look": ((1, 1, 1, 2), (1, 1, 1, 3)),
    "eye_of_the_beholder": ((1, 0, 1, 1), (1, 0, 1, 2)),
    "see_through_them": ((1, 1, 0, 1), (2, 1, 0, 1)),
    "sage_advice": ((1, 1, 1, 1), (1, 1, 1, 1)),
    "tactical_analysis": ((1, 1, 1, 1), (1, 1, 1, 1)),
}


@pytest.mark.parametrize("move", STARE_MOVE_IDS)
@pytest.mark.parametrize("big", [False, True])
def test_each_moves_benefit(move: str, big: bool) -> None:
    state = at_stare_second(move)
    a_roll = 16 if big else 14  # against B's 10: by 6 (5 or more) or by 4
    changes_phase = move == "sage_advice" or (move == "tactical_analysis" and big)
    script = [a_roll, 10] if changes_phase else [a_roll, 10, 2, 9]
    result = step(state, {"b": neutral_reply(move)}, script)
    assert result.outcome == "stare_a"
    after = result.state
    assert (
        after.corner_a.trick, after.corner_a.fault, after.corner_b.trick, after.corner_b.fault
    ) == BENEFITS[move][big]
    learns = move == "tactical_analysis" or (move == "sage_advice" and big)
    notes = private_notes(result)
    assert notes["b"] == []
    if learns:
        assert notes["a"] == ["Stare round 1: you learn Bob's current Style: Weird."]
        assert "learns Bob's current Style (told privately)" in text(result)
    else:
        assert notes["a"] == []
    assert "Weird" not in text(result)
    if changes_phase:
        assert after.phase == "stare_style" and after.awaiting == ("a",)
        assert is_secret(after)
        assert {m.id for m in FOEQ.moves(after, "a")} == {
            "keep", "style=steadfast", "style=overwhelming", "style=weird", "style=disruptive"
        }
    else:
        assert after.phase == "stare_first" and after.stare_round == 2
        assert after.awaiting == ("a",)  # A rolled 2 against B's 9


def test_losing_a_die_you_do_not_have() -> None:
    state = at_stare_second("see_through_them", corner_b=Corner("pride", "weird", 0, 0, 0))
    result = step(state, {"b": "bluff"}, [12, 10, 2, 9])
    assert result.state.corner_b.trick == 0
    assert "Bob has no Trick die to lose" in text(result)


def test_the_loser_of_the_check_gains_nothing() -> None:
    state = at_stare_second("twitch")
    result = step(state, {"b": "show_off"}, [3, 10, 2, 9])
    assert result.outcome == "stare_b"
    assert (result.state.corner_a.trick, result.state.corner_b.trick) == (1, 2)


def test_the_check_adds_the_moves_skill() -> None:
    state = at_stare_second("bluff", a=sheet(deception=7), b=sheet(insight=1))
    result = step(state, {"b": "see_through_them"}, [5, 10, 2, 9])
    assert "rolls d20 5 +7 = 12" in text(result)
    assert "rolls d20 10 +1 = 11" in text(result)
    assert result.outcome == "stare_a"


@pytest.mark.parametrize("move", STARE_MOVE_IDS)
def test_strong_against_gives_advantage(move: str) -> None:
    target = STARE[move].strong_against
    state = at_stare_second(move)
    if target == move:  # Tactical Analysis against itself: both have advantage
        result = step(state, {"b": target}, [3, 15, 12, 4, 2, 9])
        assert rolls(result)[:4] == [
            ("a", "stare1_check", 20, 3), ("a", "stare1_check", 20, 15),
            ("b", "stare1_check", 20, 12), ("b", "stare1_check", 20, 4),
        ]
        assert result.outcome == "stare_a"  # 15 against 12
        return
    script = [3, 15, 10] + ([] if move == "sage_advice" else [2, 9])
    result = step(state, {"b": target}, script)
    assert rolls(result)[:3] == [
        ("a", "stare1_check", 20, 3), ("a", "stare1_check", 20, 15), ("b", "stare1_check", 20, 10)
    ]
    assert "keeps 15" in text(result)
    assert "has advantage on the check" in text(result)
    assert result.outcome == "stare_a"


def test_the_opponent_strong_against_you_has_advantage() -> None:
    state = at_stare_second("bluff")
    result = step(state, {"b": "eye_of_the_beholder"}, [15, 3, 18, 2, 9])
    assert [r.side for r in result.rolls][:3] == ["a", "b", "b"]
    assert result.outcome == "stare_b"  # B keeps 18


def test_stare_ties_are_rerolled_with_advantage_again() -> None:
    state = at_stare_second("twitch")
    result = step(state, {"b": "eye_of_the_beholder"}, [10, 2, 10, 3, 11, 8, 2, 9])
    assert [r.purpose for r in result.rolls] == ["stare1_check"] * 6 + ["stare2_initiative"] * 2
    assert "a tie at 10: both duellists reroll" in text(result)
    assert result.outcome == "stare_a"


def test_style_change_is_secret() -> None:
    state = at_stare_second("sage_advice")
    state = step(state, {"b": "twitch"}, [16, 10]).state
    result = step(state, {"a": "change to overwhelming"}, [2, 9])
    assert result.state.corner_a.style == "overwhelming"
    assert result.choices == {"a": "secret", "b": None}
    assert private_notes(result)["a"] == ["You change your Style from Quick to Overwhelming."]
    assert "Overwhelming" not in text(result) and "Quick" not in text(result)
    assert result.state.phase == "stare_first" and result.state.stare_round == 2
    kept = step(state, {"a": "keep"}, [2, 9])
    assert kept.state.corner_a.style == "quick"
    assert (text(kept), rolls(kept), kept.choices) == (
        text(result), rolls(result), result.choices,
    )


def test_uncontested_move_gets_the_base_benefit_only() -> None:
    state = at_stare_second("twitch")
    result = step(state, {"b": None}, [2, 9])
    assert result.outcome == "stare_a"
    assert result.state.corner_a.trick == 2
    assert [r.purpose for r in result.rolls] == ["stare2_initiative"] * 2


def test_forfeit_of_a_declaration() -> None:
    state = at_stare_second("twitch")
    result = step(state, {"b": None}, [], Options("forfeit"))
    assert result.ended and result.winner == "a" and result.outcome == "a_wins"
    assert result.state.phase == "over" and result.state.awaiting == ()
    assert result.state.b.hp == 20


def test_forfeit_at_setup() -> None:
    result = step(start(), {"a": "pride quick 0", "b": None}, [], Options("forfeit"))
    assert result.winner == "a" and result.ended
    nobody = step(start(), {"a": None, "b": None}, [], Options("forfeit"))
    assert nobody.outcome == "no_winner" and nobody.winner is None and nobody.ended


def test_missing_setup_takes_defaults() -> None:
    result = step(start("first_blood"), {"a": "pride quick 0", "b": None}, [5, 15])
    assert (result.state.corner_b.stake, result.state.corner_b.style) == (
        "first_blood", "steadfast",
    )
    assert result.state.corner_b.slot == 0


# -- the Shot ----------------------------------------------------------------------------

# The seed's table, written out independently: style -> opponent styles giving advantage.
SOMETIMES = {
    "steadfast": {"quick", "disruptive"},
    "quick": {"overwhelming", "weird"},
    "overwhelming": {"steadfast", "disruptive"},
    "weird": {"overwhelming", "steadfast"},
    "disruptive": {"quick", "weird"},
}


@pytest.mark.parametrize("style_a", STYLES)
@pytest.mark.parametrize("style_b", STYLES)
def test_style_advantage_in_the_shot(style_a: str, style_b: str) -> None:
    state = before_shot(Corner("death", style_a, 0), Corner("death", style_b, 0))
    adv_a, adv_b = style_b in SOMETIMES[style_a], style_a in SOMETIMES[style_b]
    # initiative 1 vs 2 (A lower), then attacks: A 1 or 2 d20s, B 1 or 2 d20s
    attack_a = [5, 19] if adv_a else [19]
    attack_b = [18, 4] if adv_b else [4]
    result = step(state, {"a": "keep"}, [1, 2, *attack_a, *attack_b])
    purposes = [(r.side, r.purpose) for r in result.rolls]
    assert purposes.count(("a", "shot_attack")) == (2 if adv_a else 1)
    assert purposes.count(("b", "shot_attack")) == (2 if adv_b else 1)
    assert result.state.shot_winner == "a"  # 19 against 18 or 4
    if style_a == "disruptive":  # the Disruptive victor chooses the consequence
        assert result.state.phase == "score_choice"
    else:
        assert result.ended and result.state.b.hp == 0


def test_the_shot_reveals_styles_and_slots_and_the_higher_slot_gets_a_trick_die() -> None:
    state = before_shot(
        Corner("pride", "disruptive", 2, trick=1, fault=0),
        Corner("pride", "disruptive", 1, trick=0, fault=1),
        a=sheet(spell_attack=4),
        b=sheet(spell_attack=6, free_cast_levels=[1]),
    )
    # init A 3, B 4; attacks 10, 10; A's Trick dice (1 + 1 for the slot): 2, 5; B's Fault: 6
    result = step(state, {"a": "keep"}, [3, 4, 10, 10, 2, 5, 6])
    log = text(result)
    assert "Alice reveals the Disruptive Style and a level 2 spell slot" in log
    assert "Bob reveals the Disruptive Style and a level 1 spell cast without expending" in log
    assert "Alice expended the higher level and gains a Trick die (now 2 dice)" in log
    assert rolls(result)[4:] == [("a", "shot_trick", 6, 2), ("a", "shot_trick", 6, 5),
                                 ("b", "shot_fault", 6, 6)]
    # A: 10 + 4 + 7 = 21; B: 10 + 6 - 6 = 10.
    assert "Alice: 10 +4 + Tricks 7 - Faults 0 = 21" in log
    assert result.state.a.spell_slots[1] == 0  # A's level 2 slot is expended
    assert result.state.b.spell_slots[0] == 2  # B cast without a slot
    # Disruptive A chooses the consequence.
    assert result.state.phase == "score_choice" and result.state.awaiting == ("a",)
    assert result.outcome == "shot_a"


def test_equal_slots_give_no_trick_die() -> None:
    state = before_shot(Corner("death", "disruptive", 1), Corner("death", "disruptive", 1))
    result = step(state, {"a": "keep"}, [3, 4, 10, 9])
    assert "higher level" not in text(result)
    assert result.state.phase == "score_choice"


# Each side holds two Trick dice and two Fault dice; which of them may the style reroll?
REROLLS = {
    "steadfast": ("fault", "own"),
    "quick": ("trick", "opponent"),
    "overwhelming": ("trick", "own"),
    "weird": ("fault", "opponent"),
}


@pytest.mark.parametrize("style", STYLES)
def test_each_styles_reroll(style: str) -> None:
    state = before_shot(
        Corner("death", style, 0, trick=2, fault=2),
        Corner("death", "disruptive", 0, trick=2, fault=2),
    )
    # init: A 1, B 2 (A lower, twists first); attacks; A trick 1,2; B trick 3,4;
    # A fault 5,6; B fault 1,1.
    adv_a = "disruptive" in SOMETIMES[style]
    adv_b = style in SOMETIMES["disruptive"]
    attacks = ([10, 10] if adv_a else [10]) + ([10, 10] if adv_b else [10])
    script = [1, 2, *attacks, 1, 2, 3, 4, 5, 6, 1, 1]
    result = step(state, {"a": "keep"}, script)
    after = result.state
    if style not in REROLLS:
        assert after.phase == "score_choice"  # nobody may twist (B is Disruptive too)
        assert "Disruptive Style grants no reroll" in text(result)
        return
    assert after.phase == "shot_twist" and after.awaiting == ("a",) and after.public
    kind, whose = REROLLS[style]
    owner = "a" if whose == "own" else "b"
    values = {("a", "trick"): (1, 2), ("b", "trick"): (3, 4), ("a", "fault"): (5, 6),
              ("b", "fault"): (1, 1)}[(owner, kind)]
    menu = FOEQ.moves(after, "a")
    assert [m.id for m in menu] == ["none", f"reroll:{kind}:1", f"reroll:{kind}:2"]
    assert f"#2 ({values[1]})" in menu[2].label
    wrong = "fault" if kind == "trick" else "trick"
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice(f"reroll:{wrong}:1", after, "a")
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice(f"reroll:{kind}:3", after, "a")
    assert FOEQ.parse_choice(f"{kind} 2", after, "a") == f"reroll:{kind}:2"
    twisted = step(after, {"a": f"reroll:{kind}:2"}, [3])
    assert rolls(twisted) == [("a", "shot_twist", 6, 3)]
    dice = getattr(twisted.state.corner(owner), f"{kind}_dice")
    assert dice == (values[0], 3)
    assert twisted.ended or twisted.state.phase == "score_choice"
    declined = step(after, {"a": "none"})
    assert declined.rolls == ()
    assert getattr(declined.state.corner(owner), f"{kind}_dice") == values


def test_twists_go_in_initiative_order_lower_first() -> None:
    state = before_shot(
        Corner("death", "overwhelming", 0, trick=1), Corner("death", "steadfast", 0, fault=1),
    )
    # init A 15, B 3: B is lower and twists first. A: Overwhelming, advantage vs Steadfast.
    script = [15, 3, 10, 2, 10, 4, 5]
    result = step(state, {"a": "keep"}, script)
    assert result.state.awaiting == ("b",) and result.state.phase == "shot_twist"
    result = step(result.state, {"b": "reroll:fault:1"}, [1])
    assert result.state.awaiting == ("a",) and result.state.phase == "shot_twist"
    assert result.state.corner_b.fault_dice == (1,)
    result = step(result.state, {"a": "none"})
    assert result.ended
    # A: 10 + 4 = 14; B: 10 - 1 = 9.
    assert result.winner == "a"


def test_no_dice_to_reroll_skips_the_twist() -> None:
    state = before_shot(Corner("death", "steadfast", 0), Corner("death", "quick", 0))
    result = step(state, {"a": "keep"}, [1, 2, 10, 12, 9])
    assert result.ended
    assert "could reroll one of Alice's Fault dice, but there are none" in text(result)


# -- the Score ---------------------------------------------------------------------------


def shoot(
    stake_a: str,
    stake_b: str = "pride",
    *,
    style_a: str = "steadfast",
    a: Mapping[str, Any] | None = None,
    b: Mapping[str, Any] | None = None,
    b_wins: bool = False,
    tie: bool = False,
    public_stake: str = "pride",
    options: Options | None = None,
) -> RoundResult:
    """A Shot between A (``style_a``) and a Steadfast B, no dice held: A wins (20 vs 5)
    unless ``b_wins`` or ``tie``."""
    state = before_shot(
        Corner(stake_a, style_a, 0), Corner(stake_b, "steadfast", 0), a, b, public_stake
    )
    adv_a = "steadfast" in SOMETIMES[style_a]
    adv_b = style_a in SOMETIMES["steadfast"]
    a_roll, b_roll = (5, 20) if b_wins else (9, 9) if tie else (20, 5)
    script = [1, 2, *([a_roll, a_roll] if adv_a else [a_roll])]
    script += [b_roll, b_roll] if adv_b else [b_roll]
    return step(state, {"a": "keep"}, script, options)


def test_death() -> None:
    result = shoot("death")
    assert result.ended and result.winner == "a" and result.outcome == "a_wins"
    assert result.state.b.hp == 0
    assert result.state.a.hp == 20
    assert "Bob is reduced to 0 Hit Points (HP 20 -> 0)" in text(result)


@pytest.mark.parametrize(
    ("hp", "hp_max", "after"),
    [(20, 20, 10), (15, 21, 10), (10, 20, 10), (9, 20, 1), (1, 20, 1), (0, 20, 0), (1, 1, 1)],
)
def test_first_blood(hp: int, hp_max: int, after: int) -> None:
    result = shoot("first_blood", b=sheet(hp=hp, hp_max=hp_max))
    assert result.state.b.hp == after
    assert result.state.b.hit_dice == 3


def test_pride_loses_one_hit_die() -> None:
    result = shoot("pride")
    assert result.state.b.hit_dice == 2 and result.state.b.hp == 20
    none_left = shoot("pride", b=sheet(hit_dice=0))
    assert none_left.state.b.hit_dice == 0
    assert "Bob has no Hit Die left to lose" in text(none_left)


def test_pride_with_schools_offers_a_choice_to_the_winner() -> None:
    result = shoot("pride", a=sheet(schools=["illusion", "necromancy", "evocation"]))
    state = result.state
    assert state.phase == "score_choice" and state.awaiting == ("a",) and state.public
    assert [m.id for m in FOEQ.moves(state, "a")] == ["hit_die", "necromancy", "illusion"]
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice("death", state, "a")
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice("enchantment", state, "a")
    done = step(state, {"a": "Illusion"})
    assert done.ended and done.winner == "a"
    assert "Bob is Frightened of Alice for 10 minutes" in text(done)
    assert done.state.consequences == ("Bob is Frightened of Alice for 10 minutes",)
    assert done.state.b.hit_dice == 3
    default = step(state, {"a": None})
    assert default.state.b.hit_dice == 2


@pytest.mark.parametrize(
    ("school", "says"),
    [
        ("necromancy", "Bob is Poisoned for 1 minute"),
        ("abjuration", "one random spell or magical effect on Bob of level 0 or lower ends"),
        ("divination", "Alice learns the surface thoughts of Bob"),
        ("enchantment", "Bob is Charmed by Alice for 10 minutes"),
        ("illusion", "Bob is Frightened of Alice for 10 minutes"),
    ],
)
def test_each_pride_school(school: str, says: str) -> None:
    state = shoot("pride", a=sheet(schools=[school])).state
    done = step(state, {"a": school})
    assert says in text(done)


def test_a_loser_with_schools_gets_no_choice() -> None:
    result = shoot("pride", b=sheet(schools=["illusion"]))
    assert result.ended and result.state.b.hit_dice == 2


def test_disruptive_victor_chooses_the_consequence() -> None:
    result = shoot("pride", style_a="disruptive", a=sheet(schools=["divination"]))
    state = result.state
    assert state.phase == "score_choice"
    assert [m.id for m in FOEQ.moves(state, "a")] == [
        "hit_die", "divination", "first_blood", "death",
    ]
    done = step(state, {"a": "first blood"})
    assert done.state.b.hp == 10 and done.state.b.hit_dice == 3
    default = step(state, {"a": None})  # nothing chosen: the victor's true stake
    assert default.state.b.hit_dice == 2 and default.state.b.hp == 20


def test_the_loser_is_whoever_lost_the_shot() -> None:
    result = shoot("death", "first_blood", b_wins=True)
    assert result.winner == "b"
    assert result.state.a.hp == 10 and result.state.b.hp == 20


def test_a_tie_makes_both_suffer_the_others_stake() -> None:
    result = shoot("death", "first_blood", tie=True)
    assert result.ended and result.winner is None and result.outcome == "tie"
    assert result.state.a.hp == 10  # B's stake, First Blood
    assert result.state.b.hp == 0  # A's stake, Death
    assert "a tie at 9: both duellists suffer the stakes" in text(result)


def test_a_tie_with_pride_costs_hit_dice_without_choices() -> None:
    result = shoot("pride", "pride", style_a="disruptive", tie=True,
                   a=sheet(schools=["illusion"]))
    assert result.ended
    assert (result.state.a.hit_dice, result.state.b.hit_dice) == (2, 2)


# -- stakes revealed, dishonour ----------------------------------------------------------


def test_true_stakes_are_revealed_at_the_end() -> None:
    log = text(shoot("pride", "first_blood", public_stake="first_blood"))
    assert "Alice's true stake was Pride (the public stake: First Blood)" in log
    assert "Bob's true stake was First Blood" in log
    assert "dishonourable" not in log


def test_pride_stated_death_meant_is_dishonourable() -> None:
    log = text(shoot("death", "pride"))
    assert "dishonourable: the stated stake was Pride, but Alice shot to kill" in log
    assert "but Bob" not in log
    log = text(shoot("pride", "first_blood"))
    assert "dishonourable: the stated stake was Pride, but Bob shot to draw blood" in log


def test_a_deadlier_stake_than_first_blood_is_noted_not_called_dishonourable() -> None:
    log = text(shoot("death", public_stake="first_blood"))
    assert "dishonourable" not in log
    assert "Alice's true stake was deadlier than the public stake" in log


def test_stakes_stay_secret_until_the_end() -> None:
    state = step(start(), {"a": "death quick 1", "b": "first_blood weird 0"}, [5, 15]).state
    result = step(state, {"a": "bluff"})
    assert "Death" not in text(result) and "First Blood" not in text(result)


# -- choices, labels, parsing ---------------------------------------------------------------


def test_stateless_parsing_and_labels() -> None:
    assert FOEQ.parse_choice("Eye") == "eye_of_the_beholder"
    assert FOEQ.parse_choice("death quick 3") == "stake=death;style=quick;slot=3"
    assert FOEQ.parse_choice("keep") == "keep"
    assert FOEQ.parse_choice("reroll trick 2") == "reroll:trick:2"
    assert FOEQ.parse_choice("style=wierd") == "style=weird"
    assert FOEQ.parse_choice("first blood") == "first_blood"
    with pytest.raises(InvalidChoice):
        FOEQ.parse_choice("fireball")
    assert FOEQ.choice_label("see_through_them") == "See Through Them"
    assert FOEQ.choice_label("stake=death;style=weird;slot=0") == "Death, Weird, slot 0"
    assert FOEQ.choice_label("secret") == "(secret)"
    assert FOEQ.choice_label("reroll:fault:1") == "Reroll Fault die #1"
    assert FOEQ.choice_label(None) == "no choice"
    assert {m.id for m in FOEQ.moves()} == set(STARE_MOVE_IDS)


def test_every_listed_choice_parses_to_itself() -> None:
    state = start()
    for side in SIDES:
        for spec in FOEQ.moves(state, side):
            assert FOEQ.parse_choice(spec.id, state, side) == spec.id


def test_an_ended_duel_takes_no_more_steps() -> None:
    done = shoot("death").state
    with pytest.raises(InvalidRoundInput):
        FOEQ.resolve(done, {}, ScriptedDice([]), None)
    assert FOEQ.moves(done, "a") == ()


def test_state_from_dict_refuses_garbage() -> None:
    with pytest.raises(InvalidRoundInput):
        FOEQ.state_from_dict({"a": {}, "b": {}})
    with pytest.raises(InvalidRoundInput):
        FOEQ.state_from_dict({**start().to_dict(), "phase": "brawl"})
    with pytest.raises(InvalidRoundInput):
        FOEQ.state_from_dict({**start().to_dict(), "awaiting": ["c"]})


# -- whole duels -----------------------------------------------------------------------------


def test_a_whole_duel_step_by_step_with_scripted_dice() -> None:
    a = sheet(initiative=2, spell_attack=5, deception=4, investigation=3,
              spell_slots=[3, 2], schools=["enchantment"])
    b = sheet(initiative=1, spell_attack=6, perception=2, arcana=5, hp=18, spell_slots=[2])
    state = FOEQ.initial_state(Fighter("Alice", a), Fighter("Bob", b),
                               {"public_stake": "pride", "challenger": "b"})
    seen: list[tuple[str, tuple[Side, ...], bool]] = []

    def go(choices: Mapping[Side, str | None], script: Sequence[int]) -> RoundResult:
        nonlocal state
        seen.append((state.phase, state.awaiting, state.public))
        result = step(state, choices, script)
        assert FOEQ.state_from_dict(result.state.to_dict()) == result.state
        state = result.state
        return result

    # 1. setup; Stare round 1 initiative A 10+2=12, B 4+1=5: B declares first.
    go({"a": "pride weird 2", "b": "death quick 1"}, [10, 4])
    # 2. B: Sage Advice; 3. A: Bluff (Strong Against Sage Advice: A has advantage).
    go({"b": "sage advice"}, [])
    # A: 3, 17 keeps 17 + 4 = 21; B: 11 + 5 = 16: A by 5: B gains a Fault, A a Trick.
    # Round 2 initiative: A 1+2=3, B 9+1=10: A first.
    r = go({"a": "bluff"}, [3, 17, 11, 1, 9])
    assert r.outcome == "stare_a"
    assert (state.corner_a.trick, state.corner_b.fault) == (1, 1)
    # 4. A: Tactical Analysis; 5. B: Tactical Analysis (both with advantage).
    go({"a": "tactical analysis"}, [])
    # A: 4, 6 keeps 6 + 3 = 9; B: 2, 12 keeps 12 + 0 = 12: B by 3, learns A's Style.
    # Round 3 initiative: A 8+2=10, B 9+1=10 tie; A 15+2=17, B 2+1=3: B first.
    r = go({"b": "ta"}, [4, 6, 2, 12, 8, 9, 15, 2])
    assert r.outcome == "stare_b"
    assert private_notes(r) == {
        "a": [], "b": ["Stare round 2: you learn Alice's current Style: Weird."]
    }
    assert "Weird" not in text(r)
    # 6. B: Eye of the Beholder; 7. A: Twitch (Strong Against Eye: advantage).
    go({"b": "eye"}, [])
    # A: 19, 2 keeps 19 + 0 = 19; B: 8 + 2 = 10: A by 9: two Trick dice.
    # The Shot: initiative A 5+2=7, B 12+1=13: A twists first. A Weird, slot 2; B Quick,
    # slot 1: A gains a Trick die (4 in all). B (Quick) has advantage against Weird.
    # Attacks: A 11 + 5; B 7, 14 keeps 14 + 6. A's 4 Tricks: 1, 2, 3, 4 (+10).
    # B's Fault: 6.
    r = go({"a": "twitch"}, [19, 2, 8, 5, 12, 11, 7, 14, 1, 2, 3, 4, 6])
    assert state.corner_a.trick == 4
    assert state.phase == "shot_twist" and state.awaiting == ("a",)
    assert "standing: Alice 26; Bob 14" in text(r)
    # 8. A (Weird) rerolls B's Fault die: 6 -> 2.
    go({"a": "reroll:fault:1"}, [2])
    assert state.awaiting == ("b",)
    # 9. B (Quick) rerolls A's Trick die #4: 4 -> 1.
    r = go({"b": "reroll trick 4"}, [1])
    # A: 11 + 5 + 7 = 23; B: 14 + 6 - 2 = 18. A wins; A's stake Pride, can cast
    # Enchantment: A chooses.
    assert r.outcome == "shot_a" and state.phase == "score_choice"
    # 10. A chooses Enchantment.
    r = go({"a": "enchantment"}, [])
    assert r.ended and r.winner == "a" and state.phase == "over" and state.awaiting == ()
    assert state.b.hp == 18 and state.b.hit_dice == 3
    assert state.a.spell_slots[:2] == (3, 1) and state.b.spell_slots[0] == 1
    log = text(r)
    assert "Bob is Charmed by Alice for 10 minutes" in log
    assert "dishonourable: the stated stake was Pride, but Bob shot to kill" in log
    assert seen == [
        ("setup", ("a", "b"), False),
        ("stare_first", ("b",), True),
        ("stare_second", ("a",), True),
        ("stare_first", ("a",), True),
        ("stare_second", ("b",), True),
        ("stare_first", ("b",), True),
        ("stare_second", ("a",), True),
        ("shot_twist", ("a",), True),
        ("shot_twist", ("b",), True),
        ("score_choice", ("a",), True),
    ]


def test_fair_dice_labels_follow_the_step_number() -> None:
    state = start()
    dice = FairDice(SEED, duel_id=9, round_no=1)
    result = FOEQ.resolve(state, {"a": "pride quick 0", "b": "pride quick 0"}, dice, None)
    assert [r.label for r in result.rolls][:2] == [
        "duel:9:round:1:roll:0", "duel:9:round:1:roll:1",
    ]
    again = FOEQ.resolve(
        state, {"a": "pride quick 0", "b": "pride quick 0"}, FairDice(SEED, 9, 1), None
    )
    assert rolls(again) == rolls(result)


MAX_STEPS = 1 + 3 * 3 + 2 + 1  # setup, 3 x (two declarations + a Style), 2 twists, Score


def random_sheet(rng: random.Random) -> dict[str, Any]:
    hp_max = rng.randint(1, 60)
    return sheet(
        initiative=rng.randint(-2, 6),
        spell_attack=rng.randint(0, 11),
        **{skill: rng.randint(-1, 9) for skill in (
            "sleight_of_hand", "performance", "deception", "intimidation", "perception",
            "insight", "arcana", "investigation")},
        hp=rng.randint(0, hp_max),
        hp_max=hp_max,
        hit_dice=rng.randint(0, 10),
        spell_slots=[rng.randint(0, 3) for _ in range(rng.randint(0, 9))],
        free_cast_levels=rng.sample(range(1, 10), rng.randint(0, 2)),
        schools=rng.sample(
            ["abjuration", "conjuration", "divination", "enchantment", "evocation",
             "illusion", "necromancy", "transmutation"], rng.randint(0, 4)),
    )


def play(
    seed: int, policy: str, house: Mapping[str, str] | None = None
) -> tuple[FoeqState, list[RoundResult]]:
    """A random duel to the end; ``house``: house rules given at the start."""
    rng = random.Random(seed)
    state = FOEQ.initial_state(
        Fighter("A", random_sheet(rng)), Fighter("B", random_sheet(rng)),
        {"public_stake": rng.choice(["pride", "first_blood", "death"]),
         "challenger": rng.choice(["a", "b"]), **(house or {})},
    )
    start_state = state
    results: list[RoundResult] = []
    options = FOEQ.make_options({"missing_move": policy})
    while not state.ended:
        assert len(results) < MAX_STEPS, "the duel did not end in time"
        awaiting = awaiting_sides(state)
        # Awaiting is consistent with the phase.
        assert awaiting
        assert is_secret(state) == (state.phase in ("setup", "stare_style"))
        assert len(awaiting) == (2 if state.phase == "setup" else 1)
        for side in SIDES:
            menu = FOEQ.moves(state, side)
            assert bool(menu) == (side in awaiting)
        choices: dict[Side, str | None] = {}
        for side in awaiting:
            menu = FOEQ.moves(state, side)
            choices[side] = None if rng.random() < 0.05 else rng.choice(menu).id
        result = FOEQ.resolve(state, choices, RandomDice(rng, 1, len(results) + 1), options)
        results.append(result)
        assert result.state.step == len(results)
        # Round trip through JSON-able dicts.
        assert FOEQ.state_from_dict(result.state.to_dict()) == result.state
        # Private notes never reach the public record.
        public = "\n".join(str(e) for e in result.log) + repr(result.to_dict()["rolls"])
        for side, notes in private_notes(result).items():
            for note in notes:
                assert note not in public
                assert side in SIDES
        if state.phase in ("setup", "stare_style"):
            assert all(c in (None, "secret") for c in result.choices.values())
        state = result.state
        assert result.ended == state.ended
    assert state.phase == "over" and state.awaiting == () and state.public
    assert results[-1].outcome in ("a_wins", "b_wins", "tie", "no_winner")
    # Only hp, hit dice and slots change, never upwards.
    for side in SIDES:
        before, after = start_state.duellist(side), state.duellist(side)
        assert 0 <= after.hp <= before.hp
        assert 0 <= after.hit_dice <= before.hit_dice
        assert all(x <= y for x, y in zip(after.spell_slots, before.spell_slots, strict=True))
    winner = results[-1].winner
    if winner is not None:
        assert state.duellist(winner) == start_state.duellist(winner) or (
            state.duellist(winner).spell_slots != start_state.duellist(winner).spell_slots
        )
    return state, results


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(["none", "forfeit"]))
def test_random_duels_always_end_consistently(seed: int, policy: str) -> None:
    play(seed, policy)


def test_many_random_duels_reach_every_phase_and_outcome() -> None:
    phases: set[str] = set()
    outcomes: set[str] = set()
    for seed in range(300):
        _, results = play(seed, "none")
        outcomes.update(r.outcome for r in results)
        phases.update(r.state.phase for r in results)
    assert phases == {"stare_first", "stare_second", "stare_style", "shot_twist",
                      "score_choice", "over"}
    assert {"a_wins", "b_wins", "tie", "setup", "declared", "stare_a", "stare_b",
            "style_decided", "twist", "shot_a", "shot_b"} <= outcomes


def test_the_shot_with_sides_swapped() -> None:
    """The same Shot with A and B swapped (dice in the matching order): the mirrored result."""
    a, b = sheet(spell_attack=3), sheet(spell_attack=1)
    one = before_shot(Corner("death", "quick", 1), Corner("pride", "weird", 0), a, b)
    two = before_shot(Corner("pride", "weird", 0), Corner("death", "quick", 1), b, a)
    two = replace(two, awaiting=("a",))
    r1 = step(one, {"a": "keep"}, [1, 2, 10, 12, 10, 6])
    r2 = step(two, {"a": "keep"}, [2, 1, 12, 10, 10, 6])
    assert r1.winner == "a" and r2.winner == "b"
    assert r1.state.b.hp == r2.state.a.hp == 0
