"""FoEQ's adjudication log in the duel's language (issue 28): the rule-cited lines and the
rolls' purposes in German in a German scope, English (as published before) outside it, and
the dice the log states readable by ``log_dice_pattern`` in both, in Python and in the
archive page's JavaScript alike."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from typing import Any

import pytest

from bot.i18n.context import speaking
from bot.rules.base import Fighter, RoundResult, Side
from bot.rules.dice import RandomDice
from bot.rules.foeq.phases import awaiting_sides
from bot.rules.foeq.ruleset import FOEQ
from bot.rules.foeq.state import Corner, FoeqState
from tests.rules.test_foeq import at_stare_second, before_shot, sheet, step

SCHOOLS = ["necromancy", "abjuration", "divination", "enchantment", "illusion", "evocation"]
#: English words a German log line must not hold (names are "Ann" and "Bo").
ENGLISH = re.compile(
    r"\b(the|and|with|wins|rolls|rerolls|gains|loses|has|is|of|by|their|they|dice|"
    r"advantage|keeps|now|tie|reveals|chooses|declares|stake|Stare|Shot|Score)\b"
)


def random_sheet(rng: random.Random) -> dict[str, Any]:
    return sheet(
        initiative=rng.choice([0, 0, 2]),
        spell_attack=rng.choice([0, 3]),
        deception=rng.choice([0, 1, 3]),
        arcana=rng.choice([0, 2]),
        hp=rng.choice([5, 20]),
        hit_dice=rng.choice([0, 1, 3]),
        spell_slots=rng.choice([[2, 1], [], [1]]),
        schools=rng.sample(SCHOOLS, rng.randint(0, 4)),
        free_cast_levels=rng.choice([[], [1]]),
    )


def play(seed: int) -> list[RoundResult]:
    """A whole duel of random choices (some missing) and random dice, the same for a seed
    whatever the language it is written in."""
    rng = random.Random(seed)
    params = {
        "public_stake": rng.choice(["pride", "first_blood", "death"]),
        "challenger": rng.choice("ab"),
        "strong-against": rng.choice(["advantage", "auto-win"]),
        "disruptive": rng.choice(["winner-only", "either"]),
        "shot-tie": rng.choice(["true-stakes", "public-stakes"]),
    }
    a = Fighter("Ann" if seed % 4 else "", random_sheet(rng))
    state = FOEQ.initial_state(a, Fighter("Bo", random_sheet(rng)), params)
    options = FOEQ.make_options({"missing_move": rng.choice(["none", "none", "forfeit"])})
    results: list[RoundResult] = []
    while not state.ended:
        assert len(results) < 60
        choices: dict[Side, str | None] = {}
        for side in awaiting_sides(state):
            menu = FOEQ.moves(state, side)
            choices[side] = None if rng.random() < 0.04 else rng.choice(menu).id
        result = FOEQ.resolve(state, choices, RandomDice(rng, seed, len(results) + 1), options)
        results.append(result)
        assert isinstance(result.state, FoeqState)
        state = result.state
    return results


def lines(result: RoundResult) -> list[str]:
    return [str(event) for event in result.log]


def values(result: RoundResult) -> list[int]:
    return [roll.value for roll in result.rolls]


SEEDS = range(40)


@pytest.fixture(scope="module")
def duels() -> list[tuple[list[RoundResult], list[RoundResult]]]:
    """Each seed's duel in English and in German."""
    played = []
    for seed in SEEDS:
        english = play(seed)
        with speaking("de"):
            german = play(seed)
        played.append((english, german))
    return played


def test_the_german_log_states_the_same_dice_as_the_english_and_the_rolls(
    duels: list[tuple[list[RoundResult], list[RoundResult]]],
) -> None:
    steps = 0
    for english, german in duels:
        assert len(english) == len(german)
        for en, de in zip(english, german, strict=True):
            assert values(en) == values(de)
            assert FOEQ.stated_dice(lines(de)) == FOEQ.stated_dice(lines(en)) == values(de)
            steps += 1
    assert steps > 300


def test_the_german_log_is_german(
    duels: list[tuple[list[RoundResult], list[RoundResult]]],
) -> None:
    clauses: set[str] = set()
    for _english, german in duels:
        for result in german:
            for event in result.log:
                assert event.clause.startswith(("FoEQ p20 ", "duelbot missing_move = "))
                clauses.add(event.clause.split(" (")[0])
                assert not ENGLISH.search(event.text), event
                assert not ENGLISH.search(event.clause.removeprefix("FoEQ p20")), event
    assert {
        "FoEQ p20 Die Einsätze festlegen",
        "FoEQ p20 Das Blickduell, Initiative würfeln",
        "FoEQ p20 Das Blickduell, Probe würfeln",
        "FoEQ p20 Das Blickduell, Entscheidung",
        "FoEQ p20 Der Schuss, Zaubern!",
        "FoEQ p20 Der Schuss, Tricks",
        "FoEQ p20 Der Schuss, Patzer",
        "FoEQ p20 Der Schuss, Strategische Wendung",
        "FoEQ p20 Der Schuss, Ergebnis ermitteln",
        "FoEQ p20 Die Abrechnung",
    } <= clauses


def test_a_german_stare_round_reads_german() -> None:
    # A declared Bluff, Strong Against B's Sage Advice: A rolls with advantage (13, 4).
    state = at_stare_second("bluff", a={**sheet(), "deception": 2})
    with speaking("de"):
        result = step(state, {"b": "sage_advice"}, [13, 4, 17])
    assert lines(result)[:5] == [
        "FoEQ p20 Das Blickduell, zweite Ansage: Bob sagt Weiser Rat an",
        "FoEQ p20 Das Blickduell, Probe würfeln: Bluff ist stark gegen Weiser Rat: Alice hat "
        "Vorteil auf die Probe",
        "FoEQ p20 Das Blickduell, Probe würfeln: Alice (Bluff, Cha (Täuschen)) würfelt "
        "d20 13 und 4 mit Vorteil, behält 13 +2 = 15",
        "FoEQ p20 Das Blickduell, Probe würfeln: Bob (Weiser Rat, Int (Arkane Kunde)) würfelt "
        "d20 17 +0 = 17",
        "FoEQ p20 Das Blickduell, Entscheidung: Bob gewinnt die Probe mit einem Vorsprung "
        "von 2",
    ]
    assert FOEQ.stated_dice(lines(result)) == [13, 4, 17]
    # Outside the scope: the English, as published before.
    english = step(state, {"b": "sage_advice"}, [13, 4, 17])
    assert lines(english)[:5] == [
        "FoEQ p20 The Stare, Second Declaration: Bob declares Sage Advice",
        "FoEQ p20 The Stare, Roll the Stare: Bluff is Strong Against Sage Advice: Alice has "
        "advantage on the check",
        "FoEQ p20 The Stare, Roll the Stare: Alice (Bluff, Cha (Deception)) rolls d20 13 and 4 "
        "with advantage, keeps 13 +2 = 15",
        "FoEQ p20 The Stare, Roll the Stare: Bob (Sage Advice, Int (Arcana)) rolls d20 17 +0 "
        "= 17",
        "FoEQ p20 The Stare, Resolve: Bob wins the check by 2",
    ]
    assert FOEQ.stated_dice(lines(english)) == [13, 4, 17]


def test_the_german_shot_reads_german_and_its_dice_stay_readable() -> None:
    # A (2 Trick dice) and B (1 Fault die), both Overwhelming (no advantage either way): B
    # has the lower initiative and has no Trick die of its own to reroll; A rerolls one.
    state = before_shot(
        Corner("pride", "overwhelming", 1, 2, 0), Corner("pride", "overwhelming", 1, 0, 1)
    )
    script = [10, 3, 12, 9, 2, 5, 4]  # initiative A, B; attacks A, B; Tricks A; Fault B
    with speaking("de"):
        shot = step(state, {"a": "keep"}, script)
        assert shot.state.awaiting == ("a",)
        twist = step(shot.state, {"a": "reroll:trick:1"}, [6])
    shown = lines(shot)
    assert "FoEQ p20 Der Schuss, Tricks: Alice würfelt 2 Trickwürfel: 2, 5 (+7)" in shown
    assert "FoEQ p20 Der Schuss, Patzer: Bob würfelt 1 Patzerwürfel: 4 (-4)" in shown
    assert (
        "FoEQ p20 Der Schuss, Strategische Wendung: Bob (Überwältigend) könnte einen der "
        "Trickwürfel von Bob neu würfeln, aber es gibt keine"
    ) in shown
    assert FOEQ.stated_dice(shown) == script
    assert (
        "FoEQ p20 Der Schuss, Strategische Wendung: Alice würfelt den Trickwürfel #1 (2) von "
        "Alice neu: er zeigt jetzt 6 und muss verwendet werden"
    ) in lines(twist)
    assert FOEQ.stated_dice(lines(twist)) == [6]


def test_the_pattern_reads_the_logs_published_before_and_the_german() -> None:
    english = [
        "FoEQ p20 The Stare, Roll for Initiative (round 1): Ann rolls d20 13 +2 = 15",
        "FoEQ p20 The Shot, Cast!: Bo's ranged spell attack: d20 20 and 8 with advantage, "
        "keeps 20 -2 = 18",
        "FoEQ p20 The Shot, Tricks: Ann rolls 1 die of Trick: 1 (+1)",
        "FoEQ p20 The Shot, Faults: Bo rolls 3 dice of Fault: 4, 1, 4 (-9)",
        "FoEQ p20 The Shot, Strategic Twist: Bo rerolls Ann's Trick die #1 (1): it is now 5, "
        "and must be used",
        "FoEQ p20 The Shot, Determine the Result: Ann: 20 +4 + Tricks 5 - Faults 0 = 29",
        "FoEQ p20 The Shot, Reveal Style and Power: Ann expended the higher level and gains a "
        "Trick die (now 2 dice)",
    ]
    german = [
        "FoEQ p20 Das Blickduell, Initiative würfeln (Runde 1): Ann würfelt d20 13 +2 = 15",
        "FoEQ p20 Der Schuss, Zaubern!: Fernkampf-Zauberangriff von Bo: d20 20 und 8 mit "
        "Vorteil, behält 20 -2 = 18",
        "FoEQ p20 Der Schuss, Tricks: Ann würfelt 1 Trickwürfel: 1 (+1)",
        "FoEQ p20 Der Schuss, Patzer: Bo würfelt 3 Patzerwürfel: 4, 1, 4 (-9)",
        "FoEQ p20 Der Schuss, Strategische Wendung: Bo würfelt den Trickwürfel #1 (1) von Ann "
        "neu: er zeigt jetzt 5 und muss verwendet werden",
        "FoEQ p20 Der Schuss, Ergebnis ermitteln: Ann: 20 +4 + Tricks 5 - Patzer 0 = 29",
        "FoEQ p20 Der Schuss, Stil und Macht enthüllen: Ann hat den höheren Grad verbraucht "
        "und erhält einen Trickwürfel (jetzt 2 Würfel)",
    ]
    stated = [13, 20, 8, 1, 4, 1, 4, 5]
    assert FOEQ.stated_dice(english) == FOEQ.stated_dice(german) == stated
    pattern = FOEQ.log_dice_pattern
    assert pattern is not None
    # Syntax common to Python and JavaScript: no named group, no lookbehind, no inline flag.
    assert "(?P" not in pattern and "(?<" not in pattern and "(?i" not in pattern


@pytest.mark.skipif(shutil.which("node") is None, reason="no node to run JavaScript")
def test_the_archive_pages_javascript_reads_the_same_dice(
    duels: list[tuple[list[RoundResult], list[RoundResult]]],
) -> None:
    """The archive page reads the pattern with ``new RegExp(source, "g")`` and splits each
    group at ", " (bot/archive/static/page.js, statedValues)."""
    logs = [lines(r) for english, german in duels[:10] for r in (*english, *german)]
    script = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const pattern = new RegExp(input.pattern, "g");
console.log(JSON.stringify(input.logs.map((log) => {
  let values = [];
  for (const line of log) {
    pattern.lastIndex = 0;
    let m;
    while ((m = pattern.exec(line)) !== null) {
      if (m[0] === "") { pattern.lastIndex++; continue; }
      for (let g = 1; g < m.length; g++) {
        if (m[g] !== undefined) values = values.concat(m[g].split(", ").map(Number));
      }
    }
  }
  return values;
})));
"""
    done = subprocess.run(
        ["node", "-e", script],
        input=json.dumps({"pattern": FOEQ.log_dice_pattern, "logs": logs}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout) == [FOEQ.stated_dice(log) for log in logs]


def test_the_rolls_purposes_in_the_readers_words() -> None:
    purposes = ["stare1_initiative", "stare3_check", "shot_initiative", "shot_attack",
                "shot_trick", "shot_fault", "shot_twist", "something_else"]
    assert [FOEQ.roll_purpose_label(p) for p in purposes] == [
        "Stare 1, Initiative", "Stare 3, Check", "Shot, Initiative", "Shot, Attack",
        "Shot, Trick Die", "Shot, Fault Die", "Shot, Strategic Twist", "Something Else",
    ]
    with speaking("de"):
        assert [FOEQ.roll_purpose_label(p) for p in purposes] == [
            "Blickduell 1, Initiative", "Blickduell 3, Probe", "Schuss, Initiative",
            "Schuss, Angriff", "Schuss, Trickwürfel", "Schuss, Patzerwürfel",
            "Schuss, Strategische Wendung", "Something Else",
        ]
    with speaking("en"):
        assert FOEQ.roll_purpose_label("stare2_check") == "Stare 2, Check"


def test_the_score_of_a_tie_in_german() -> None:
    corners = (Corner("death", "steadfast", 0, 0, 0), Corner("pride", "steadfast", 0, 0, 0))
    tied = before_shot(*corners)
    with speaking("de"):
        # Equal initiative once (rerolled), then equal attacks: a tie at the Shot.
        result = step(tied, {"a": "keep"}, [5, 5, 7, 3, 10, 10])
        while not result.state.ended:
            side = result.state.awaiting[0]
            result = step(result.state, {side: "none"})
    shown = "\n".join(lines(result))
    assert "Gleichstand bei 10: beide Duellanten erleiden die Einsätze" in shown
    assert "Die Abrechnung (Gleichstand: Alice erleidet den Einsatz von Bob), Stolz: " \
        "Alice verliert einen Trefferwürfel (3 -> 2)" in shown
    assert "Die Abrechnung (Gleichstand: Bob erleidet den Einsatz von Alice), Tod: " \
        "Bob sinkt auf 0 Trefferpunkte (TP 20 -> 0)" in shown
