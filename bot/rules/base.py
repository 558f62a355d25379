"""The ruleset interface, frozen result objects, the registry and exact enumeration.

A ruleset is a pure object: it validates choices and sheets and resolves one
round as a function of (duel state, choices, dice source). It never touches
Discord, a database or the clock.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from bot.rules.dice import DiceSource, Roll, ScriptedDice, ScriptExhausted
from bot.rules.errors import UnknownRuleset

Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")


def other_side(side: Side) -> Side:
    return "b" if side == "a" else "a"


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One line of the adjudication log, citing the clause of the rule it applied."""

    clause: str
    text: str

    def __str__(self) -> str:
        return f"{self.clause}: {self.text}"


@dataclass(frozen=True, slots=True)
class MoveSpec:
    """A legal choice: canonical id, display label, kind, and accepted short forms."""

    id: str
    label: str
    kind: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Everything one adjudicated round produced. ``state`` is the duel after the round."""

    ruleset: str
    outcome: str
    winner: Side | None
    ended: bool
    locked: bool
    choices: Mapping[Side, str | None]
    rolls: tuple[Roll, ...]
    log: tuple[LogEvent, ...]
    state: Any

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "outcome": self.outcome,
            "winner": self.winner,
            "ended": self.ended,
            "locked": self.locked,
            "choices": dict(self.choices),
            "rolls": [r.to_dict() for r in self.rolls],
            "log": [str(e) for e in self.log],
            "state": self.state.to_dict(),
        }


RollClasses = Callable[[int, str], list[tuple[int, int]]]


class Ruleset(ABC):
    """What every duel system implements. Subclasses are stateless and pure."""

    id: str
    title: str

    @abstractmethod
    def moves(self) -> tuple[MoveSpec, ...]:
        """Every legal choice of a round."""

    @abstractmethod
    def parse_choice(self, text: str) -> str:
        """Canonical choice id for free text; raises InvalidChoice listing what is allowed."""

    @abstractmethod
    def resolve(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Any,
    ) -> RoundResult:
        """Adjudicate one round. Pure: same inputs and dice give the same result."""

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        """Groups of die faces the rules cannot tell apart: (representative, count).

        Enumeration explores one branch per class, so exact odds stay cheap for large dice.
        The default treats every face as distinct.
        """
        return [(face, 1) for face in range(1, sides + 1)]

    def outcome_distribution(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        options: Any,
    ) -> dict[str, Fraction]:
        """Exact probability of each outcome, by enumerating every dice branch."""
        return enumerate_outcomes(
            lambda dice: self.resolve(state, choices, dice, options).outcome,
            self.roll_classes,
        )


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


_REGISTRY: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    _REGISTRY[ruleset.id] = ruleset
    return ruleset


def get_ruleset(ruleset_id: str) -> Ruleset:
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise UnknownRuleset(f"Unknown ruleset {ruleset_id!r}; known: {known}.") from None


def ruleset_ids() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))
