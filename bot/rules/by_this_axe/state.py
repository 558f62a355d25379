"""By This Axe duel state and adjudication options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.base import (
    SIDES,
    Side,
)
from bot.rules.by_this_axe.allotments import (
    Allotment,
    _shown,
)
from bot.rules.by_this_axe.sheet import (
    Combatant,
)
from bot.rules.by_this_axe.tables import (
    MISSING_MOVE_POLICIES,
    OUTCOMES,
    TRICK_FORFEIT,
    TRICK_TAKES,
    MissingMovePolicy,
    TrickTakes,
)
from bot.rules.errors import InvalidRoundInput


@dataclass(frozen=True, slots=True)
class DuelState:
    a: Combatant
    b: Combatant
    round_no: int = 1  # the round to be resolved next
    allot_all: bool = False
    trick_takes: TrickTakes = "parry_first"
    ended: bool = False
    winner: Side | None = None
    outcome: str | None = None  # the last round's outcome

    def duellist(self, side: Side) -> Combatant:
        return self.a if side == "a" else self.b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "round": self.round_no,
            "allot_all": self.allot_all,
            "trick_takes": self.trick_takes,
            "ended": self.ended,
            "winner": self.winner,
            "outcome": self.outcome,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuelState:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A By This Axe duel state must be an object.")
        winner = data.get("winner")
        outcome = data.get("outcome")
        round_no = data.get("round", 1)
        if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
            raise InvalidRoundInput(f"round must be a whole number >= 1, not {round_no!r}.")
        return cls(
            a=Combatant.from_dict(data["a"]),
            b=Combatant.from_dict(data["b"]),
            round_no=round_no,
            allot_all=bool(data.get("allot_all", False)),
            trick_takes=_trick_takes(data.get("trick_takes", "parry_first")),
            ended=bool(data.get("ended", False)),
            winner=winner if winner in SIDES else None,
            outcome=outcome if outcome in OUTCOMES else None,
        )


def _trick_takes(value: object) -> TrickTakes:
    if value == "parry_first" or value is None:
        return "parry_first"
    if value == "attack_first":
        return "attack_first"
    raise InvalidRoundInput(
        f"trick_takes must be one of {', '.join(TRICK_TAKES)}, not {_shown(value)}."
    )


@dataclass(frozen=True, slots=True)
class Options:
    missing_move: MissingMovePolicy = "none"

    def __post_init__(self) -> None:
        if self.missing_move not in MISSING_MOVE_POLICIES:
            raise InvalidRoundInput(
                f"missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
                f"not {self.missing_move!r}."
            )


PARAM_KEYS: tuple[str, ...] = ("allot_all", "trick_takes")


def forfeit_dice(allot: Allotment, takes: TrickTakes, n: int = TRICK_FORFEIT) -> Allotment:
    """``allot`` after a successful dirty trick: ``n`` dice from parry then attack (or the
    other way round), never below 0. The trick die itself is never taken."""
    if takes == "parry_first":
        from_parry = min(n, allot.parry)
        from_attack = min(n - from_parry, allot.attack)
    else:
        from_attack = min(n, allot.attack)
        from_parry = min(n - from_attack, allot.parry)
    return Allotment(allot.attack - from_attack, allot.parry - from_parry, allot.tricks)



