"""By This Axe's adjudication log in German (issue 28): every line through the package's
catalog, its dice still read by ``log_dice_pattern`` (the same values as the English log's
and the rolls, in Python and, when node is installed, in JavaScript as the archive page
runs it), English logs, those published before included, read as they did, and the roll
purposes and character types in the reader's words."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from bot.i18n.context import speaking
from bot.rules.base import Fighter, RoundResult
from bot.rules.by_this_axe.challenge import challenge
from bot.rules.by_this_axe.choices import legal_moves
from bot.rules.by_this_axe.ruleset import BY_THIS_AXE
from bot.rules.by_this_axe.state import DuelState, Options
from bot.rules.by_this_axe.tables import CHARACTERS
from bot.rules.capabilities import VerifiableDice
from bot.rules.dice import FairDice, ScriptedDice

R = BY_THIS_AXE
PATTERN = R.log_dice_pattern

#: English words that never stand in a German log line (names and house-rule ids aside).
ENGLISH = re.compile(
    r"\b(?:rolls?|dice|the|and|of|on|no|hits?|saves?|saved|unsaved|wins|takes|wounds?"
    r"|reveals|forfeits?|defeated|flees?|parry|parries|attack|attacks|round|duel)\b"
)


def _lines(result: RoundResult) -> list[str]:
    return [str(e) for e in result.log]


def _duels(count: int, seed: int) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
    """``count`` duels, each as the rounds to resolve: (state, choices, dice, options), the
    choices drawn from the legal moves (sometimes none), every house rule and option."""
    rng = random.Random(seed)
    for duel in range(count):
        a = Fighter(rng.choice(["anna", ""]), {
            "character": rng.choice(CHARACTERS), "wounds": rng.randint(1, 3)})
        b = Fighter("bernd", {"character": rng.choice(CHARACTERS), "wounds": rng.randint(1, 3)})
        params = {
            "flight": rng.choice(["before-blows", "after-blows"]),
            "forfeit": rng.choice(["parry-first", "attack-first", "victim-chooses"]),
        }
        options = Options(missing_move=rng.choice(["none", "forfeit"]))
        fair = f"{seed:032x}{duel:032x}"
        state: DuelState = R.initial_state(a, b, params)
        rounds: list[tuple[Any, ...]] = []
        for number in range(1, 15):
            if state.ended:
                break
            choices: dict[str, str | None] = {}
            for side in ("a", "b"):
                moves = legal_moves(state, side)
                choices[side] = rng.choice(moves).id if moves and rng.random() > 0.07 else None
            rounds.append((state, choices, (fair, duel, number), options))
            state = R.resolve(state, choices, FairDice(fair, duel, number), options).state
        yield fair, rounds


def _resolved(language: str | None, rnd: tuple[Any, ...]) -> RoundResult:
    state, choices, (fair, duel, number), options = rnd
    with speaking(language):
        return R.resolve(state, choices, FairDice(fair, duel, number), options)


def test_the_pattern_is_common_to_python_and_javascript() -> None:
    assert PATTERN is not None
    re.compile(PATTERN)
    for construct in ("(?P<", "(?<=", "(?<!", "(?<", "(?i", "(?x", "\\A", "\\Z"):
        assert construct not in PATTERN, construct
    assert PATTERN.isascii()  # the German letters as \\u00fc: read alike in both


@pytest.mark.parametrize("seed", [1, 28, 4711])
def test_a_german_log_states_the_dice_of_the_english_log_and_the_rolls(seed: int) -> None:
    assert isinstance(R, VerifiableDice)
    seen = 0
    for _fair, rounds in _duels(25, seed):
        for rnd in rounds:
            english, german = _resolved(None, rnd), _resolved("de", rnd)
            values = [roll.value for roll in english.rolls]
            assert [roll.value for roll in german.rolls] == values
            assert english.outcome == german.outcome
            assert len(german.log) == len(english.log)
            assert R.stated_dice(_lines(german)) == R.stated_dice(_lines(english)) == values, (
                _lines(english), _lines(german))
            seen += len(values)
            for line in _lines(german):
                clause, _sep, text = line.partition(": ")
                assert clause.startswith(("By This Axe, ", "duelbot ")), line
                bare = re.sub(r"\b(?:anna|bernd|Duellant [AB])\b", "", text)
                bare = re.sub(r"(?:flight|forfeit) = [a-z-]+", "", bare)
                assert not ENGLISH.search(bare), line
    assert seen > 100


def test_a_round_in_german_word_for_word() -> None:
    state = R.initial_state(Fighter("anna", {"character": "hero"}),
                            Fighter("bernd", {"character": "hero"}), {"forfeit": "parry-first"})
    with speaking("de"):
        result = R.resolve(state, {"a": "a3p1t0", "b": "a2p2t0"},
                           ScriptedDice([1, 4, 2, 6, 3, 5, 1, 6, 5, 4]), Options())
    assert _lines(result) == [
        "By This Axe, Duelle (Runden): Runde 1",
        "By This Axe, Aufdecken: anna deckt Angriff 3, Parade 1, Trick 0 auf",
        "By This Axe, Aufdecken: bernd deckt Angriff 2, Parade 2, Trick 0 auf",
        "By This Axe, Angriffe: anna würfelt 3 Würfel (1, 4, 2): 2 Treffer (1-3)",
        "By This Axe, Angriffe: bernd würfelt 2 Würfel (6, 3): 1 Treffer (1-3)",
        "By This Axe, Paraden: anna würfelt 1 Würfel (5): 0 gelungene Paraden (1-3)",
        "By This Axe, Paraden: bernd würfelt 2 Würfel (1, 6): 1 gelungene Parade (1-3)",
        "By This Axe, Paraden: bernd erzielt 1 Treffer, anna pariert 0: 1 trifft anna",
        "By This Axe, Paraden: anna erzielt 2 Treffer, bernd pariert 1: 1 trifft bernd",
        "By This Axe, Rüstungswürfe: anna braucht für den Rüstungswurf 5-6 (das heroische +1 "
        "zählt nicht), würfelt 5: 1 abgewehrt, 0 nicht abgewehrt",
        "By This Axe, Rüstungswürfe: bernd braucht für den Rüstungswurf 5-6 (das heroische +1 "
        "zählt nicht), würfelt 4: 0 abgewehrt, 1 nicht abgewehrt",
        "duelbot Wunden: bernd erleidet 1 Wunde (1 von 1): besiegt",
        "By This Axe, Duelle (Runden): bernd ist besiegt: anna gewinnt das Duell",
    ]
    assert R.stated_dice(_lines(result)) == [1, 4, 2, 6, 3, 5, 1, 6, 5, 4]


def test_the_same_round_in_english_is_unchanged() -> None:
    state = R.initial_state(Fighter("anna", {"character": "hero"}),
                            Fighter("bernd", {"character": "hero"}), {"forfeit": "parry-first"})
    result = R.resolve(state, {"a": "a3p1t0", "b": "a2p2t0"},
                       ScriptedDice([1, 4, 2, 6, 3, 5, 1, 6, 5, 4]), Options())
    assert _lines(result)[3:8] == [
        "By This Axe, Attacks: anna rolls 3 dice (1, 4, 2): 2 hits (1-3)",
        "By This Axe, Attacks: bernd rolls 2 dice (6, 3): 1 hit (1-3)",
        "By This Axe, Parries: anna rolls 1 die (5): 0 parry successes (1-3)",
        "By This Axe, Parries: bernd rolls 2 dice (1, 6): 1 parry success (1-3)",
        "By This Axe, Parries: anna negates 0 of bernd's 1 hit: 1 lands on anna",
    ]


#: Lines of logs published before the German log (the English forms), with their dice.
PUBLISHED = [
    ("By This Axe, Dirty tricks: anna rolls 3: no effect (3-6)", [3]),
    ("By This Axe, Dirty tricks: Conan rolls 2: the dirty trick works (1-2), Kull forfeits "
     "two dice", [2]),
    ("By This Axe, Attacks: anna rolls 4 dice (3, 6, 4, 4): 1 hit (1-3)", [3, 6, 4, 4]),
    ("By This Axe, Parries: bernd rolls 1 die (2): 1 parry success (1-3)", [2]),
    ("By This Axe, Parries: anna negates 1 of bernd's 1 hit: 0 land on anna", []),
    ("By This Axe, Counterattack: anna has more parry successes (2) than incoming hits (1) "
     "and rolls a counterattack die: 3, a hit on bernd that cannot be parried", [3]),
    ("By This Axe, Armor saves: anna saves on 5-6 (Heroic +1 ignored), rolls 5: 1 saved, "
     "0 unsaved", [5]),
    ("By This Axe, Armor saves: Kull saves on 6 (Heroic +1 ignored), rolls 6, 2, 1: 1 saved,"
     " 2 unsaved", [6, 2, 1]),
    ("duelbot wounds: bernd takes 3 wounds (3 of 1): defeated", []),
    ("By This Axe, Duels (flight): Kull rolls to flee before the blows (house rule flight = "
     "before-blows)", []),
    ("By This Axe, Duels (flight): Kull rolls 5: fails to flee (4-6): he stays, and the "
     "blows fall on him", [5]),
    ("By This Axe, Duels (forcing a duel): the units are in contact: Ann rolls 2 and forces "
     "the duel (1-3); the refusal does not stand", [2]),
]


def test_logs_published_before_read_as_they_did() -> None:
    for line, values in PUBLISHED:
        assert R.stated_dice([line]) == values, line
    assert R.stated_dice([line for line, _values in PUBLISHED]) == [
        v for _line, values in PUBLISHED for v in values
    ]


@pytest.mark.parametrize("language", [None, "de"])
def test_the_challenges_force_roll_is_stated(language: str | None) -> None:
    leader = Fighter("Hrolf", {"character": "champion", "leader": True})
    for value in range(1, 7):
        with speaking(language):
            got = challenge(Fighter("Conan", {"character": "hero"}), leader, False, True, True,
                            ScriptedDice([value]))
        assert R.stated_dice([str(e) for e in got.log]) == [value]
    with speaking("de"):
        refused = challenge(Fighter("", {"character": "hero"}), leader, False, False, True,
                            ScriptedDice([]))
    assert [str(e) for e in refused.log] == [
        "By This Axe, Duelle (Herausforderung): Der Herausforderer fordert Hrolf zum "
        "Zweikampf heraus",
        "By This Axe, Duelle (Ablehnung): Hrolf lehnt die Herausforderung ab",
        "By This Axe, Duelle (Ablehnung): Hrolf lehnt zum ersten Mal als Anführer ab: er "
        "verliert nur für diesen Zug jeden Anführerwert: er darf in diesem Zug an keinem "
        "Angriff teilnehmen, nicht freiwillig zu einer neuen Einheit wechseln und keine "
        "Einheit sammeln",
    ]


def test_roll_purposes_in_the_readers_words() -> None:
    purposes = ["dirty_trick", "attack", "parry", "counterattack", "armor_save", "flee",
                "force_duel"]
    # English: the id read as words, as every result showed it before.
    assert [R.roll_purpose_label(p) for p in purposes] == [
        p.replace("_", " ").title() for p in purposes
    ]
    with speaking("de"):
        assert [R.roll_purpose_label(p) for p in purposes] == [
            "Schmutziger Trick", "Angriff", "Parade", "Gegenangriff", "Rüstungswurf",
            "Flucht", "Duell erzwingen",
        ]
        assert R.roll_purpose_label("something_else") == "Something Else"


def test_character_types_in_the_readers_words() -> None:
    side = {"character": "high_priest", "armor_save": 6, "wounds": 2}
    assert R.fighter_summary(side)[0] == ("Character", "High Priest (6 dice)")
    with speaking("de"):
        assert R.fighter_summary(side)[0] == ("Charakter", "Hohepriester (6 Würfel)")
        state = R.initial_state(Fighter("anna", {"character": "superhero"}),
                                Fighter("bernd", {"character": "hero"}), {})
        assert "Du hast 8 Würfel (Superheld)." in R.help_text(state, "a")
    state = R.initial_state(Fighter("anna", {"character": "high_priest"}),
                            Fighter("bernd", {"character": "hero"}), {})
    assert "You have 6 dice (high priest)." in R.help_text(state, "a")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_reads_the_same_dice(tmp_path: Any) -> None:
    """The archive page's reading (bot/archive/static/page.js, statedValues) under node."""
    logs: list[dict[str, Any]] = []
    for _fair, rounds in _duels(6, 9):
        for rnd in rounds:
            for language in (None, "de"):
                result = _resolved(language, rnd)
                logs.append({"log": _lines(result), "rolls": [r.value for r in result.rolls]})
    logs += [{"log": [line], "rolls": values} for line, values in PUBLISHED]
    data = tmp_path / "logs.json"
    data.write_text(json.dumps({"pattern": PATTERN, "logs": logs}), encoding="utf-8")
    script = """
const data = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const pattern = new RegExp(data.pattern, "g");
const wrong = data.logs.filter(function (entry) {
  let values = [];
  entry.log.forEach(function (line) {
    pattern.lastIndex = 0;
    let m;
    while ((m = pattern.exec(String(line))) !== null) {
      if (m[0] === "") { pattern.lastIndex++; continue; }
      for (let g = 1; g < m.length; g++) {
        if (m[g] !== undefined) values = values.concat(m[g].split(", ").map(Number));
      }
    }
  });
  return JSON.stringify(values) !== JSON.stringify(entry.rolls);
});
console.log(JSON.stringify(wrong.slice(0, 3)));
process.exit(wrong.length ? 1 : 0);
"""
    run = subprocess.run(["node", "-e", script, str(data)], capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
