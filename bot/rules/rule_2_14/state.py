"""Rule 2.14 duellists, duel state and adjudication options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.base import (
    SIDES,
    Side,
)
from bot.rules.errors import InvalidRoundInput
from bot.rules.rule_2_14.moves import (
    MISSING_MOVE_POLICIES,
    MissingMovePolicy,
    check_stat,
)


@dataclass(frozen=True, slots=True)
class Duellist:
    name: str
    strength: int
    agility: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "str": self.strength, "agi": self.agility}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, bounded: bool = False) -> Duellist:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A duellist must be an object with name, str and agi.")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise InvalidRoundInput("A duellist's name must be a string.")
        return cls(
            name=name,
            strength=check_stat("str", data.get("str"), bounded=bounded),
            agility=check_stat("agi", data.get("agi"), bounded=bounded),
        )


@dataclass(frozen=True, slots=True)
class DuelState:
    a: Duellist
    b: Duellist
    locked: bool = False
    ended: bool = False
    winner: Side | None = None

    def duellist(self, side: Side) -> Duellist:
        return self.a if side == "a" else self.b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "locked": self.locked,
            "ended": self.ended,
            "winner": self.winner,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuelState:
        # A pasted or exported state may be anything (`duelbot verify`, `adjudicate`).
        if not isinstance(data, Mapping) or "a" not in data or "b" not in data:
            raise InvalidRoundInput("A rule 2.14 duel state needs duellists a and b.")
        winner = data.get("winner")
        return cls(
            a=Duellist.from_dict(data["a"]),
            b=Duellist.from_dict(data["b"]),
            locked=bool(data.get("locked", False)),
            ended=bool(data.get("ended", False)),
            winner=winner if winner in SIDES else None,
        )


@dataclass(frozen=True, slots=True)
class Options:
    missing_move: MissingMovePolicy = "none"
    locked_blocks_retreat: bool = False

    def __post_init__(self) -> None:
        if self.missing_move not in MISSING_MOVE_POLICIES:
            raise InvalidRoundInput(
                f"missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
                f"not {self.missing_move!r}."
            )



