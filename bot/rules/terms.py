"""The terms of the ruleset contract: the plain, frozen data every ruleset and every layer
speaks (a side, a fighter, a legal move, a log line, a round's result, a sheet field, a step
before round 1). The ``Ruleset`` class itself is in bot/rules/base.py, house rules and
per-duel settings in bot/rules/params.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.rules.dice import Roll

Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")
#: How the outcome that ended a duel counts for one side on the ladder (records, ratings).
OutcomeKind = Literal["win", "loss", "draw", "retreat"]
#: What the export of a running duel may leave out of a closed round, when its ruleset says
#: so (``Ruleset.withholdable``; docs/export-format.md, "What is public").
Withholdable = Literal["state_before", "choices.a", "choices.b"]


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


@dataclass(frozen=True, slots=True)
class PreDuelStep:
    """Something that happens before round 1 (the By This Axe challenge): ``id`` names it
    for ``Ruleset.run_pre_duel_step``; ``help`` says what the step decides."""

    id: str
    title: str
    help: str
