"""Rule 2.14 moves, outcome ids, statistics bounds, and free text to a move."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import Literal

from bot.rules.errors import InvalidChoice, InvalidStats
from bot.rules.rule_2_14.text import N_, _
from bot.rules.terms import MoveSpec
from bot.rules.text import per_language

RULESET_ID = "rule-2.14"

FULL_FRONTAL_STRIKE = "full_frontal_strike"
SIDE_SWIPE = "side_swipe"
LOCK_ATTEMPT = "lock_attempt"
EVADE = "evade"
RETREAT = "retreat"

ATTACKS = frozenset({FULL_FRONTAL_STRIKE, SIDE_SWIPE})
DEFENCES = frozenset({LOCK_ATTEMPT, EVADE})

#: The moves with their English labels (what members may type, in every language);
#: ``moves_shown()`` and the adjudication log label them in the reader's language.
MOVES: tuple[MoveSpec, ...] = (
    MoveSpec(FULL_FRONTAL_STRIKE, N_("Full Frontal Strike"), "attack", ("ffs", "frontal")),
    MoveSpec(SIDE_SWIPE, N_("Side Swipe"), "attack", ("ss", "swipe")),
    MoveSpec(LOCK_ATTEMPT, N_("Lock Attempt"), "defence", ("lock", "la")),
    MoveSpec(EVADE, N_("Evade"), "defence", ("ev",)),
    MoveSpec(RETREAT, N_("Retreat"), "retreat", ("flee",)),
)
MOVE_IDS: tuple[str, ...] = tuple(m.id for m in MOVES)
#: The English labels (``_(label)``: in the reader's language).
LABELS: dict[str, str] = {m.id: m.label for m in MOVES}


@per_language
def moves_shown() -> tuple[MoveSpec, ...]:
    """The moves as members see them: each label in the reader's language."""
    return tuple(replace(m, label=_(m.label)) for m in MOVES)

OUTCOMES: tuple[str, ...] = (
    "a_wins",
    "b_wins",
    "a_retreats",
    "b_retreats",
    "both_retreat",
    "locked",
    "no_effect",
)

# Profiles are bounded so that a typo (STR 5000) is caught; the engine itself accepts any int.
STAT_MIN = 0
STAT_MAX = 1000

MissingMovePolicy = Literal["none", "forfeit"]
MISSING_MOVE_POLICIES: tuple[str, ...] = ("none", "forfeit")


def _normalise(text: str) -> str:
    # Drop zero-width and other format characters, fold case and width, unify separators.
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return re.sub(r"[\s_\-]+", "_", folded.strip().casefold()).strip("_")


_LOOKUP: dict[str, str] = {}
for _move in MOVES:
    for _name in (_move.id, _move.label, *_move.aliases):
        _LOOKUP[_normalise(_name)] = _move.id
        _LOOKUP[_normalise(_name).replace("_", "")] = _move.id


def allowed_moves_text() -> str:
    return ", ".join(f"{m.id} ({'/'.join(m.aliases)})" for m in MOVES)


def parse_move(text: str) -> str:
    """Canonical move id for free text such as 'FFS', 'side swipe', ' Lock-Attempt '."""
    key = _normalise(text) if isinstance(text, str) else ""
    move = _LOOKUP.get(key) or _LOOKUP.get(key.replace("_", ""))
    if move is None:
        shown = text if isinstance(text, str) else repr(text)
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        raise InvalidChoice(
            _("{text} is not a move. Allowed: {allowed}.", text=repr(shown),
              allowed=allowed_moves_text())
        )
    return move


def check_stat(name: str, value: object, *, bounded: bool = True) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStats(
            _("{name} must be a whole number, not {value}.", name=name, value=repr(value))
        )
    if bounded and not STAT_MIN <= value <= STAT_MAX:
        raise InvalidStats(
            _("{name} must be between {low} and {high}, not {value}.",
              name=name, low=STAT_MIN, high=STAT_MAX, value=value)
        )
    return value



