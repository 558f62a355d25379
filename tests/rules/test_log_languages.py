"""Rule 2.14's adjudication log in the reader's language (issue 28), its dice readable in
every language: the log states a roll as ``DICE<X> (<formula>)`` followed by its value in
English and German alike, and ``log_dice_pattern`` reads that (no verb of any language), in
Python and in JavaScript (the archive page's check, bot/archive/static/page.js)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from bot.i18n.context import speaking
from bot.rules import registry
from bot.rules.dice import FairDice
from bot.rules.rule_2_14.moves import MOVE_IDS
from bot.rules.rule_2_14.state import Duellist, DuelState, Options

RULES: Any = registry.get("rule-2.14")
SEEDS = [f"{n * 7919 + 3:064x}" for n in range(6)]
#: (STR, AGI) of a and of b: positive dice, DICE1, DICE0 and negative dice.
STATS = [((8, 3), (2, 5)), ((5, 3), (4, 2)), ((1, 1), (1, 1)), ((10, 10), (0, 0))]
#: Words only an English sentence has (tests/discord/test_german_duels.py's check).
ENGLISH = re.compile(
    r"\b(the|your|you|has|have|is|are|and|not|with|been|wins|won|lost|yet|when|which|"
    r"Round|Duel|Step|Deadline|Winner|choice|move|rolls|rolled|fails|succeeds)\b"
)
#: Logs published before the log was translated, as stored (they must still read).
OLD_ENGLISH = [
    (
        [
            "2.14 Defences, Evade: anna rolls DICE-1 (AGI 3 - STR 4) is 0 (Glossary: DICEX "
            "with X <= 0 yields 0): not greater than 1, fails",
            "2.14 Attacks, Full Frontal Strike: bernd rolls DICE1 (STR 4 - AGI 3) rolled 1: "
            "not greater than 1, fails",
            "2.14 Duelling: the round ends with no effect",
        ],
        [0, 1],
    ),
    (
        [
            "2.14 Defences, Evade: Bob rolls DICE3 (AGI 5 - STR 2) rolled 3: greater than 1, "
            "succeeds",
            "2.14 Defences, Evade: Ann's Full Frontal Strike fails automatically",
            "2.14 Attacks, Full Frontal Strike: Bob rolls DICE12 (STR 13 - AGI 1) rolled 11: "
            "greater than 1, succeeds",
        ],
        [3, 11],
    ),
]


def rounds(language: str | None) -> list[tuple[list[str], list[int]]]:
    """Every pair of moves (and none), both options, several seeds: each round's log and
    its rolls' values, written in ``language``."""
    out = []
    with speaking(language):
        for ((sa, aa), (sb, ab)), locked in itertools.product(STATS, (False, True)):
            state = DuelState(Duellist("Ann", sa, aa), Duellist("Bob", sb, ab), locked=locked)
            for a, b in itertools.product((*MOVE_IDS, None), repeat=2):
                for options in (Options(), Options("forfeit", True)):
                    for number, seed in enumerate(SEEDS, start=1):
                        result = RULES.resolve(
                            state, {"a": a, "b": b}, FairDice(seed, 7, number), options
                        )
                        out.append(
                            ([str(e) for e in result.log], [r.value for r in result.rolls])
                        )
    return out


def test_the_german_log_states_the_same_dice_as_the_english_one_and_the_rolls() -> None:
    english, german = rounds(None), rounds("de")
    assert len(english) == len(german)
    rolled = 0
    for (en_log, en_rolls), (de_log, de_rolls) in zip(english, german, strict=True):
        assert en_rolls == de_rolls
        assert RULES.stated_dice(de_log) == RULES.stated_dice(en_log) == de_rolls, de_log
        rolled += len(de_rolls)
        assert de_log != en_log or not en_log
    assert rolled > 1000


def test_the_german_log_is_german_and_cites_the_rule_in_german() -> None:
    lines = {line for log, _ in rounds("de") for line in log}
    english = sorted({(m.group(0), line) for line in lines for m in ENGLISH.finditer(line)})
    assert not english, english[:5]
    clauses = {line.partition(": ")[0] for line in lines}
    assert clauses == {
        "2.14.1 Runden",
        "2.14.1 Runden (duelbot-Hausregel locked-blocks-retreat)",
        "duelbot-Einstellung missing_move = forfeit",
        "2.14 Verteidigungen",
        "2.14 Verteidigungen, Bindungsversuch",
        "2.14 Verteidigungen, Ausweichen",
        "2.14 Angriffe, Frontalangriff",
        "2.14 Angriffe, Seitenhieb",
        "2.14 Duelle",
    }
    assert (
        "2.14 Verteidigungen, Ausweichen: Bob würfelt DICE-3 (AGI 2 - STR 5) und erhält 0 "
        "(Glossar: DICEX mit X <= 0 ergibt 0): nicht größer als 1, scheitert"
    ) in lines
    assert "2.14 Verteidigungen, Ausweichen: der Frontalangriff von Bob scheitert automatisch" in (
        lines
    )


def test_the_english_log_is_unchanged_outside_a_german_scope() -> None:
    state = DuelState(Duellist("Ann", 8, 3), Duellist("Bob", 2, 5))
    with speaking("de"):
        pass  # a scope that has ended leaves English behind
    result = RULES.resolve(
        state, {"a": "evade", "b": None}, FairDice(SEEDS[0], 1, 1), Options()
    )
    assert [str(e) for e in result.log] == [
        "2.14.1 Rounds: Bob sent no move by the close",
        "2.14 Defences, Evade: Ann rolls DICE1 (AGI 3 - STR 2) rolled 1: not greater than 1, "
        "fails",
        "2.14 Duelling: the round ends with no effect",
    ]


@pytest.mark.parametrize(("log", "values"), OLD_ENGLISH)
def test_logs_published_before_still_state_their_dice(log: list[str], values: list[int]) -> None:
    assert RULES.stated_dice(log) == values


def test_the_pattern_reads_the_same_in_javascript() -> None:
    """The archive page runs ``new RegExp(pattern, "g")`` over each line, as
    page.js's ``statedValues`` does."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the Chromium tests check the page itself)")
    logs = [log for log, _ in rounds("de")[::37]] + [log for log, _ in OLD_ENGLISH]
    script = """
    const [pattern, logs] = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const re = new RegExp(pattern, "g");
    console.log(JSON.stringify(logs.map(log => {
      const values = [];
      log.forEach(line => {
        re.lastIndex = 0;
        let m;
        while ((m = re.exec(String(line))) !== null) {
          if (m[0] === "") { re.lastIndex++; continue; }
          for (let g = 1; g < m.length; g++) {
            if (m[g] !== undefined) values.push(...m[g].split(", ").map(Number));
          }
        }
      });
      return values;
    })));
    """
    done = subprocess.run(
        [node, "-e", script],
        input=json.dumps([RULES.log_dice_pattern, logs]),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout) == [RULES.stated_dice(log) for log in logs]
