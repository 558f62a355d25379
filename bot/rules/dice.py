"""Dice: DICEX, the provably fair HMAC derivation, and injectable dice sources.

The rules engine never calls ``random`` itself: every resolution takes a
``DiceSource``. Production rounds use ``FairDice`` (HMAC-SHA256 keyed by the
round's secret seed, see docs/fairness.md); tests inject ``ScriptedDice`` or
``RandomDice`` with their own RNG; ``enumerate_outcomes`` runs a resolution over every
branch of ``ScriptedDice`` for exact odds.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from bot.rules.errors import DiceError, InvalidSeed

SEED_BYTES = 32
_TWO_64 = 2**64


@dataclass(frozen=True, slots=True)
class Roll:
    """One die thrown (or a DICEX with X <= 0, which yields 0 without randomness)."""

    index: int
    label: str
    sides: int
    value: int
    side: str  # "a" or "b": the duellist the roll is for
    purpose: str  # e.g. "evade", "full_frontal_strike"

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "sides": self.sides,
            "value": self.value,
            "for": self.side,
            "purpose": self.purpose,
        }


class DiceSource(Protocol):
    """Where a resolution gets its dice. ``roll`` returns the k-th roll of the round."""

    def roll(self, sides: int, *, side: str, purpose: str) -> Roll: ...


def roll_label(duel_id: int, round_no: int, index: int) -> str:
    return f"duel:{duel_id}:round:{round_no}:roll:{index}"


def new_seed() -> str:
    """A fresh 32-byte seed as 64 lowercase hex characters."""
    return secrets.token_hex(SEED_BYTES)


def parse_seed(seed_hex: str) -> bytes:
    text = seed_hex.strip().lower() if isinstance(seed_hex, str) else ""
    if len(text) != 2 * SEED_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise InvalidSeed(
            f"A seed must be {2 * SEED_BYTES} hexadecimal characters ({SEED_BYTES} bytes)."
        )
    return bytes.fromhex(text)


def commitment(seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of the 32 raw seed bytes, as hex."""
    return hashlib.sha256(parse_seed(seed_hex)).hexdigest()


def derive_roll(seed: bytes, label: str, sides: int) -> int:
    """The documented derivation (docs/fairness.md): unbiased, by rejection sampling.

    X <= 0 gives 0 with no randomness (the Glossary's DICEX rule). X > 2**64 raises
    DiceError: no 8-byte value would ever be accepted.
    """
    if sides <= 0:
        return 0
    if sides > _TWO_64:
        # Every v would be rejected: the documented derivation never ends for X > 2**64.
        raise DiceError(f"A DICEX needs X <= 2**64 to be derived; X is {sides}.")
    limit = _TWO_64 - (_TWO_64 % sides)
    counter = 0
    while True:
        digest = hmac.new(seed, f"{label}:{counter}".encode(), hashlib.sha256).digest()
        value = int.from_bytes(digest[:8], "big")
        if value < limit:
            return value % sides + 1
        counter += 1


class _CountingDice:
    """Shared bookkeeping: numbers rolls 0, 1, ... and labels them for one round."""

    def __init__(self, duel_id: int, round_no: int) -> None:
        self.duel_id = duel_id
        self.round_no = round_no
        self.rolls: list[Roll] = []

    def _value(self, index: int, label: str, sides: int, purpose: str) -> int:
        raise NotImplementedError

    def roll(self, sides: int, *, side: str, purpose: str) -> Roll:
        index = len(self.rolls)
        label = roll_label(self.duel_id, self.round_no, index)
        value = 0 if sides <= 0 else self._value(index, label, sides, purpose)
        made = Roll(index, label, sides, value, side, purpose)
        self.rolls.append(made)
        return made


class FairDice(_CountingDice):
    """Rolls derived from the round's secret seed; anyone with the seed can re-derive them."""

    def __init__(self, seed_hex: str, duel_id: int, round_no: int) -> None:
        super().__init__(duel_id, round_no)
        self._seed = parse_seed(seed_hex)

    def _value(self, index: int, label: str, sides: int, purpose: str) -> int:
        return derive_roll(self._seed, label, sides)


class RandomDice(_CountingDice):
    """Rolls from an injected ``random.Random`` (simulations and tests)."""

    def __init__(self, rng: random.Random, duel_id: int = 0, round_no: int = 0) -> None:
        super().__init__(duel_id, round_no)
        self._rng = rng

    def _value(self, index: int, label: str, sides: int, purpose: str) -> int:
        return self._rng.randint(1, sides)


class ScriptedDice(_CountingDice):
    """Rolls taken in order from a script (tests, and exact enumeration of outcomes)."""

    def __init__(self, values: Iterable[int], duel_id: int = 0, round_no: int = 0) -> None:
        super().__init__(duel_id, round_no)
        self._values = list(values)
        self._next = 0
        self.requested_sides: list[int] = []

    def _value(self, index: int, label: str, sides: int, purpose: str) -> int:
        self.requested_sides.append(sides)
        if self._next >= len(self._values):
            raise ScriptExhausted(sides, purpose)
        value = self._values[self._next]
        self._next += 1
        if not 1 <= value <= sides:
            raise DiceError(f"Scripted value {value} is not on a {sides}-sided die.")
        return value


class ScriptExhausted(DiceError):
    """Raised by ``ScriptedDice`` when a resolution needs one more die than scripted."""

    def __init__(self, sides: int, purpose: str) -> None:
        super().__init__(f"The dice script ran out (a {sides}-sided die was needed).")
        self.sides = sides
        self.purpose = purpose


#: A ruleset's ``roll_classes``: groups of die faces the rules cannot tell apart, each as
#: (representative face, count), for a die of ``sides`` rolled for ``purpose``.
RollClasses = Callable[[int, str], list[tuple[int, int]]]


def every_face(sides: int, purpose: str) -> list[tuple[int, int]]:
    """``RollClasses`` that tell every face apart (a ruleset without a cheaper grouping)."""
    return [(face, 1) for face in range(1, sides + 1)]


def enumerate_outcomes(
    run: Callable[[ScriptedDice], str], roll_classes: RollClasses
) -> dict[str, Fraction]:
    """Exact distribution of ``run``'s result over all dice, depth first over a roll script."""
    distribution: dict[str, Fraction] = {}
    pending: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while pending:
        script, weight = pending.pop()
        try:
            outcome = run(ScriptedDice(script))
        except ScriptExhausted as need:
            for face, count in roll_classes(need.sides, need.purpose):
                pending.append(((*script, face), weight * Fraction(count, need.sides)))
            continue
        distribution[outcome] = distribution.get(outcome, Fraction(0)) + weight
    return distribution
