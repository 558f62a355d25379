"""By This Axe sheets: character type, armor save, wounds, leader."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.by_this_axe.allotments import (
    _normalise,
    _shown,
)
from bot.rules.by_this_axe.tables import (
    ARMOR_MAX,
    ARMOR_MIN,
    DEFAULT_ARMOR_SAVE,
    DEFAULT_WOUNDS,
    NO_SAVE,
    POOLS,
    WOUNDS_MAX,
)
from bot.rules.by_this_axe.text import _
from bot.rules.errors import InvalidRoundInput, InvalidStats

# -- sheets and state -----------------------------------------------------------------------


def _int_field(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("+").isdigit():
            value = int(value.strip().lstrip("+"))
        else:
            raise InvalidStats(
                _("{name} must be a whole number, not {value}.", name=name, value=repr(value))
            )
    if not low <= value <= high:
        raise InvalidStats(
            _("{name} must be between {low} and {high}, not {value}.",
              name=name, low=low, high=high, value=value)
        )
    return value


def _character(value: object) -> str:
    key = re.sub(r"[\s_\-]+", "_", _normalise(value)) if isinstance(value, str) else ""
    if key not in POOLS:
        allowed = ", ".join(_("{character} ({count} dice)", character=c, count=n)
                            for c, n in POOLS.items())
        if value is None:
            raise InvalidStats(
                _("character must be one of {allowed}; it is missing.", allowed=allowed)
            )
        given = repr(_shown(value)) if isinstance(value, str) else _shown(value)
        raise InvalidStats(
            _("character must be one of {allowed}; not {value}.", allowed=allowed, value=given)
        )
    return key


def _bool_field(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in ("yes", "true", "1", "no",
                                                                "false", "0"):
        return value.strip().casefold() in ("yes", "true", "1")
    raise InvalidStats(
        _("{name} must be true or false, not {value}.", name=name, value=_shown(value))
    )


def clean_sheet(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A validated sheet: character, armor_save (0 = none), wounds, leader."""
    if not isinstance(sheet, Mapping):
        raise InvalidStats(
            _("A sheet must be an object with character, armor_save, wounds.")
        )
    character = _character(sheet.get("character"))
    armor = sheet.get("armor_save")
    if armor is None:
        armor = DEFAULT_ARMOR_SAVE[character]
    armor = _int_field("armor_save", armor, ARMOR_MIN, ARMOR_MAX)
    if armor == 1:
        raise InvalidStats(
            _("armor_save must be 2 to 6 (the d6 result that saves), or 0 or 7 for no save; "
              "1 would save every hit.")
        )
    wounds = sheet.get("wounds")
    wounds = DEFAULT_WOUNDS if wounds is None else _int_field("wounds", wounds, 1, WOUNDS_MAX)
    leader = sheet.get("leader")
    return {
        "character": character,
        "armor_save": NO_SAVE if armor == ARMOR_MAX else armor,
        "wounds": wounds,
        "leader": False if leader is None else _bool_field("leader", leader),
    }


@dataclass(frozen=True, slots=True)
class Combatant:
    name: str
    character: str
    armor_save: int
    wounds: int  # wounds that defeat the character
    leader: bool = False
    wounds_taken: int = 0

    @property
    def pool(self) -> int:
        return POOLS[self.character]

    @property
    def defeated(self) -> bool:
        return self.wounds_taken >= self.wounds

    @classmethod
    def from_sheet(cls, name: str, sheet: Mapping[str, Any]) -> Combatant:
        clean = clean_sheet(sheet)
        return cls(name, clean["character"], clean["armor_save"], clean["wounds"],
                   clean["leader"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "character": self.character,
            "pool": self.pool,
            "armor_save": self.armor_save,
            "wounds": self.wounds,
            "leader": self.leader,
            "wounds_taken": self.wounds_taken,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Combatant:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A duellist must be an object with name and a sheet.")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise InvalidRoundInput("A duellist's name must be a string.")
        try:
            clean = clean_sheet(data)
            taken = _int_field("wounds_taken", data.get("wounds_taken", 0), 0, 10**6)
        except InvalidStats as exc:
            raise InvalidRoundInput(exc.message) from None
        return cls(name, clean["character"], clean["armor_save"], clean["wounds"],
                   clean["leader"], taken)



