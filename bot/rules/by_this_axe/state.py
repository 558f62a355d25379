"""By This Axe duel state and adjudication options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

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
from bot.rules.by_this_axe.text import N_
from bot.rules.errors import InvalidRoundInput
from bot.rules.params import DuelParam, HouseRule, LegacyParam
from bot.rules.terms import SIDES, Side

# -- house rules (docs/rules/by-this-axe.md, "House rules") ------------------------------------

Flight = Literal["before-blows", "after-blows"]
Forfeit = Literal["victim-chooses", "parry-first", "attack-first"]
BEFORE_BLOWS: Final = "before-blows"
AFTER_BLOWS: Final = "after-blows"
VICTIM_CHOOSES: Final = "victim-chooses"
PARRY_FIRST: Final = "parry-first"
ATTACK_FIRST: Final = "attack-first"

FLIGHT_RULE = HouseRule(
    "flight",
    (BEFORE_BLOWS, AFTER_BLOWS),
    BEFORE_BLOWS,
    N_(
        "when the flee die is rolled: before the opponent's blows (a hero fleeing a hero "
        "escapes 1 time in 2) or after them, if the fleer survives"
    ),
)
FORFEIT_RULE = HouseRule(
    "forfeit",
    (VICTIM_CHOOSES, PARRY_FIRST, ATTACK_FIRST),
    VICTIM_CHOOSES,
    N_(
        "which two dice a successful dirty trick takes: the victim chooses (an extra step), "
        "or parry dice first, or attack dice first"
    ),
)
HOUSE_RULES: tuple[HouseRule, ...] = (FLIGHT_RULE, FORFEIT_RULE)

ALLOT_ALL = DuelParam(
    "allot_all", "bool", False, N_("every die must be allotted each round (true/false)")
)
#: ``trick_takes`` predates the ``forfeit`` house rule: normalised to it at the start (and
#: when stored params are read), so exports and status show the reading that runs.
TRICK_TAKES_PARAM = LegacyParam(
    "trick_takes", FORFEIT_RULE.key, (("parry_first", PARRY_FIRST), ("attack_first", ATTACK_FIRST))
)

#: Duels stored before the house rules existed were resolved with the flee die after the
#: blows; their states (no "house_rules" key) keep that reading so they re-adjudicate alike.
LEGACY_FLIGHT: Flight = AFTER_BLOWS


def _flight(value: object) -> Flight:
    if value == BEFORE_BLOWS:
        return BEFORE_BLOWS
    if value == AFTER_BLOWS:
        return AFTER_BLOWS
    raise InvalidRoundInput(
        f"flight must be one of {FLIGHT_RULE.allowed_text()}, not {_shown(value)}."
    )


def _forfeit(value: object) -> Forfeit:
    for allowed in (VICTIM_CHOOSES, PARRY_FIRST, ATTACK_FIRST):
        if value == allowed:
            return allowed
    raise InvalidRoundInput(
        f"forfeit must be one of {FORFEIT_RULE.allowed_text()}, not {_shown(value)}."
    )


def forfeit_from_trick_takes(value: object) -> Forfeit:
    """The legacy per-duel param ``trick_takes`` (parry_first, attack_first) as ``forfeit``."""
    return ATTACK_FIRST if _trick_takes(value) == "attack_first" else PARRY_FIRST


@dataclass(frozen=True, slots=True)
class PendingTrick:
    """A round halted after its dirty tricks, waiting for the victims to choose which dice
    they forfeit (``forfeit = victim-chooses``). ``picks``: both sides' canonical choices
    for the round; ``tricked``: every side a dirty trick worked against; ``victims``: those
    of them with a choice to make (the others lose what the only split takes)."""

    picks: Mapping[Side, str | None]
    tricked: tuple[Side, ...]
    victims: tuple[Side, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "picks": dict(self.picks),
            "tricked": list(self.tricked),
            "victims": list(self.victims),
        }

    @classmethod
    def from_dict(cls, data: object) -> PendingTrick | None:
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("pending must be an object {picks, victims} or null.")
        picks_raw = data.get("picks")
        if not isinstance(picks_raw, Mapping):
            raise InvalidRoundInput("pending.picks must be an object {a: ..., b: ...}.")
        picks: dict[Side, str | None] = {}
        for side in SIDES:
            value = picks_raw.get(side)
            if value is not None and not isinstance(value, str):
                raise InvalidRoundInput(f"pending.picks.{side} must be a string or null.")
            picks[side] = value
        found: dict[str, tuple[Side, ...]] = {}
        for key in ("tricked", "victims"):
            listed = data.get(key)
            if not isinstance(listed, list | tuple) or not listed or any(
                v not in SIDES for v in listed
            ):
                raise InvalidRoundInput(f"pending.{key} must list side a and/or b.")
            found[key] = tuple(v for v in SIDES if v in listed)
        if not set(found["victims"]) <= set(found["tricked"]):
            raise InvalidRoundInput("pending.victims must be sides a dirty trick worked against.")
        return cls(picks, found["tricked"], found["victims"])


@dataclass(frozen=True, slots=True)
class DuelState:
    a: Combatant
    b: Combatant
    round_no: int = 1  # the round to be resolved next
    allot_all: bool = False
    flight: Flight = BEFORE_BLOWS
    forfeit: Forfeit = PARRY_FIRST
    ended: bool = False
    winner: Side | None = None
    outcome: str | None = None  # the last round's outcome
    pending: PendingTrick | None = None  # a round waiting for the victims' forfeit choice

    def duellist(self, side: Side) -> Combatant:
        return self.a if side == "a" else self.b

    @property
    def house_rules(self) -> dict[str, str]:
        return {FLIGHT_RULE.key: self.flight, FORFEIT_RULE.key: self.forfeit}

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "round": self.round_no,
            "allot_all": self.allot_all,
            "house_rules": self.house_rules,
            "ended": self.ended,
            "winner": self.winner,
            "outcome": self.outcome,
            "pending": None if self.pending is None else self.pending.to_dict(),
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
        house = data.get("house_rules")
        if house is None:  # stored before house rules: the reading it was played under
            flight, forfeit = LEGACY_FLIGHT, forfeit_from_trick_takes(data.get("trick_takes"))
        elif isinstance(house, Mapping):
            flight = _flight(house.get(FLIGHT_RULE.key, FLIGHT_RULE.default))
            forfeit = _forfeit(house.get(FORFEIT_RULE.key, FORFEIT_RULE.default))
        else:
            raise InvalidRoundInput("house_rules must be an object {flight, forfeit}.")
        if "a" not in data or "b" not in data:
            raise InvalidRoundInput("A By This Axe duel state needs duellists a and b.")
        return cls(
            a=Combatant.from_dict(data["a"]),
            b=Combatant.from_dict(data["b"]),
            round_no=round_no,
            allot_all=bool(data.get("allot_all", False)),
            flight=flight,
            forfeit=forfeit,
            ended=bool(data.get("ended", False)),
            winner=winner if winner in SIDES else None,
            outcome=outcome if outcome in OUTCOMES else None,
            pending=PendingTrick.from_dict(data.get("pending")),
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
    """Adjudication options. ``flight``/``forfeit``: a house rule given with the options
    (``make_options``); None keeps the duel's own (recorded in its state at the start)."""

    missing_move: MissingMovePolicy = "none"
    flight: Flight | None = None
    forfeit: Forfeit | None = None

    def __post_init__(self) -> None:
        if self.missing_move not in MISSING_MOVE_POLICIES:
            raise InvalidRoundInput(
                f"missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
                f"not {self.missing_move!r}."
            )
        if self.flight is not None:
            _flight(self.flight)
        if self.forfeit is not None:
            _forfeit(self.forfeit)


def rules_in_force(state: DuelState, options: Options) -> tuple[Flight, Forfeit]:
    """The house rules a round is resolved under: the options' when given, else the duel's."""
    return options.flight or state.flight, options.forfeit or state.forfeit


PARAM_KEYS: tuple[str, ...] = ("allot_all", "trick_takes", FLIGHT_RULE.key, FORFEIT_RULE.key)


def forfeit_dice(
    allot: Allotment, takes: TrickTakes | Forfeit, n: int = TRICK_FORFEIT
) -> Allotment:
    """``allot`` after a successful dirty trick: ``n`` dice from parry then attack (or the
    other way round), never below 0. The trick die itself is never taken."""
    if takes in ("parry_first", PARRY_FIRST):
        from_parry = min(n, allot.parry)
        from_attack = min(n - from_parry, allot.attack)
    else:
        from_attack = min(n, allot.attack)
        from_parry = min(n - from_attack, allot.parry)
    return Allotment(allot.attack - from_attack, allot.parry - from_parry, allot.tricks)


def forfeit_splits(allot: Allotment, n: int = TRICK_FORFEIT) -> tuple[Allotment, ...]:
    """Every way the victim may forfeit ``n`` dice (or all they have, if fewer) from attack
    and parry: each as the dice *forfeited* (tricks 0), most attack dice first."""
    total = min(n, allot.attack + allot.parry)
    return tuple(
        Allotment(from_attack, total - from_attack, 0)
        for from_attack in range(min(total, allot.attack), -1, -1)
        if total - from_attack <= allot.parry
    )
