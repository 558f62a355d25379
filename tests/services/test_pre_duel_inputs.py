"""The inputs of a pre-duel step as declared: validated per kind with answers that say what
was wrong and what is allowed; their union over rulesets (the command's options) refuses a
key declared two ways; the registry finds the rulesets declaring a step; the capability."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.rules import registry
from bot.rules.dice import ScriptedDice
from bot.rules.terms import Fighter, PreDuel, PreDuelInput, PreDuelOutcome, PreDuelStep
from bot.services.challenges import CHALLENGE_STEP_ID, challenge_inputs
from bot.services.errors import InvalidInput
from bot.services.pre_duel_inputs import step_of, union_of_inputs, validated_inputs
from tests.rulesets.fencing import FENCING, RULESET_ID
from tests.rulesets.fencing_challenge import CHALLENGING_FENCING, GLOVE

AXE = registry.get("by-this-axe")


@pytest.fixture
def glove() -> Iterator[None]:
    registry.register(CHALLENGING_FENCING)
    try:
        yield
    finally:
        registry.unregister(RULESET_ID)


def test_values_are_parsed_as_declared_and_defaults_filled() -> None:
    got = validated_inputs(CHALLENGING_FENCING, GLOVE, {"accepted": "yes", "stake": "4"})
    assert got == {"accepted": True, "weapon": "foil", "stake": 4}
    got = validated_inputs(CHALLENGING_FENCING, GLOVE, {"accepted": False, "weapon": "SABRE"})
    assert got == {"accepted": False, "weapon": "sabre", "stake": 1}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "The glove (Fencing Bout) needs accepted (glove taken up): yes or no."),
        ({"accepted": "maybe"}, "accepted (glove taken up) must be yes or no, not 'maybe'."),
        (
            {"accepted": True, "weapon": "axe"},
            "weapon (weapon) must be one of foil, epee, sabre, not 'axe'.",
        ),
        (
            {"accepted": True, "stake": 9},
            "stake (crowns staked) must be a whole number from 1 to 5, not 9.",
        ),
        (
            {"accepted": True, "stake": True},
            "stake (crowns staked) must be a whole number from 1 to 5, not True.",
        ),
        (
            {"accepted": True, "contact": False},
            "The glove (Fencing Bout) does not take contact. It takes: accepted (yes or no), "
            "weapon (one of foil, epee, sabre), stake (a whole number from 1 to 5).",
        ),
    ],
)
def test_bad_input_is_refused_saying_what_is_allowed(
    given: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        validated_inputs(CHALLENGING_FENCING, GLOVE, given)
    assert refused.value.message == message


def test_an_input_not_given_is_not_an_unknown_one() -> None:
    # A front end offering the union passes None for another ruleset's option left empty.
    got = validated_inputs(AXE, step_of(AXE, "challenge"), {"accepted": True, "weapon": None})
    assert got == {"accepted": True, "contact": False}


def test_the_union_shares_a_key_and_is_required_only_when_every_step_requires_it() -> None:
    lenient = PreDuelStep("challenge", "Call", "", inputs=(
        PreDuelInput("accepted", "bool", "accepted", "Accepted?"),
    ))
    union = union_of_inputs([(AXE, step_of(AXE, "challenge")), (FENCING, lenient)])
    assert [(spec.key, spec.required) for spec in union] == [
        ("accepted", False), ("contact", False)
    ]
    union = union_of_inputs([(AXE, step_of(AXE, "challenge")), (CHALLENGING_FENCING, GLOVE)])
    assert [spec.key for spec in union] == ["accepted", "contact", "weapon", "stake"]
    assert union[0].required and union[0].help == "Did the challenged accept?"


def test_the_union_refuses_one_key_declared_two_ways_or_a_key_of_the_command() -> None:
    clash = PreDuelStep("challenge", "Call", "", inputs=(
        PreDuelInput("contact", "choice", "contact", "Which contact?", choices=("near", "far")),
    ))
    with pytest.raises(ValueError, match=r"'contact' is bool \(yes or no\) for by-this-axe but "
                                         r"choice \(one of near, far\) for fencing-bout"):
        union_of_inputs([(AXE, step_of(AXE, "challenge")), (FENCING, clash)])
    own = PreDuelStep("challenge", "Call", "", inputs=(
        PreDuelInput("ruleset", "bool", "ruleset", "?"),
    ))
    with pytest.raises(ValueError, match="declares the input 'ruleset', which the command"):
        union_of_inputs([(FENCING, own)], ("challenger", "challenged", "ruleset"))


def test_the_registry_finds_the_rulesets_declaring_a_step(glove: None) -> None:
    assert registry.with_pre_duel_step(CHALLENGE_STEP_ID) == (AXE, CHALLENGING_FENCING)
    assert registry.with_pre_duel_step("salute") == ()
    assert [spec.key for spec in challenge_inputs()] == ["accepted", "contact", "weapon", "stake"]
    assert isinstance(CHALLENGING_FENCING, PreDuel) and isinstance(AXE, PreDuel)


def test_without_the_test_ruleset_only_by_this_axe_declares_the_challenge() -> None:
    assert registry.with_pre_duel_step(CHALLENGE_STEP_ID) == (AXE,)
    assert [spec.key for spec in challenge_inputs()] == ["accepted", "contact"]


def test_by_this_axe_reports_its_penalty_and_reads_it_back() -> None:
    king, duke = Fighter("King", {"character": "hero"}), Fighter(
        "Duke", {"character": "champion", "leader": True}
    )
    first = AXE.run_pre_duel_step(
        "challenge", king, duke, {"accepted": False, "contact": False}, ScriptedDice([])
    )
    assert isinstance(first, PreDuelOutcome) and not first.fought
    assert first.sentence == "Duke refuses the challenge: no duel"
    assert [(p.key, p.side, p.sentence) for p in first.penalties] == [
        ("refusals", "b", "Duke loses his leadership for this turn")
    ]
    later = AXE.run_pre_duel_step(
        "challenge", king, duke, {"accepted": False, "contact": False}, ScriptedDice([]),
        remembered={"b": frozenset({"refusals"})},
    )
    assert later.penalties == () and "without penalty" in str(later.log[-1])
    forced = AXE.run_pre_duel_step(
        "challenge", king, duke, {"accepted": False, "contact": True}, ScriptedDice([2])
    )
    assert forced.fought and forced.roll is not None and forced.roll.value == 2
    assert forced.sentence == "Duke refuses, but King forces the duel on a 2 (units in contact)"
    assert forced.to_dict()["penalties"] == [] and forced.to_dict()["fought"] is True
