"""The provably fair derivation: the letter of docs/fairness.md, bounds, uniformity."""

from __future__ import annotations

import hashlib
import hmac
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import dice as dice_module
from bot.rules.dice import (
    FairDice,
    RandomDice,
    ScriptedDice,
    commitment,
    derive_roll,
    new_seed,
    parse_seed,
    roll_label,
)
from bot.rules.errors import DiceError, InvalidSeed
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState

ROOT = Path(__file__).resolve().parents[2]
FAIRNESS = ROOT / "docs" / "fairness.md"

# The worked example of docs/fairness.md.
EXAMPLE_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
EXAMPLE_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
EXAMPLE_DICE6 = [5, 5, 3, 2, 5, 6]  # duel 1, round 1, rolls 0..5 as DICE6
EXAMPLE_REJECTED_K = 2  # with X = 2**63 + 1, counter 0 is rejected for roll 2
EXAMPLE_REJECTED_VALUE = 3916592538638892960


def issue_derivation(seed: bytes, label: str, sides: int) -> int:
    """Issue 2 §4, transcribed independently of bot.rules.dice."""
    if sides <= 0:
        return 0
    c = 0
    while True:
        h = hmac.new(seed, f"{label}:{c}".encode(), hashlib.sha256).digest()
        v = int.from_bytes(h[:8], "big")
        if v < 2**64 - (2**64 % sides):
            return v % sides + 1
        c += 1


def test_commitment_is_sha256_of_the_raw_seed_bytes() -> None:
    assert commitment(EXAMPLE_SEED) == EXAMPLE_COMMITMENT
    assert hashlib.sha256(bytes(range(32))).hexdigest() == EXAMPLE_COMMITMENT
    assert commitment(EXAMPLE_SEED.upper()) == EXAMPLE_COMMITMENT


def test_labels() -> None:
    assert roll_label(12, 3, 0) == "duel:12:round:3:roll:0"


def test_worked_example_values() -> None:
    seed = parse_seed(EXAMPLE_SEED)
    values = [derive_roll(seed, roll_label(1, 1, k), 6) for k in range(6)]
    assert values == EXAMPLE_DICE6
    big = 2**63 + 1
    label = roll_label(1, 1, EXAMPLE_REJECTED_K)
    first = hmac.new(seed, f"{label}:0".encode(), hashlib.sha256).digest()
    assert int.from_bytes(first[:8], "big") >= 2**64 - (2**64 % big)  # counter 0 rejected
    assert derive_roll(seed, label, big) == EXAMPLE_REJECTED_VALUE


def test_worked_example_round() -> None:
    state = DuelState(Duellist("Alice", 8, 3), Duellist("Bob", 2, 5))
    result = RULE_2_14.resolve(
        state,
        {"a": "full_frontal_strike", "b": "evade"},
        FairDice(EXAMPLE_SEED, duel_id=1, round_no=1),
    )
    assert [r.to_dict() for r in result.rolls] == [
        {"label": "duel:1:round:1:roll:0", "sides": -3, "value": 0, "for": "b",
         "purpose": "evade"},
        {"label": "duel:1:round:1:roll:1", "sides": 3, "value": 2, "for": "a",
         "purpose": "full_frontal_strike"},
    ]
    assert result.outcome == "a_wins"


def test_fairness_doc_states_the_example_values() -> None:
    text = FAIRNESS.read_text(encoding="utf-8")
    for needle in (EXAMPLE_SEED, EXAMPLE_COMMITMENT, str(EXAMPLE_REJECTED_VALUE),
                   str(EXAMPLE_DICE6)):
        assert needle in text


def test_fairness_doc_reimplementation_runs_and_prints_the_documented_output() -> None:
    text = FAIRNESS.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    shown = re.search(r"It prints:\n\n```text\n(.*?)```", text, re.S)
    assert code and shown, "docs/fairness.md lost its code or output block"
    run = subprocess.run(
        [sys.executable, "-c", code.group(1)], capture_output=True, text=True, check=True,
        cwd=ROOT / "docs",
    )
    assert run.stdout == shown.group(1)
    assert "import bot" not in code.group(1)  # stand-alone: only the standard library


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.text(max_size=40),
       st.integers(min_value=-(2**70), max_value=2**64))
def test_derivation_matches_the_issue_and_respects_dicex_bounds(
    seed: bytes, label: str, sides: int
) -> None:
    value = derive_roll(seed, label, sides)
    assert value == issue_derivation(seed, label, sides)
    if sides <= 0:
        assert value == 0
    else:
        assert 1 <= value <= sides


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=-1000, max_value=0), st.integers(0, 10**6), st.integers(0, 999))
def test_x_at_most_0_gives_0_without_randomness(sides: int, duel_id: int, round_no: int) -> None:
    scripted = ScriptedDice([])
    roll = scripted.roll(sides, side="a", purpose="evade")
    assert roll.value == 0
    assert scripted.requested_sides == []  # no die was asked for
    fair = FairDice(new_seed(), duel_id, round_no)
    first = fair.roll(sides, side="b", purpose="full_frontal_strike")
    assert (first.index, first.value, first.label) == (0, 0, roll_label(duel_id, round_no, 0))
    second = fair.roll(6, side="a", purpose="evade")
    assert second.index == 1  # a 0-roll still takes its index


def test_x_above_2_to_the_64_is_refused_not_looped_forever() -> None:
    assert 1 <= derive_roll(b"\0" * 32, "x", 2**64) <= 2**64
    with pytest.raises(DiceError, match="2\\*\\*64"):
        derive_roll(b"\0" * 32, "x", 2**64 + 1)


def test_x_at_most_0_never_touches_hmac(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("HMAC used for X <= 0")

    monkeypatch.setattr(dice_module.hmac, "new", boom)
    assert derive_roll(b"\0" * 32, "x", 0) == 0
    assert derive_roll(b"\0" * 32, "x", -5) == 0


# Chi-square critical values at p = 0.001 for 1..9 degrees of freedom.
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32,
            8: 26.12, 9: 27.88}


@pytest.mark.parametrize("sides", [2, 3, 4, 6, 7, 10])
def test_derivation_is_uniform_enough(sides: int) -> None:
    """Deterministic: a fixed seed and 6,000 labels; chi-square far below p = 0.001."""
    seed = hashlib.sha256(b"duelbot uniformity").digest()
    n = 6000
    counts = Counter(derive_roll(seed, roll_label(1, r, 0), sides) for r in range(n))
    assert set(counts) == set(range(1, sides + 1))
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert chi2 < CHI2_999[sides - 1]


@pytest.mark.parametrize("bad", ["", "00", "zz" * 32, "0" * 63, "0" * 66, None, 5])
def test_bad_seeds_are_rejected(bad: object) -> None:
    with pytest.raises(InvalidSeed):
        parse_seed(bad)  # type: ignore[arg-type]


def test_new_seed_is_fresh_hex() -> None:
    a, b = new_seed(), new_seed()
    assert a != b
    assert len(parse_seed(a)) == 32


def test_random_dice_bounds() -> None:
    import random

    dice = RandomDice(random.Random(1))
    values = {dice.roll(3, side="a", purpose="evade").value for _ in range(200)}
    assert values == {1, 2, 3}
