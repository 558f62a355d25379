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


@dataclass(frozen=True, slots=True)
class Fighter:
    """A duellist as a ruleset sees them at the start: a display name and the ruleset's sheet
    (rule 2.14: {"str", "agi"}; other rulesets their own fields)."""

    name: str
    sheet: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SheetField:
    """One field of a duellist sheet, for validation, slash command help and docs."""

    name: str
    kind: str  # "int", "str", "choice", "list"
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    default: Any = None


class Ruleset(ABC):
    """What every duel system implements. Subclasses are stateless and pure.

    The service layer drives any ruleset through this interface alone: it builds the
    initial state from two sheets, stores ``state.to_dict()`` as JSON, asks for each side's
    legal choices (DM buttons), parses free text, and resolves a round with the round's
    fair dice. A ruleset whose round has several phases keeps the phase in its state.
    """

    id: str
    title: str
    sheet_fields: tuple[SheetField, ...] = ()
    # False while the bot cannot yet run this ruleset's flow end to end (its rules are pure
    # and usable from the CLI; the services refuse to start such duels).
    playable: bool = True

    @abstractmethod
    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        """The legal choices (for buttons). ``state``/``side`` narrow them when the ruleset
        depends on the duel's state; without them, every choice of a round."""

    @abstractmethod
    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        """Canonical choice id for free text; raises InvalidChoice listing what is allowed."""

    def choice_label(self, choice: str | None) -> str:
        """How a canonical choice is shown to people."""
        if choice is None:
            return "no move"
        for move in self.moves():
            if move.id == choice:
                return move.label
        return choice

    @abstractmethod
    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        """A clean copy of a duellist sheet; raises InvalidStats naming the bad field."""

    @abstractmethod
    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> Any:
        """The duel's state before round 1 (``params``: per-duel settings, may be empty)."""

    @abstractmethod
    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Inverse of ``state.to_dict()``."""

    @abstractmethod
    def make_options(self, settings: Mapping[str, Any]) -> Any:
        """The ruleset's adjudication options from the server's settings (unknown keys
        ignored)."""

    @abstractmethod
    def resolve(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Any,
    ) -> RoundResult:
        """Adjudicate one round. Pure: same inputs and dice give the same result."""

    # -- multi-step rulesets ---------------------------------------------------------------
    # A ruleset whose duel is a sequence of steps (who must choose, in secret or in the
    # open, changes from step to step) overrides these. The defaults describe rule 2.14 and
    # By This Axe: both sides choose in secret every round, nothing is told privately, the
    # whole result is public, and a commander opens every round.

    #: True: when a step closes and the duel goes on, the services open the next step at
    #: once (and close a step as soon as every awaited side has chosen).
    auto_advance: bool = False

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        """The sides that must choose in the next round (step), in order."""
        return SIDES

    def is_secret(self, state: Any) -> bool:
        """True when the next round's choices are secret until it closes."""
        return True

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        """What only one duellist may learn from a round (sent by DM, never published)."""
        return {}

    def public_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``result.to_dict()`` as it may be stored and published (secrets removed while the
        duel runs)."""
        return result

    def prompt(self, state: Any, side: Side) -> str | None:
        """What a DM prompt asks of ``side`` in the next round (None: the generic text)."""
        return None

    def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
        """Sheet fields the duel changed, per side, to write back to the profiles at the
        end."""
        return {}

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
