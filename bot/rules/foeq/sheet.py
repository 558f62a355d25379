"""FoEQ duellist sheets: modifiers, HP, Hit Dice, spell slots, schools."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.errors import InvalidRoundInput, InvalidStats
from bot.rules.foeq.tables import (
    SCHOOLS,
    SKILL_LABELS,
    SKILLS,
    _normalise,
)
from bot.rules.foeq.text import _
from bot.rules.terms import SheetField

# -- sheets ----------------------------------------------------------------------------

MOD_MIN, MOD_MAX = -20, 40
HP_MAX_LIMIT = 10_000
HIT_DICE_LIMIT = 100
SLOT_COUNT_LIMIT = 20
LEVELS = 9


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStats(
            _("{name} must be a whole number, not {value}.", name=name, value=repr(value))
        )
    if not low <= value <= high:
        raise InvalidStats(
            _("{name} must be between {low} and {high}, not {value}.",
              name=name, low=low, high=high, value=value)
        )
    return value


def _check_slots(value: object) -> tuple[int, ...]:
    """Spell slots available per level 1..9: a list of counts (level 1 first, shorter
    lists padded with 0) or a mapping {level: count}."""
    counts = [0] * LEVELS
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]  # `spell_slots=4` typed in a slash option: four level-1 slots
    if isinstance(value, Mapping):
        for key, count in value.items():
            try:
                level = int(key)
            except (TypeError, ValueError):
                raise InvalidStats(
                    _("spell_slots: {key} is not a spell level.", key=repr(key))
                ) from None
            _check_int("spell_slots level", level, 1, LEVELS)
            counts[level - 1] = _check_int(
                f"spell_slots[{level}]", count, 0, SLOT_COUNT_LIMIT
            )
    elif isinstance(value, list | tuple):
        if len(value) > LEVELS:
            raise InvalidStats(_("spell_slots lists at most 9 levels (1 to 9)."))
        for i, count in enumerate(value):
            counts[i] = _check_int(f"spell_slots[{i + 1}]", count, 0, SLOT_COUNT_LIMIT)
    elif value is not None:
        raise InvalidStats(
            _("spell_slots must be a list of counts per level (level 1 first), e.g. "
              "[4, 2, 1].")
        )
    return tuple(counts)


def _check_levels(value: object) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple):
        raise InvalidStats(_("free_cast_levels must be a list of spell levels 1 to 9."))
    return tuple(sorted({_check_int("free_cast_levels", v, 1, LEVELS) for v in value}))


def _check_schools(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,;]+", value) if v]
    if not isinstance(value, list | tuple):
        raise InvalidStats(_("schools must be a list of schools of magic."))
    found: set[str] = set()
    for item in value:
        key = _normalise(item) if isinstance(item, str) else ""
        if key not in SCHOOLS:
            raise InvalidStats(
                _("schools: {item} is not a school of magic. Allowed: {allowed}.",
                  item=repr(item), allowed=", ".join(SCHOOLS))
            )
        found.add(key)
    return tuple(s for s in SCHOOLS if s in found)


@dataclass(frozen=True, slots=True)
class Duellist:
    """A duellist's sheet, with the resources the duel changes (hp, hit_dice, spell_slots)
    as they are now. The final state's values are what the service writes back."""

    name: str
    initiative: int
    spell_attack: int
    skills: tuple[int, ...]  # in SKILLS order
    hp: int
    hp_max: int
    hit_dice: int
    spell_slots: tuple[int, ...]  # available slots of levels 1..9
    free_cast_levels: tuple[int, ...] = ()
    schools: tuple[str, ...] = ()

    def skill(self, name: str) -> int:
        return self.skills[SKILLS.index(name)]

    def slot_levels(self) -> tuple[int, ...]:
        """The levels this duellist may declare: 0 (a cantrip), any level with a slot left,
        and any level at which they can cast an offensive spell without a slot."""
        levels = {0, *self.free_cast_levels}
        levels.update(i + 1 for i, n in enumerate(self.spell_slots) if n > 0)
        return tuple(sorted(levels))

    def sheet(self) -> dict[str, Any]:
        return {
            "initiative": self.initiative,
            "spell_attack": self.spell_attack,
            **dict(zip(SKILLS, self.skills, strict=True)),
            "hp": self.hp,
            "hp_max": self.hp_max,
            "hit_dice": self.hit_dice,
            "spell_slots": list(self.spell_slots),
            "free_cast_levels": list(self.free_cast_levels),
            "schools": list(self.schools),
        }

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **self.sheet()}

    @classmethod
    def from_sheet(cls, name: str, sheet: Mapping[str, Any]) -> Duellist:
        if not isinstance(sheet, Mapping):
            raise InvalidStats(_("A FoEQ sheet must be an object of named fields."))

        def mod(key: str) -> int:
            return _check_int(key, sheet.get(key, 0), MOD_MIN, MOD_MAX)

        if "hp_max" not in sheet:
            raise InvalidStats(_("hp_max is required (the Hit Point maximum)."))
        hp_max = _check_int("hp_max", sheet.get("hp_max"), 1, HP_MAX_LIMIT)
        hp = _check_int("hp", sheet.get("hp", hp_max), 0, HP_MAX_LIMIT)
        if hp > hp_max:
            raise InvalidStats(
                _("hp ({hp}) cannot exceed hp_max ({hp_max}).", hp=hp, hp_max=hp_max)
            )
        return cls(
            name=name,
            initiative=mod("initiative"),
            spell_attack=mod("spell_attack"),
            skills=tuple(mod(s) for s in SKILLS),
            hp=hp,
            hp_max=hp_max,
            hit_dice=_check_int("hit_dice", sheet.get("hit_dice", 1), 0, HIT_DICE_LIMIT),
            spell_slots=_check_slots(sheet.get("spell_slots")),
            free_cast_levels=_check_levels(sheet.get("free_cast_levels")),
            schools=_check_schools(sheet.get("schools")),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Duellist:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A duellist must be an object (name and sheet fields).")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise InvalidRoundInput("A duellist's name must be a string.")
        return cls.from_sheet(name, data)


def sheet_fields() -> tuple[SheetField, ...]:
    """The sheet's fields, their help in the reader's language."""
    return (
        SheetField("initiative", "int", _("Initiative modifier"), MOD_MIN, MOD_MAX, default=0),
        SheetField(
            "spell_attack", "int", _("Spell attack bonus"), MOD_MIN, MOD_MAX, default=0
        ),
        *(
            SheetField(
                skill, "int", _("{skill} modifier", skill=_(SKILL_LABELS[skill])),
                MOD_MIN, MOD_MAX, default=0,
            )
            for skill in SKILLS
        ),
        SheetField("hp", "int", _("Current Hit Points (default: hp_max)"), 0, HP_MAX_LIMIT),
        SheetField("hp_max", "int", _("Hit Point maximum (required)"), 1, HP_MAX_LIMIT),
        SheetField("hit_dice", "int", _("Hit Dice remaining"), 0, HIT_DICE_LIMIT, default=1),
        SheetField(
            "spell_slots",
            "list",
            _("Spell slots available per level, level 1 first, e.g. [4, 3, 2]"),
            0,
            SLOT_COUNT_LIMIT,
            default=[0] * LEVELS,
        ),
        SheetField(
            "free_cast_levels",
            "list",
            _("Levels at which an offensive spell can be cast without expending a slot"),
            1,
            LEVELS,
            default=[],
        ),
        SheetField(
            "schools", "list", _("Schools of magic the duellist can cast"), choices=SCHOOLS,
            default=[],
        ),
    )
