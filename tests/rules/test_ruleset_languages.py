"""Each ruleset speaks the reader's language (issue 28): its words, labels, sentences and
errors come from its package's catalog, read when they are asked for, in the scope of the
code that asks (bot/i18n/context.py ``speaking``). Outside a German scope the English is
unchanged, to the byte (posts, exports and the published format rely on it)."""

from __future__ import annotations

from typing import Any

import pytest

import bot  # noqa: F401  (installs the catalogs' lookup for the rules: bot/__init__.py)
from bot.i18n.context import speaking
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.dice import FairDice
from bot.rules.errors import RulesError
from bot.rules.terms import Fighter, RulesetWords

SEED = "00" * 32

FOEQ_SHEET: dict[str, Any] = {"hp": 20, "hp_max": 20, "hit_dice": 3, "spell_slots": [2, 1]}
SHEETS: dict[str, dict[str, Any]] = {
    "rule-2.14": {"str": 5, "agi": 4},
    "foeq-spell-duel": FOEQ_SHEET,
    "by-this-axe": {"character": "hero"},
}
#: A move of side b in the first round (step) of each ruleset.
FIRST_MOVE = {"rule-2.14": "evade", "foeq-spell-duel": "pride quick 0", "by-this-axe": "a2p2t0"}
#: (English, German) of the sentence when Ann sends nothing and Bob moves, under
#: missing_move = forfeit: Bob wins.
FORFEITED = {
    "rule-2.14": ("Bob wins the duel", "Bob gewinnt das Duell"),
    "foeq-spell-duel": ("Bob wins the duel", "Bob gewinnt das Duell"),
    "by-this-axe": (
        "Ann is defeated: Bob wins the duel", "Ann ist besiegt: Bob gewinnt das Duell"
    ),
}
#: (round, move) nouns in German.
NOUNS = {
    "rule-2.14": ("Runde", "Zug"),
    "foeq-spell-duel": ("Schritt", "Ansage"),
    "by-this-axe": ("Runde", "Zuteilung"),
}
TITLES = {
    "rule-2.14": ("Rule 2.14 Duelling", "Regel 2.14 Duelle"),
    "foeq-spell-duel": ("FoEQ spell duel", "FoEQ-Zauberduell"),
    "by-this-axe": ("By This Axe duels", "By-This-Axe-Duelle"),
}
#: A short form a member types, and its canonical id.
TYPED = {
    "rule-2.14": ("FFS", "full_frontal_strike"),
    "foeq-spell-duel": ("eye", "eye_of_the_beholder"),
    "by-this-axe": ("3/1/0", "a3p1t0"),
}
IDS = list(SHEETS)


def forfeited_round(rules: Ruleset) -> Any:
    state = rules.initial_state(
        Fighter("Ann", SHEETS[rules.id]), Fighter("Bob", SHEETS[rules.id]), {}
    )
    options = rules.make_options({"missing_move": "forfeit"})
    return rules.resolve(
        state, {"a": None, "b": FIRST_MOVE[rules.id]}, FairDice(SEED, 1, 1), options
    )


@pytest.mark.parametrize("ruleset_id", IDS)
def test_a_resolved_rounds_sentence_is_german_in_german_and_english_outside(
    ruleset_id: str,
) -> None:
    rules = registry.get(ruleset_id)
    result = forfeited_round(rules)
    english, german = FORFEITED[ruleset_id]
    assert result.outcome == "b_wins"
    with speaking("de"):
        assert rules.describe_outcome(result) == german
        assert rules.outcome_sentence(result.outcome, "Ann", "Bob") == german
    assert rules.describe_outcome(result) == english
    with speaking("en"):
        assert rules.describe_outcome(result.to_dict()) == english


@pytest.mark.parametrize("ruleset_id", IDS)
def test_the_words_are_read_in_the_scope_that_asks(ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    words = rules.words  # read here, outside every scope: English
    english_round, english_move = words.round.one, words.move.one
    round_de, move_de = NOUNS[ruleset_id]
    with speaking("de"):
        german = rules.words
        assert (german.round.one, german.move.one) == (round_de, move_de)
        assert rules.title == TITLES[ruleset_id][1]
        step = rules.step_words(None, 3)
        assert (step.label, step.round, step.move) == (f"{round_de} 3", round_de, move_de)
        assert rules.round_label(None, 3) == f"{round_de} 3"
    assert rules.title == TITLES[ruleset_id][0]
    assert (rules.words.round.one, rules.words.move.one) == (english_round, english_move)
    assert rules.words == words
    assert rules.step_words(None, 3).label == f"{english_round} 3"


@pytest.mark.parametrize("ruleset_id", IDS)
def test_labels_help_and_errors_are_german_in_german(ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    english = [m.label for m in rules.moves()]
    english_help = [f.help for f in rules.sheet_fields]
    with speaking("de"):
        german = [m.label for m in rules.moves()]
        german_help = [f.help for f in rules.sheet_fields]
        with pytest.raises(RulesError) as refused:
            rules.parse_choice("zzz")
    assert german != english and len(german) == len(english)
    assert german_help != english_help
    assert " ist kein" in refused.value.message
    with pytest.raises(RulesError) as in_english:
        rules.parse_choice("zzz")
    assert " is not a" in in_english.value.message
    # What members type stays as it is in every language.
    typed, canonical = TYPED[ruleset_id]
    with speaking("de"):
        assert rules.parse_choice(typed) == canonical


def test_rule_2_14_in_german_and_in_english() -> None:
    rules = registry.get("rule-2.14")
    state = rules.initial_state(Fighter("Ann", {"str": 5, "agi": 4}),
                                Fighter("Bob", {"str": 5, "agi": 4}), {})
    choices = {"a": "full_frontal_strike", "b": "full_frontal_strike"}
    with speaking("de"):
        result = rules.resolve(state, choices, FairDice(SEED, 1, 1), rules.make_options({}))
    data = result.to_dict()
    # The adjudication log is in the scope's language (tests/rules/test_log_languages.py);
    # everything else of the result is the same in every language.
    english = rules.resolve(state, choices, FairDice(SEED, 1, 1), rules.make_options({}))
    assert {**data, "log": None} == {**english.to_dict(), "log": None}
    assert data["log"][0].startswith("2.14 Angriffe, Frontalangriff: beide Duellanten")
    assert english.to_dict()["log"][0].startswith(
        "2.14 Attacks, Full Frontal Strike: both duellists"
    )
    with speaking("de"):
        assert rules.describe_outcome(data) == (
            "Die Duellanten sind im Kampf gebunden; das Duell geht weiter"
        )
        assert rules.result_facts(data) == [("Im Kampf gebunden", "ja")]
        assert rules.status_notes(data["state"]) == ("im Kampf gebunden",)
        assert rules.choice_label("full_frontal_strike") == "Frontalangriff"
        assert rules.choice_label(None) == "kein Zug"
        assert [r.help for r in rules.house_rules()] == [
            "ein im Kampf gebundener Duellant kann sich nicht zurückziehen: der Rückzug scheitert"
        ]
    assert rules.describe_outcome(data) == "The duellists are locked in combat; the duel goes on"
    assert rules.result_facts(data) == [("Locked in combat", "yes")]
    assert rules.status_notes(data["state"]) == ("locked in combat",)
    assert rules.choice_label("full_frontal_strike") == "Full Frontal Strike"


def test_foeq_setup_its_notes_and_prompts_in_german() -> None:
    rules = registry.get("foeq-spell-duel")
    state = rules.initial_state(Fighter("Ann", FOEQ_SHEET), Fighter("Bob", FOEQ_SHEET),
                                {"public_stake": "pride"})
    with speaking("de"):
        prompt = rules.prompt(state, "a")
        result = rules.resolve(state, {"a": "pride quick 0", "b": "death weird 1"},
                               FairDice(SEED, 1, 1), rules.make_options({}))
        sentence = rules.describe_outcome(result)
        notes = rules.private_notes(result)
        summary = rules.fighter_summary({**FOEQ_SHEET, "schools": ["necromancy"]})
    assert prompt is not None and prompt.startswith("Vorbereitung: wähle deinen wahren Einsatz")
    assert "Der öffentliche Einsatz ist Stolz" in prompt
    assert sentence == (
        "Einsätze, Stile und Zauberplätze sind geheim gewählt; das Blickduell beginnt"
    )
    assert notes["a"] == [
        "Deine geheime Wahl: wahrer Einsatz Stolz, Stil Schnell, Zauberplatz-Grad 0 "
        "(ein Zaubertrick)."
    ]
    assert notes["b"] == [
        "Deine geheime Wahl: wahrer Einsatz Tod, Stil Seltsam, Zauberplatz-Grad 1."
    ]
    assert ("TP", "20/20") in summary and ("Schulen", "Nekromantie") in summary
    # English, as before.
    assert rules.describe_outcome(result) == (
        "Stakes, Styles and spell slots chosen in secret; the Stare begins"
    )
    english = rules.fighter_summary({**FOEQ_SHEET, "schools": ["necromancy"]})
    assert ("HP", "20/20") in english and ("Schools", "necromancy") in english
    assert rules.prompt(state, "a").startswith("Setup: choose your true stake")  # type: ignore[union-attr]


def test_by_this_axe_challenge_and_summary_in_german() -> None:
    rules = registry.get("by-this-axe")
    steps = rules.pre_duel_steps()  # type: ignore[attr-defined]
    with speaking("de"):
        (challenge,) = rules.pre_duel_steps()  # type: ignore[attr-defined]
        outcome = rules.run_pre_duel_step(  # type: ignore[attr-defined]
            "challenge", Fighter("Ann", {"character": "hero"}),
            Fighter("Bob", {"character": "hero", "leader": True}),
            {"accepted": False, "contact": False}, FairDice(SEED, 1, 1),
        )
        summary = rules.fighter_summary({"character": "hero", "armor_save": 0, "wounds": 2,
                                         "wounds_taken": 1, "leader": True})
        label = rules.choice_label("forfeit:a1p1")
    assert challenge.title == "Herausforderung"
    assert challenge.headline_for("Ann", "Bob") == "Ann fordert Bob heraus"
    assert outcome.sentence == "Bob lehnt die Herausforderung ab: kein Duell"
    assert [p.sentence for p in outcome.penalties] == [
        "Bob verliert für diesen Zug seine Anführerschaft"
    ]
    assert summary == [
        ("Charakter", "Held (4 Würfel)"),
        ("Rüstungswurf", "kein Rüstungswurf"),
        ("Wunden", "1 von 2 erlitten"),
        ("Anführer", "ja"),
    ]
    assert label == "1 Angriffswürfel und 1 Paradewürfel abgeben"
    assert steps[0].title == "Challenge" and steps[0].headline_for("A", "B") == "A challenges B"
    assert rules.choice_label("forfeit:a1p1") == "Forfeit 1 attack die and 1 parry die"
    assert rules.choice_label("forfeit:a2p0") == "Forfeit 2 attack dice"


def test_neutral_words_and_a_plug_ins_words_without_a_catalog() -> None:
    neutral = RulesetWords()
    with speaking("de"):
        german = neutral.translated()
        assert (german.round.one, german.move.many) == ("Runde", "Züge")
        assert german.translated() == german  # plain strings: read as they are
        plain = RulesetWords(ending={"a_wins": "{a} scores the touch"}, text=None)
        assert plain.translated().ending_sentence("a_wins", "Ann", "Bob") == (
            "Ann scores the touch"
        )
    assert (neutral.round.one, neutral.move.many) == ("round", "moves")
    assert neutral.translated() == neutral
