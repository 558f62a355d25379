"""The FoEQ duel state between steps, and the adjudication options."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.rules.errors import InvalidRoundInput, InvalidStats
from bot.rules.foeq.sheet import (
    LEVELS,
    Duellist,
    _check_int,
)
from bot.rules.foeq.tables import (
    MISSING_MOVE_POLICIES,
    PHASES,
    PRIDE,
    SETUP,
    STAKES,
    STARE_MOVE_IDS,
    STYLES,
    MissingMovePolicy,
)
from bot.rules.foeq.text import N_
from bot.rules.params import HouseRule
from bot.rules.terms import SIDES, Side

# -- the duel state --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Corner:
    """One duellist's progress in the duel (secret parts: stake, style, slot)."""

    stake: str | None = None  # the true stake, secret until the end
    style: str | None = None  # secret until the Shot
    slot: int | None = None  # spell slot level, secret until the Shot; 0 = cantrip
    trick: int = 0  # Trick dice held
    fault: int = 0  # Fault dice held
    move: str | None = None  # this Stare round's declared Move
    initiative: int | None = None  # the latest initiative total (Stare round or Shot)
    attack: tuple[int, ...] = ()  # the Shot's d20(s); with advantage two, the higher kept
    trick_dice: tuple[int, ...] = ()  # the Shot's Trick d6s, as they stand
    fault_dice: tuple[int, ...] = ()  # the Shot's Fault d6s, as they stand

    def to_dict(self) -> dict[str, Any]:
        return {
            "stake": self.stake,
            "style": self.style,
            "slot": self.slot,
            "trick": self.trick,
            "fault": self.fault,
            "move": self.move,
            "initiative": self.initiative,
            "attack": list(self.attack),
            "trick_dice": list(self.trick_dice),
            "fault_dice": list(self.fault_dice),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "corner") -> Corner:
        # A stored state is trusted no more than a pasted one (`duelbot verify`): every
        # number is a bounded whole number, so 1e400 or 10**30 Trick dice are refused here
        # instead of overflowing or rolling for ever in the Shot.
        if not isinstance(data, Mapping):
            raise InvalidRoundInput(f"{where} must be an object, not {_shown(data)}.")

        def opt(key: str, allowed: Sequence[str]) -> str | None:
            value = data.get(key)
            if value is None:
                return None
            if value not in allowed:
                raise InvalidRoundInput(
                    f"{where}.{key} {_shown(value)} is not one of {', '.join(allowed)}."
                )
            return str(value)

        def whole(key: str, low: int, high: int, default: int | None) -> int | None:
            value = data.get(key, default)
            if value is None:
                return None
            return _check_int(f"{where}.{key}", value, low, high)

        def dice(key: str, faces: int, most: int) -> tuple[int, ...]:
            values = data.get(key, ())
            if not isinstance(values, list | tuple) or len(values) > most:
                raise InvalidRoundInput(
                    f"{where}.{key} must be a list of at most {most} dice, not {_shown(values)}."
                )
            return tuple(_check_int(f"{where}.{key}", v, 1, faces) for v in values)

        return cls(
            stake=opt("stake", STAKES),
            style=opt("style", STYLES),
            slot=whole("slot", 0, LEVELS, None),
            trick=whole("trick", 0, DICE_HELD_LIMIT, 0) or 0,
            fault=whole("fault", 0, DICE_HELD_LIMIT, 0) or 0,
            move=opt("move", STARE_MOVE_IDS),
            initiative=whole("initiative", -INITIATIVE_LIMIT, INITIATIVE_LIMIT, None),
            attack=dice("attack", 20, 2),
            trick_dice=dice("trick_dice", 6, DICE_HELD_LIMIT),
            fault_dice=dice("fault_dice", 6, DICE_HELD_LIMIT),
        )


#: Far above what a duel reaches (three Stare rounds win a few dice; d20 + a modifier), low
#: enough that a forged state cannot make the Shot roll for ever.
DICE_HELD_LIMIT = 20
INITIATIVE_LIMIT = 10_000


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


# -- house rules (docs/rules/foeq-spell-duel.md, "House rules") ---------------------------

ADVANTAGE = "advantage"
AUTO_WIN = "auto-win"
WINNER_ONLY = "winner-only"
EITHER = "either"
TRUE_STAKES = "true-stakes"
PUBLIC_STAKES = "public-stakes"

STRONG_AGAINST_RULE = HouseRule(
    "strong-against",
    (ADVANTAGE, AUTO_WIN),
    ADVANTAGE,
    N_(
        "a Move Strong Against the opponent's Move gives advantage on the Stare check, or "
        "wins it outright (no roll, the benefit without its 5-or-more part)"
    ),
)
DISRUPTIVE_RULE = HouseRule(
    "disruptive",
    (WINNER_ONLY, EITHER),
    WINNER_ONLY,
    N_(
        "who the Disruptive Style lets choose the loser's consequence: only a Disruptive "
        "winner, or a Disruptive duellist whether they won or lost"
    ),
)
SHOT_TIE_RULE = HouseRule(
    "shot-tie",
    (TRUE_STAKES, PUBLIC_STAKES),
    TRUE_STAKES,
    N_(
        "a tie at the Shot: each suffers the other's true (secret) stake, or both suffer "
        "the public stake"
    ),
)
HOUSE_RULES: tuple[HouseRule, ...] = (STRONG_AGAINST_RULE, DISRUPTIVE_RULE, SHOT_TIE_RULE)
HOUSE_DEFAULTS: dict[str, str] = {rule.key: rule.default for rule in HOUSE_RULES}


def check_house_rules(values: object) -> dict[str, str]:
    """Every house rule's value from a stored mapping (missing keys: the defaults)."""
    if not isinstance(values, Mapping):
        raise InvalidRoundInput("house_rules must be an object of house rule values.")
    found = dict(HOUSE_DEFAULTS)
    for rule in HOUSE_RULES:
        value = values.get(rule.key, rule.default)
        if value not in rule.values:
            raise InvalidRoundInput(
                f"{rule.key} must be one of {rule.allowed_text()}, not {value!r}."
            )
        found[rule.key] = value
    unknown = set(values) - set(HOUSE_DEFAULTS)
    if unknown:
        raise InvalidRoundInput(f"{sorted(unknown)[0]!r} is not a FoEQ house rule.")
    return found


def _side(value: object) -> Side | None:
    return "a" if value == "a" else "b" if value == "b" else None


def _sides(values: object) -> tuple[Side, ...]:
    found: list[Side] = []
    for value in values if isinstance(values, list | tuple) else ():
        side = _side(value)
        if side is None:
            raise InvalidRoundInput(f"{value!r} is not a side (a or b).")
        found.append(side)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class FoeqState:
    """The whole duel between steps.

    ``phase``: where the duel is (see the module docstring). ``awaiting``: the sides that
    must choose for the next step, in order (empty once the duel is over). ``public``:
    whether that choice is made in the open (False: secret, by DM). ``notes``: the private
    notes produced by the step that led to this state, as (side, text) pairs.
    """

    a: Duellist
    b: Duellist
    corner_a: Corner = field(default_factory=Corner)
    corner_b: Corner = field(default_factory=Corner)
    public_stake: str = PRIDE
    challenger: Side = "a"
    phase: str = SETUP
    awaiting: tuple[Side, ...] = SIDES
    public: bool = False
    stare_round: int = 0  # 1..3 during the Stare
    first: Side | None = None  # lower initiative (Stare round or Shot): declares/twists first
    twist_queue: tuple[Side, ...] = ()  # sides still to consider for a Strategic Twist
    shot_winner: Side | None = None
    step: int = 0  # steps resolved so far
    ended: bool = False
    winner: Side | None = None
    notes: tuple[tuple[Side, str], ...] = ()
    consequences: tuple[str, ...] = ()  # what the Score did, for the record
    #: The duel's house rules (docs/rules/foeq-spell-duel.md), fixed at the start.
    house_rules: Mapping[str, str] = field(default_factory=lambda: dict(HOUSE_DEFAULTS))

    def duellist(self, side: Side) -> Duellist:
        return self.a if side == "a" else self.b

    def corner(self, side: Side) -> Corner:
        return self.corner_a if side == "a" else self.corner_b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "corners": {"a": self.corner_a.to_dict(), "b": self.corner_b.to_dict()},
            "public_stake": self.public_stake,
            "challenger": self.challenger,
            "phase": self.phase,
            "awaiting": list(self.awaiting),
            "public": self.public,
            "stare_round": self.stare_round,
            "first": self.first,
            "twist_queue": list(self.twist_queue),
            "shot_winner": self.shot_winner,
            "step": self.step,
            "ended": self.ended,
            "winner": self.winner,
            "notes": [[side, text] for side, text in self.notes],
            "consequences": list(self.consequences),
            "house_rules": dict(self.house_rules),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FoeqState:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A FoEQ duel state must be an object.")
        try:
            corners = data.get("corners", {})
            if not isinstance(corners, Mapping):
                raise InvalidRoundInput(f"corners must be an object, not {_shown(corners)}.")
            phase = data.get("phase", SETUP)
            if phase not in PHASES:
                raise InvalidRoundInput(f"Unknown FoEQ phase {phase!r}.")
            stake = data.get("public_stake", PRIDE)
            if stake not in STAKES:
                raise InvalidRoundInput(f"Unknown public stake {stake!r}.")
            if "a" not in data or "b" not in data:
                raise InvalidRoundInput("A FoEQ duel state needs duellists a and b.")
            notes: list[tuple[Side, str]] = []
            for item in data.get("notes", ()):
                side = _side(item[0])
                if side is None:
                    raise InvalidRoundInput("A private note must name side a or b.")
                notes.append((side, str(item[1])))
            return cls(
                a=Duellist.from_dict(data["a"]),
                b=Duellist.from_dict(data["b"]),
                corner_a=Corner.from_dict(corners.get("a", {}), "corners.a"),
                corner_b=Corner.from_dict(corners.get("b", {}), "corners.b"),
                public_stake=stake,
                challenger=_side(data.get("challenger")) or "a",
                phase=phase,
                awaiting=_sides(data.get("awaiting", ())),
                public=bool(data.get("public", False)),
                stare_round=int(data.get("stare_round", 0)),
                first=_side(data.get("first")),
                twist_queue=_sides(data.get("twist_queue", ())),
                shot_winner=_side(data.get("shot_winner")),
                step=int(data.get("step", 0)),
                ended=bool(data.get("ended", False)),
                winner=_side(data.get("winner")),
                notes=tuple(notes),
                consequences=tuple(str(c) for c in data.get("consequences", ())),
                house_rules=check_house_rules(data.get("house_rules") or {}),
            )
        except (InvalidStats, InvalidRoundInput) as exc:
            raise InvalidRoundInput(f"Malformed FoEQ duel state: {exc.message}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError,
                OverflowError) as exc:
            raise InvalidRoundInput(f"Malformed FoEQ duel state ({exc}).") from None


@dataclass(frozen=True, slots=True)
class Options:
    """``house_rules``: house rules given with the options (``make_options``); they
    override the duel's own (recorded in its state at the start)."""

    missing_move: MissingMovePolicy = "none"
    house_rules: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.missing_move not in MISSING_MOVE_POLICIES:
            raise InvalidRoundInput(
                f"missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
                f"not {self.missing_move!r}."
            )



