"""The FoEQ spell duel (FoEQ p20): stakes, styles, the Stare, the Shot, the Score.

Interpretation and every choice made: docs/rules/foeq-spell-duel.md.

The duel is a state machine driven as a sequence of *steps*. Each step is one round of the
generic machinery: the state says which sides must choose (``state.awaiting``), whether
their choice is secret (``state.public`` false: chosen by DM, never shown) or public, and
``moves(state, side)`` lists the legal choices. ``resolve(state, choices, dice, options)``
applies the step, then plays every part of the duel that needs only dice, and stops at the
next step that needs a choice (or at the end of the duel). Phases:

==================  =================  ========  ==========================================
phase               awaiting           public    choice ids
==================  =================  ========  ==========================================
``setup``           both               no        ``stake=<stake>;style=<style>;slot=<0-9>``
``stare_first``     lower initiative   yes       a Move id, e.g. ``bluff``
``stare_second``    higher initiative  yes       a Move id
``stare_style``     the Move's winner  no        ``keep`` or ``style=<style>``
``shot_twist``      the side to twist  yes       ``none`` or ``reroll:<trick|fault>:<n>``
``score_choice``    the victor         yes       ``hit_die``, a school, ``first_blood``,
                                                 ``death``
``over``            nobody             yes       (none: the duel has ended)
==================  =================  ========  ==========================================

Information only one duellist may learn (their own secret choices confirmed, the
opponent's Style learnt by Tactical Analysis or Sage Advice, their own Style change) is put
in ``state.notes`` and read with ``private_notes(result)``; it never appears in the public
log, the rolls or ``result.choices`` (masked as ``"secret"`` for a secret step). The state
itself holds the secrets (true stakes, styles): the service stores it but must never
publish it while the duel runs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.rules.base import (
    SIDES,
    Fighter,
    LogEvent,
    MoveSpec,
    RoundResult,
    Ruleset,
    SheetField,
    Side,
    other_side,
    register,
)
from bot.rules.dice import DiceSource, Roll
from bot.rules.errors import DiceError, InvalidChoice, InvalidRoundInput, InvalidStats

RULESET_ID = "foeq-spell-duel"

# -- the tables of FoEQ p20 -------------------------------------------------------------

PRIDE = "pride"
FIRST_BLOOD = "first_blood"
DEATH = "death"
STAKES: tuple[str, ...] = (PRIDE, FIRST_BLOOD, DEATH)
STAKE_LABELS = {PRIDE: "Pride", FIRST_BLOOD: "First Blood", DEATH: "Death"}
STAKE_RANK = {PRIDE: 0, FIRST_BLOOD: 1, DEATH: 2}

STEADFAST = "steadfast"
QUICK = "quick"
OVERWHELMING = "overwhelming"
WEIRD = "weird"
DISRUPTIVE = "disruptive"
STYLES: tuple[str, ...] = (STEADFAST, QUICK, OVERWHELMING, WEIRD, DISRUPTIVE)
STYLE_LABELS = {s: s.capitalize() for s in STYLES}

#: "You sometimes get...": advantage on the Shot's attack when the opponent's Style is one of
ADVANTAGE_AGAINST: dict[str, frozenset[str]] = {
    STEADFAST: frozenset({QUICK, DISRUPTIVE}),
    QUICK: frozenset({OVERWHELMING, WEIRD}),
    OVERWHELMING: frozenset({STEADFAST, DISRUPTIVE}),
    WEIRD: frozenset({OVERWHELMING, STEADFAST}),
    DISRUPTIVE: frozenset({QUICK, WEIRD}),
}

TRICK = "trick"
FAULT = "fault"
#: "You always get...": the die a Style may reroll in the Shot, as (kind, whose: own/opponent)
REROLL: dict[str, tuple[str, Literal["own", "opponent"]]] = {
    STEADFAST: (FAULT, "own"),
    QUICK: (TRICK, "opponent"),
    OVERWHELMING: (TRICK, "own"),
    WEIRD: (FAULT, "opponent"),
}

SKILLS: tuple[str, ...] = (
    "sleight_of_hand",
    "performance",
    "deception",
    "intimidation",
    "perception",
    "insight",
    "arcana",
    "investigation",
)
SKILL_LABELS = {
    "sleight_of_hand": "Dex (Sleight of Hand)",
    "performance": "Cha (Performance)",
    "deception": "Cha (Deception)",
    "intimidation": "Cha (Intimidation)",
    "perception": "Wis (Perception)",
    "insight": "Wis (Insight)",
    "arcana": "Int (Arcana)",
    "investigation": "Int (Investigation)",
}

SCHOOLS: tuple[str, ...] = (
    "abjuration",
    "conjuration",
    "divination",
    "enchantment",
    "evocation",
    "illusion",
    "necromancy",
    "transmutation",
)
#: The Pride alternatives, in the seed's order.
PRIDE_SCHOOLS: tuple[str, ...] = (
    "necromancy",
    "abjuration",
    "divination",
    "enchantment",
    "illusion",
)

TWITCH = "twitch"
SHOW_OFF = "show_off"
BLUFF = "bluff"
THE_LOOK = "the_look"
EYE_OF_THE_BEHOLDER = "eye_of_the_beholder"
SEE_THROUGH_THEM = "see_through_them"
SAGE_ADVICE = "sage_advice"
TACTICAL_ANALYSIS = "tactical_analysis"


@dataclass(frozen=True, slots=True)
class StareMove:
    id: str
    label: str
    skill: str
    strong_against: str
    aliases: tuple[str, ...]


STARE_MOVES: tuple[StareMove, ...] = (
    StareMove(TWITCH, "Twitch", "sleight_of_hand", EYE_OF_THE_BEHOLDER, ("tw",)),
    StareMove(SHOW_OFF, "Show Off", "performance", THE_LOOK, ("so", "showoff")),
    StareMove(BLUFF, "Bluff", "deception", SAGE_ADVICE, ("bl",)),
    StareMove(THE_LOOK, "The Look", "intimidation", SEE_THROUGH_THEM, ("look", "tl")),
    StareMove(
        EYE_OF_THE_BEHOLDER, "Eye of the Beholder", "perception", BLUFF, ("eye", "eotb")
    ),
    StareMove(SEE_THROUGH_THEM, "See Through Them", "insight", TWITCH, ("see_through", "stt")),
    StareMove(SAGE_ADVICE, "Sage Advice", "arcana", SHOW_OFF, ("sage", "sa")),
    StareMove(
        TACTICAL_ANALYSIS, "Tactical Analysis", "investigation", TACTICAL_ANALYSIS,
        ("tactical", "ta"),
    ),
)
STARE: dict[str, StareMove] = {m.id: m for m in STARE_MOVES}
STARE_MOVE_IDS: tuple[str, ...] = tuple(STARE)

STARE_ROUNDS = 3
BIG_WIN = 5  # "If you win the check by 5 or more"
#: Consecutive ties (initiative, Stare checks) after which the dice are taken to be broken.
MAX_TIES = 100

# -- phases and choice ids -------------------------------------------------------------

SETUP = "setup"
STARE_FIRST = "stare_first"
STARE_SECOND = "stare_second"
STARE_STYLE = "stare_style"
SHOT_TWIST = "shot_twist"
SCORE_CHOICE = "score_choice"
OVER = "over"
PHASES: tuple[str, ...] = (
    SETUP, STARE_FIRST, STARE_SECOND, STARE_STYLE, SHOT_TWIST, SCORE_CHOICE, OVER,
)
SECRET_PHASES = frozenset({SETUP, STARE_STYLE})

KEEP = "keep"
NO_TWIST = "none"
HIT_DIE = "hit_die"
CONSEQUENCES: tuple[str, ...] = (HIT_DIE, *PRIDE_SCHOOLS, FIRST_BLOOD, DEATH)
CONSEQUENCE_LABELS = {
    HIT_DIE: "Pride: lose one Hit Die",
    "necromancy": "Pride (Necromancy): Poisoned for 1 minute",
    "abjuration": "Pride (Abjuration): one random spell or magical effect ends",
    "divination": "Pride (Divination): the winner learns their surface thoughts",
    "enchantment": "Pride (Enchantment): Charmed by the winner for 10 minutes",
    "illusion": "Pride (Illusion): Frightened of the winner for 10 minutes",
    FIRST_BLOOD: "First Blood: HP to half the maximum (or 1)",
    DEATH: "Death: HP to 0",
}
SECRET_CHOICE = "secret"

#: Outcomes of a step (RoundResult.outcome).
OUTCOMES: tuple[str, ...] = (
    "setup",  # both set their stakes, Styles and slots; the Stare begins
    "declared",  # the first declaration of a Stare round
    "stare_a",  # A won this Stare round's check
    "stare_b",
    "stare_none",  # nobody declared a Move this Stare round
    "style_decided",  # a secret Style change decision was made
    "twist",  # a Strategic Twist was taken or declined
    "shot_a",  # A won the Shot; the Score waits for A's choice
    "shot_b",
    "a_wins",  # the duel has ended (a forfeit too)
    "b_wins",
    "tie",  # the Shot was a tie: both suffered the stakes
    "no_winner",  # both forfeited (missing_move = forfeit)
)

MissingMovePolicy = Literal["none", "forfeit"]
MISSING_MOVE_POLICIES: tuple[str, ...] = ("none", "forfeit")

CLAUSE = "FoEQ p20"
C_STAKES = f"{CLAUSE} Setting The Stakes"
C_STYLE = f"{CLAUSE} The Style"
C_STARE_INIT = f"{CLAUSE} The Stare, Roll for Initiative"
C_STARE_FIRST = f"{CLAUSE} The Stare, First Declaration"
C_STARE_SECOND = f"{CLAUSE} The Stare, Second Declaration"
C_STARE_ROLL = f"{CLAUSE} The Stare, Roll the Stare"
C_STARE_RESOLVE = f"{CLAUSE} The Stare, Resolve"
C_SHOT_INIT = f"{CLAUSE} The Shot, Roll Initiative"
C_SHOT_REVEAL = f"{CLAUSE} The Shot, Reveal Style and Power"
C_SHOT_CAST = f"{CLAUSE} The Shot, Cast!"
C_SHOT_TRICKS = f"{CLAUSE} The Shot, Tricks"
C_SHOT_FAULTS = f"{CLAUSE} The Shot, Faults"
C_SHOT_TWIST = f"{CLAUSE} The Shot, Strategic Twist"
C_SHOT_RESULT = f"{CLAUSE} The Shot, Determine the Result"
C_SCORE = f"{CLAUSE} The Score"
C_FORFEIT = "duelbot missing_move = forfeit"
C_MISSING = "duelbot missing_move = none"

# -- sheets ----------------------------------------------------------------------------

MOD_MIN, MOD_MAX = -20, 40
HP_MAX_LIMIT = 10_000
HIT_DICE_LIMIT = 100
SLOT_COUNT_LIMIT = 20
LEVELS = 9


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStats(f"{name} must be a whole number, not {value!r}.")
    if not low <= value <= high:
        raise InvalidStats(f"{name} must be between {low} and {high}, not {value}.")
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
                raise InvalidStats(f"spell_slots: {key!r} is not a spell level.") from None
            _check_int("spell_slots level", level, 1, LEVELS)
            counts[level - 1] = _check_int(
                f"spell_slots[{level}]", count, 0, SLOT_COUNT_LIMIT
            )
    elif isinstance(value, list | tuple):
        if len(value) > LEVELS:
            raise InvalidStats("spell_slots lists at most 9 levels (1 to 9).")
        for i, count in enumerate(value):
            counts[i] = _check_int(f"spell_slots[{i + 1}]", count, 0, SLOT_COUNT_LIMIT)
    elif value is not None:
        raise InvalidStats(
            "spell_slots must be a list of counts per level (level 1 first), e.g. [4, 2, 1]."
        )
    return tuple(counts)


def _check_levels(value: object) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple):
        raise InvalidStats("free_cast_levels must be a list of spell levels 1 to 9.")
    return tuple(sorted({_check_int("free_cast_levels", v, 1, LEVELS) for v in value}))


def _check_schools(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,;]+", value) if v]
    if not isinstance(value, list | tuple):
        raise InvalidStats("schools must be a list of schools of magic.")
    found: set[str] = set()
    for item in value:
        key = _normalise(item) if isinstance(item, str) else ""
        if key not in SCHOOLS:
            raise InvalidStats(
                f"schools: {item!r} is not a school of magic. Allowed: {', '.join(SCHOOLS)}."
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
            raise InvalidStats("A FoEQ sheet must be an object of named fields.")

        def mod(key: str) -> int:
            return _check_int(key, sheet.get(key, 0), MOD_MIN, MOD_MAX)

        if "hp_max" not in sheet:
            raise InvalidStats("hp_max is required (the Hit Point maximum).")
        hp_max = _check_int("hp_max", sheet.get("hp_max"), 1, HP_MAX_LIMIT)
        hp = _check_int("hp", sheet.get("hp", hp_max), 0, HP_MAX_LIMIT)
        if hp > hp_max:
            raise InvalidStats(f"hp ({hp}) cannot exceed hp_max ({hp_max}).")
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
    def from_dict(cls, data: Mapping[str, Any]) -> Corner:
        def opt(key: str, allowed: Sequence[str]) -> str | None:
            value = data.get(key)
            if value is None:
                return None
            if value not in allowed:
                raise InvalidRoundInput(f"{key} {value!r} is not one of {', '.join(allowed)}.")
            return str(value)

        def ints(key: str) -> tuple[int, ...]:
            return tuple(int(v) for v in data.get(key, ()))

        slot = data.get("slot")
        initiative = data.get("initiative")
        return cls(
            stake=opt("stake", STAKES),
            style=opt("style", STYLES),
            slot=None if slot is None else int(slot),
            trick=int(data.get("trick", 0)),
            fault=int(data.get("fault", 0)),
            move=opt("move", STARE_MOVE_IDS),
            initiative=None if initiative is None else int(initiative),
            attack=ints("attack"),
            trick_dice=ints("trick_dice"),
            fault_dice=ints("fault_dice"),
        )


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
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FoeqState:
        if not isinstance(data, Mapping):
            raise InvalidRoundInput("A FoEQ duel state must be an object.")
        try:
            corners = data.get("corners", {})
            phase = data.get("phase", SETUP)
            if phase not in PHASES:
                raise InvalidRoundInput(f"Unknown FoEQ phase {phase!r}.")
            stake = data.get("public_stake", PRIDE)
            if stake not in STAKES:
                raise InvalidRoundInput(f"Unknown public stake {stake!r}.")
            notes: list[tuple[Side, str]] = []
            for item in data.get("notes", ()):
                side = _side(item[0])
                if side is None:
                    raise InvalidRoundInput("A private note must name side a or b.")
                notes.append((side, str(item[1])))
            return cls(
                a=Duellist.from_dict(data["a"]),
                b=Duellist.from_dict(data["b"]),
                corner_a=Corner.from_dict(corners.get("a", {})),
                corner_b=Corner.from_dict(corners.get("b", {})),
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
            )
        except InvalidStats as exc:
            raise InvalidRoundInput(f"Malformed FoEQ duel state: {exc.message}") from None
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise InvalidRoundInput(f"Malformed FoEQ duel state ({exc}).") from None


@dataclass(frozen=True, slots=True)
class Options:
    missing_move: MissingMovePolicy = "none"

    def __post_init__(self) -> None:
        if self.missing_move not in MISSING_MOVE_POLICIES:
            raise InvalidRoundInput(
                f"missing_move must be one of {', '.join(MISSING_MOVE_POLICIES)}, "
                f"not {self.missing_move!r}."
            )


# -- parsing ---------------------------------------------------------------------------


def _normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return re.sub(r"[\s_\-]+", "_", folded.strip().casefold()).strip("_")


def _lookup(pairs: Mapping[str, Sequence[str]]) -> dict[str, str]:
    table: dict[str, str] = {}
    for canonical, names in pairs.items():
        for name in (canonical, *names):
            key = _normalise(name)
            table[key] = canonical
            table[key.replace("_", "")] = canonical
    return table


_MOVE_LOOKUP = _lookup({m.id: (m.label, *m.aliases) for m in STARE_MOVES})
_STAKE_LOOKUP = _lookup({PRIDE: (), FIRST_BLOOD: ("fb",), DEATH: ("kill",)})
_STYLE_LOOKUP = _lookup(
    {
        STEADFAST: (),
        QUICK: (),
        OVERWHELMING: (),
        WEIRD: ("wierd",),  # the seed spells it both ways: one Style
        DISRUPTIVE: (),
    }
)
_CONSEQUENCE_LOOKUP = _lookup(
    {
        HIT_DIE: ("hit dice", "hd", "pride", "hitdie"),
        **{s: () for s in PRIDE_SCHOOLS},
        FIRST_BLOOD: ("first blood", "fb"),
        DEATH: ("kill",),
    }
)
_KEEP_WORDS = frozenset({"keep", "no", "none", "stay", "same", "no_change", "nochange"})
_NONE_WORDS = frozenset({"none", "no", "skip", "pass", "no_reroll", "noreroll", "keep"})


def _key(text: object) -> str:
    return _normalise(text) if isinstance(text, str) else ""


def _shown(text: object) -> str:
    shown = text if isinstance(text, str) else repr(text)
    return shown if len(shown) <= 40 else shown[:40] + "…"


def setup_choice(stake: str, style: str, slot: int) -> str:
    """The canonical setup choice id."""
    return f"stake={stake};style={style};slot={slot}"


_SLOT_TOKEN = re.compile(r"^(?:slot|level|lvl|l)?(\d+)(?:st|nd|rd|th)?$")


def parse_setup(text: str) -> tuple[str, str, int]:
    """(stake, style, slot) from e.g. 'stake=death;style=quick;slot=3', 'death quick 3',
    'First Blood, Wierd, cantrip'. Each part exactly once, in any order."""
    folded = unicodedata.normalize("NFKC", text if isinstance(text, str) else "").casefold()
    folded = re.sub(r"first[\s_\-]*blood", "first_blood", folded)
    tokens = [t for t in re.split(r"[\s;,=:/|]+", folded) if t]
    stakes: list[str] = []
    styles: list[str] = []
    slots: list[int] = []
    for token in tokens:
        key = _normalise(token)
        if key in ("stake", "style", "true_stake"):
            continue
        if key in ("slot", "level", "lvl", "spell_slot", "spellslot"):
            continue
        if key == "cantrip":
            slots.append(0)
        elif key in _STAKE_LOOKUP:
            stakes.append(_STAKE_LOOKUP[key])
        elif key in _STYLE_LOOKUP:
            styles.append(_STYLE_LOOKUP[key])
        elif (match := _SLOT_TOKEN.match(key)) is not None:
            slots.append(int(match.group(1)))
        else:
            raise InvalidChoice(
                f"{_shown(text)!r}: {token!r} is not a stake, Style or spell slot level. "
                f"{_SETUP_HELP}"
            )
    for what, found in (("stake", stakes), ("Style", styles), ("spell slot level", slots)):
        if len(found) != 1:
            problem = "is missing" if not found else "is given more than once"
            raise InvalidChoice(f"{_shown(text)!r}: the {what} {problem}. {_SETUP_HELP}")
    if not 0 <= slots[0] <= LEVELS:
        raise InvalidChoice(f"Spell slot level {slots[0]} is not 0 (cantrip) to 9.")
    return stakes[0], styles[0], slots[0]


_SETUP_HELP = (
    "Give your true stake (pride, first_blood, death), your Style (steadfast, quick, "
    "overwhelming, weird, disruptive) and your spell slot level (0 = cantrip), e.g. "
    "'stake=death;style=quick;slot=3' or 'death quick 3'."
)


def parse_move(text: str) -> str:
    key = _key(text)
    move = _MOVE_LOOKUP.get(key) or _MOVE_LOOKUP.get(key.replace("_", ""))
    if move is None:
        allowed = ", ".join(f"{m.id} ({'/'.join(m.aliases)})" for m in STARE_MOVES)
        raise InvalidChoice(f"{_shown(text)!r} is not a Move. Allowed: {allowed}.")
    return move


def parse_style_change(text: str) -> str:
    key = _key(text)
    if key in _KEEP_WORDS:
        return KEEP
    key = re.sub(r"^(?:change_to|change|switch_to|switch|style)[_=:]*", "", key)
    style = _STYLE_LOOKUP.get(key) or _STYLE_LOOKUP.get(key.replace("_", ""))
    if style is None:
        raise InvalidChoice(
            f"{_shown(text)!r}: say 'keep', or the Style to change to "
            f"({', '.join(STYLES)})."
        )
    return f"style={style}"


_REROLL = re.compile(r"^(?:reroll)?[_=:]*(trick|fault)?[_=:#]*(?:die)?[_=:#]*(\d+)$")


def parse_twist(text: str) -> tuple[str | None, int] | None:
    """None for 'none'; else (kind or None when not given, 1-based die number)."""
    key = _key(text).replace(":", "_")
    if key in _NONE_WORDS:
        return None
    match = _REROLL.match(key)
    if match is None:
        raise InvalidChoice(
            f"{_shown(text)!r}: say 'none', or the die to reroll, e.g. 'reroll:trick:2'."
        )
    return match.group(1), int(match.group(2))


def parse_consequence(text: str) -> str:
    key = _key(text)
    found = _CONSEQUENCE_LOOKUP.get(key) or _CONSEQUENCE_LOOKUP.get(key.replace("_", ""))
    if found is None:
        raise InvalidChoice(
            f"{_shown(text)!r} is not a consequence. Allowed: {', '.join(CONSEQUENCES)}."
        )
    return found


# -- helpers on a state ----------------------------------------------------------------


def awaiting_sides(state: FoeqState) -> tuple[Side, ...]:
    """The sides that must choose for the next step (empty once the duel is over)."""
    return state.awaiting


def is_secret(state: FoeqState) -> bool:
    """True when the next step's choices are secret (by DM, never published)."""
    return not state.public


def private_notes(result: RoundResult) -> dict[Side, list[str]]:
    """What only one duellist may learn from this step (the bot DMs it); never in the log."""
    notes: dict[Side, list[str]] = {"a": [], "b": []}
    state = result.state
    if isinstance(state, FoeqState):
        for side, text in state.notes:
            notes[side].append(text)
    return notes


def twist_pool(state: FoeqState, side: Side) -> tuple[str, Side, tuple[int, ...]] | None:
    """The dice ``side``'s Style may reroll in the Shot: (kind, owner, values), or None."""
    style = state.corner(side).style
    if style not in REROLL:
        return None
    kind, whose = REROLL[style]
    owner = side if whose == "own" else other_side(side)
    corner = state.corner(owner)
    return kind, owner, corner.trick_dice if kind == TRICK else corner.fault_dice


def consequence_options(state: FoeqState, victor: Side) -> tuple[str, ...]:
    """The consequences the victor may choose from (one entry: nothing to choose)."""
    me = state.corner(victor)
    schools = tuple(s for s in PRIDE_SCHOOLS if s in state.duellist(victor).schools)
    if me.style == DISRUPTIVE:
        return (HIT_DIE, *schools, FIRST_BLOOD, DEATH)
    if me.stake == PRIDE:
        return (HIT_DIE, *schools)
    return (me.stake,) if me.stake in (FIRST_BLOOD, DEATH) else (HIT_DIE,)


def default_consequence(stake: str | None) -> str:
    return HIT_DIE if stake in (None, PRIDE) else stake or HIT_DIE


def _d(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


#: Corner fields that are public while the duel runs (the dice are rolled in the open and
#: the Moves declared in the open); stake, style and slot are not.
_PUBLIC_CORNER_KEYS = frozenset(
    {"trick", "fault", "move", "initiative", "attack", "trick_dice", "fault_dice"}
)


def _as_state(state: Any) -> FoeqState:
    if isinstance(state, FoeqState):
        return state
    if isinstance(state, Mapping):
        return FoeqState.from_dict(state)
    raise InvalidRoundInput("A FoEQ duel state is needed.")


def step_prompt(state: FoeqState, side: Side) -> str | None:
    """What the next step asks of ``side``, for the DM prompt (None: nothing is asked)."""
    if side not in state.awaiting:
        return None
    me, other = state.duellist(side), state.duellist(other_side(side))
    them = other.name or f"Duellist {other_side(side).upper()}"
    if state.phase == SETUP:
        levels = ", ".join(str(n) for n in me.slot_levels())
        return (
            "Setup: choose your true stake, style and slot, e.g. `death quick 3`. "
            f"The public stake is {STAKE_LABELS[state.public_stake]}; your true stake is "
            "pride, first_blood or death; your Style steadfast, quick, overwhelming, weird or "
            f"disruptive; your spell slot level one of {levels} (0 = cantrip). "
            "All three stay secret until the Shot (the stake until the end)."
        )
    if state.phase == STARE_FIRST:
        return (
            f"The Stare, round {state.stare_round}, First Declaration: you have the lower "
            f"Initiative, so you declare your Move first, in the open (e.g. `bluff`, `eye`, "
            f"`sage`). {them} declares after you."
        )
    if state.phase == STARE_SECOND:
        first = state.corner(other_side(side)).move
        declared = STARE[first].label if first in STARE else "no Move"
        return (
            f"The Stare, round {state.stare_round}, Second Declaration: {them} declared "
            f"**{declared}**. Declare your Move, in the open (e.g. `bluff`, `eye`, `sage`)."
        )
    if state.phase == STARE_STYLE:
        current = STYLE_LABELS[state.corner(side).style or STEADFAST]
        return (
            f"The Stare, round {state.stare_round}: you may change your Style (now "
            f"{current}). Say `keep`, or the Style to change to. Your decision stays secret."
        )
    if state.phase == SHOT_TWIST:
        pool = twist_pool(state, side)
        dice = ""
        if pool is not None:
            kind, owner, values = pool
            whose = "your" if owner == side else f"{them}'s"
            dice = f" You may reroll one of {whose} {kind.capitalize()} dice: " + ", ".join(
                f"#{i} ({v})" for i, v in enumerate(values, start=1)
            ) + "."
        return (
            "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
            f"or `none`.{dice}"
        )
    if state.phase == SCORE_CHOICE:
        options = ", ".join(f"`{c}`" for c in consequence_options(state, side))
        return (
            f"The Score: you won the Shot. Choose the consequence {them} faces: {options}."
        )
    return None


# -- one step ----------------------------------------------------------------------------


class _Step:
    """Working memory of one resolution; frozen into the next state at the end."""

    def __init__(self, state: FoeqState, dice: DiceSource, options: Options) -> None:
        self.s = state
        self.dice = dice
        self.options = options
        self.duellists: dict[Side, Duellist] = {"a": state.a, "b": state.b}
        self.corners: dict[Side, Corner] = {"a": state.corner_a, "b": state.corner_b}
        self.log: list[LogEvent] = []
        self.rolls: list[Roll] = []
        self.notes: list[tuple[Side, str]] = []
        self.consequences: list[str] = list(state.consequences)
        self.phase = state.phase
        self.awaiting: tuple[Side, ...] = ()
        self.public = True
        self.stare_round = state.stare_round
        self.first = state.first
        self.twist_queue = state.twist_queue
        self.shot_winner = state.shot_winner
        self.ended = False
        self.winner: Side | None = None
        self.outcome = ""

    # small tools
    def name(self, side: Side) -> str:
        return self.duellists[side].name or f"Duellist {side.upper()}"

    def note(self, clause: str, text: str) -> None:
        self.log.append(LogEvent(clause, text))

    def tell(self, side: Side, text: str) -> None:
        self.notes.append((side, text))

    def set(self, side: Side, **changes: Any) -> None:
        self.corners[side] = replace(self.corners[side], **changes)

    def roll(self, sides: int, side: Side, purpose: str) -> int:
        made = self.dice.roll(sides, side=side, purpose=purpose)
        self.rolls.append(made)
        return made.value

    def wait(self, phase: str, *sides: Side) -> None:
        self.phase = phase
        self.awaiting = sides
        self.public = phase not in SECRET_PHASES

    def d20(self, side: Side, purpose: str, advantage: bool) -> tuple[int, ...]:
        first = self.roll(20, side, purpose)
        return (first, self.roll(20, side, purpose)) if advantage else (first,)

    @staticmethod
    def show_d20(values: tuple[int, ...]) -> str:
        if len(values) == 2:
            return f"d20 {values[0]} and {values[1]} with advantage, keeps {max(values)}"
        return f"d20 {values[0]}"

    def initiative(self, purpose: str, clause: str) -> None:
        """Both roll d20 + initiative modifier, A then B; a tie is rerolled by both."""
        for _ in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                value = self.roll(20, side, purpose)
                mod = self.duellists[side].initiative
                totals[side] = value + mod
                self.note(
                    clause, f"{self.name(side)} rolls d20 {value} {mod:+d} = {totals[side]}"
                )
            if totals["a"] != totals["b"]:
                for side in SIDES:
                    self.set(side, initiative=totals[side])
                self.first = "a" if totals["a"] < totals["b"] else "b"
                return
            self.note(clause, f"a tie at {totals['a']}: both reroll")
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")

    # -- phases ----------------------------------------------------------------------
    def setup(self, choices: Mapping[Side, str | None]) -> None:
        missing = [side for side in SIDES if choices.get(side) is None]
        if missing and self.options.missing_move == "forfeit":
            self.forfeit(missing, C_FORFEIT)
            return
        for side in SIDES:
            choice = choices.get(side)
            if choice is None:
                stake, style, slot = self.s.public_stake, STEADFAST, 0
                self.note(
                    C_MISSING,
                    f"{self.name(side)} set nothing by the close: the public stake, the "
                    "Steadfast Style and a cantrip (slot 0) are taken for them",
                )
            else:
                stake, style, slot = parse_setup(choice)
            self.set(side, stake=stake, style=style, slot=slot)
            free = slot in self.duellists[side].free_cast_levels and slot > 0
            self.tell(
                side,
                f"Your secret choices: true stake {STAKE_LABELS[stake]}, Style "
                f"{STYLE_LABELS[style]}, spell slot level {slot}"
                + (" (a cantrip)" if slot == 0 else "")
                + (" (cast without expending a slot)" if free else "")
                + ".",
            )
        self.note(
            C_STAKES,
            f"the public stake, chosen by the challenger {self.name(self.s.challenger)}, "
            f"is {STAKE_LABELS[self.s.public_stake]}; each duellist has secretly written "
            "down their true stake",
        )
        self.note(C_STYLE, "each duellist has secretly chosen a Style and a spell slot level")
        self.outcome = "setup"
        self.start_stare_round(1)

    def start_stare_round(self, number: int) -> None:
        self.stare_round = number
        for side in SIDES:
            self.set(side, move=None)
        self.initiative(f"stare{number}_initiative", f"{C_STARE_INIT} (round {number})")
        lower = self.first or "a"
        self.note(
            C_STARE_INIT,
            f"{self.name(lower)} has the lower Initiative and declares first",
        )
        self.wait(STARE_FIRST, lower)

    def declare(self, side: Side, choice: str | None, clause: str) -> bool:
        """Records a declaration; False when the duel ended by a forfeit."""
        if choice is None:
            if self.options.missing_move == "forfeit":
                self.forfeit([side], C_FORFEIT)
                return False
            self.note(C_MISSING, f"{self.name(side)} declares no Move this round")
            return True
        move = parse_move(choice)
        self.set(side, move=move)
        self.note(clause, f"{self.name(side)} declares {STARE[move].label}")
        return True

    def declare_first(self, side: Side, choice: str | None) -> None:
        if self.declare(side, choice, C_STARE_FIRST):
            self.outcome = "declared"
            self.wait(STARE_SECOND, other_side(side))

    def declare_second(self, side: Side, choice: str | None) -> None:
        if self.declare(side, choice, C_STARE_SECOND):
            self.stare_check()

    def stare_check(self) -> None:
        r = self.stare_round
        moves = {side: self.corners[side].move for side in SIDES}
        declared = [side for side in SIDES if moves[side] is not None]
        if not declared:
            self.note(C_STARE_RESOLVE, "neither duellist declared a Move: nobody benefits")
            self.outcome = "stare_none"
            self.after_stare_round()
            return
        if len(declared) == 1:
            only = declared[0]
            self.note(
                C_STARE_RESOLVE,
                f"{self.name(other_side(only))} made no Move: {self.name(only)} wins "
                "the check uncontested (no roll; the benefit without its 5-or-more part)",
            )
            self.outcome = f"stare_{only}"
            self.benefit(only, None)
            return
        advantage: dict[Side, bool] = {}
        for side in SIDES:
            mine, theirs = STARE[moves[side] or ""], moves[other_side(side)]
            advantage[side] = mine.strong_against == theirs
            if advantage[side]:
                self.note(
                    C_STARE_ROLL,
                    f"{mine.label} is Strong Against {STARE[theirs or ''].label}: "
                    f"{self.name(side)} has advantage on the check",
                )
        for _ in range(MAX_TIES):
            totals: dict[Side, int] = {}
            for side in SIDES:
                move = STARE[moves[side] or ""]
                kept = self.d20(side, f"stare{r}_check", advantage[side])
                mod = self.duellists[side].skill(move.skill)
                totals[side] = max(kept) + mod
                self.note(
                    C_STARE_ROLL,
                    f"{self.name(side)} ({move.label}, {SKILL_LABELS[move.skill]}) rolls "
                    f"{self.show_d20(kept)} {mod:+d} = {totals[side]}",
                )
            if totals["a"] != totals["b"]:
                winner: Side = "a" if totals["a"] > totals["b"] else "b"
                margin = totals[winner] - totals[other_side(winner)]
                self.note(
                    C_STARE_RESOLVE, f"{self.name(winner)} wins the check by {margin}"
                )
                self.outcome = f"stare_{winner}"
                self.benefit(winner, margin)
                return
            self.note(C_STARE_RESOLVE, f"a tie at {totals['a']}: both duellists reroll")
        raise DiceError(f"{MAX_TIES} ties in a row: the dice are not random.")

    def gain(self, side: Side, kind: str, count: int = 1) -> None:
        corner = self.corners[side]
        held = corner.trick if kind == TRICK else corner.fault
        after = max(0, held + count)
        self.set(side, **{kind: after})
        label = "Trick" if kind == TRICK else "Fault"
        if count > 0:
            self.note(
                C_STARE_RESOLVE,
                f"{self.name(side)} gains a {label} die (now {_d(after)})",
            )
        elif held == 0:
            self.note(
                C_STARE_RESOLVE, f"{self.name(side)} has no {label} die to lose"
            )
        else:
            self.note(
                C_STARE_RESOLVE, f"{self.name(side)} loses a {label} die (now {_d(after)})"
            )

    def learn_style(self, side: Side) -> None:
        opponent = other_side(side)
        style = self.corners[opponent].style or STEADFAST
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(side)} learns {self.name(opponent)}'s current Style (told privately)",
        )
        self.tell(
            side,
            f"Stare round {self.stare_round}: you learn {self.name(opponent)}'s current "
            f"Style: {STYLE_LABELS[style]}.",
        )

    def offer_style_change(self, side: Side) -> None:
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(side)} may change their Style if they choose (decided privately)",
        )
        self.wait(STARE_STYLE, side)

    def benefit(self, w: Side, margin: int | None) -> None:
        """The winner's Move's benefit. ``margin`` None: won uncontested (no 5-or-more)."""
        move = self.corners[w].move or ""
        loser = other_side(w)
        big = margin is not None and margin >= BIG_WIN
        label = STARE[move].label
        self.note(
            C_STARE_RESOLVE,
            f"{self.name(w)} gains the benefit of {label}"
            + (" (won by 5 or more)" if big else ""),
        )
        change = False
        if move == TWITCH:
            self.gain(w, TRICK)
            if big:
                self.gain(w, TRICK)
        elif move == SHOW_OFF:
            self.gain(w, TRICK)
            if big:
                self.gain(loser, FAULT)
        elif move == BLUFF:
            self.gain(loser, FAULT)
            if big:
                self.gain(w, TRICK)
        elif move == THE_LOOK:
            self.gain(loser, FAULT)
            if big:
                self.gain(loser, FAULT)
        elif move == EYE_OF_THE_BEHOLDER:
            self.gain(w, FAULT, -1)
            if big:
                self.gain(loser, FAULT)
        elif move == SEE_THROUGH_THEM:
            self.gain(loser, TRICK, -1)
            if big:
                self.gain(w, TRICK)
        elif move == SAGE_ADVICE:
            if big:
                self.learn_style(w)
            change = True
        elif move == TACTICAL_ANALYSIS:
            self.learn_style(w)
            change = big
        if change:
            self.offer_style_change(w)
        else:
            self.after_stare_round()

    def style_change(self, side: Side, choice: str | None) -> None:
        decision = KEEP if choice is None else parse_style_change(choice)
        current = self.corners[side].style or STEADFAST
        if decision == KEEP or decision == f"style={current}":
            self.tell(side, f"You keep your Style: {STYLE_LABELS[current]}.")
        else:
            style = decision.split("=", 1)[1]
            self.set(side, style=style)
            self.tell(
                side,
                f"You change your Style from {STYLE_LABELS[current]} to "
                f"{STYLE_LABELS[style]}.",
            )
        self.note(
            C_STARE_RESOLVE, f"{self.name(side)} has privately decided about their Style"
        )
        self.outcome = "style_decided"
        self.after_stare_round()

    def after_stare_round(self) -> None:
        if self.stare_round < STARE_ROUNDS:
            self.start_stare_round(self.stare_round + 1)
        else:
            self.shot()

    def shot(self) -> None:
        for side in SIDES:
            self.set(side, move=None)
        self.initiative("shot_initiative", C_SHOT_INIT)
        # Reveal Style and Power; expend the slots.
        for side in SIDES:
            corner, me = self.corners[side], self.duellists[side]
            slot = corner.slot or 0
            if slot == 0:
                how = "a cantrip (slot 0)"
            elif slot in me.free_cast_levels:
                how = f"a level {slot} spell cast without expending a spell slot"
            else:
                how = f"a level {slot} spell slot"
                slots = list(me.spell_slots)
                slots[slot - 1] = max(0, slots[slot - 1] - 1)
                self.duellists[side] = replace(me, spell_slots=tuple(slots))
            self.note(
                C_SHOT_REVEAL,
                f"{self.name(side)} reveals the {STYLE_LABELS[corner.style or STEADFAST]} "
                f"Style and {how}",
            )
        slot_a, slot_b = (self.corners[s].slot or 0 for s in SIDES)
        if slot_a != slot_b:
            higher: Side = "a" if slot_a > slot_b else "b"
            self.set(higher, trick=self.corners[higher].trick + 1)
            self.note(
                C_SHOT_REVEAL,
                f"{self.name(higher)} expended the higher level and gains a Trick die "
                f"(now {_d(self.corners[higher].trick)})",
            )
        # Cast!
        for side in SIDES:
            mine = self.corners[side].style or STEADFAST
            theirs = self.corners[other_side(side)].style or STEADFAST
            advantage = theirs in ADVANTAGE_AGAINST[mine]
            if advantage:
                self.note(
                    C_SHOT_CAST,
                    f"{self.name(side)} ({STYLE_LABELS[mine]}) has advantage against the "
                    f"{STYLE_LABELS[theirs]} Style",
                )
            kept = self.d20(side, "shot_attack", advantage)
            self.set(side, attack=kept)
            bonus = self.duellists[side].spell_attack
            self.note(
                C_SHOT_CAST,
                f"{self.name(side)}'s ranged spell attack: {self.show_d20(kept)} "
                f"{bonus:+d} = {max(kept) + bonus}",
            )
        for kind, clause in ((TRICK, C_SHOT_TRICKS), (FAULT, C_SHOT_FAULTS)):
            for side in SIDES:
                count = self.corners[side].trick if kind == TRICK else self.corners[side].fault
                values = tuple(self.roll(6, side, f"shot_{kind}") for _ in range(count))
                self.set(side, **{f"{kind}_dice": values})
                if values:
                    self.note(
                        clause,
                        f"{self.name(side)} rolls {_d(count)} of {kind.capitalize()}: "
                        f"{', '.join(str(v) for v in values)} "
                        f"({'+' if kind == TRICK else '-'}{sum(values)})",
                    )
        self.note(
            C_SHOT_RESULT,
            "standing: " + "; ".join(f"{self.name(s)} {self.total(s)}" for s in SIDES),
        )
        lower = self.first or "a"
        self.twist_queue = (lower, other_side(lower))
        self.next_twist()

    def total(self, side: Side) -> int:
        corner = self.corners[side]
        return (
            max(corner.attack or (0,))
            + self.duellists[side].spell_attack
            + sum(corner.trick_dice)
            - sum(corner.fault_dice)
        )

    def view(self) -> FoeqState:
        return replace(
            self.s,
            corner_a=self.corners["a"],
            corner_b=self.corners["b"],
            a=self.duellists["a"],
            b=self.duellists["b"],
        )

    def next_twist(self) -> None:
        while self.twist_queue:
            side, self.twist_queue = self.twist_queue[0], self.twist_queue[1:]
            pool = twist_pool(self.view(), side)
            style = STYLE_LABELS[self.corners[side].style or STEADFAST]
            if pool is None:
                self.note(C_SHOT_TWIST, f"{self.name(side)}'s {style} Style grants no reroll")
                continue
            kind, owner, values = pool
            if not values:
                self.note(
                    C_SHOT_TWIST,
                    f"{self.name(side)} ({style}) could reroll one of {self.name(owner)}'s "
                    f"{kind.capitalize()} dice, but there are none",
                )
                continue
            self.note(
                C_SHOT_TWIST,
                f"{self.name(side)} ({style}) may reroll one of {self.name(owner)}'s "
                f"{kind.capitalize()} dice",
            )
            self.wait(SHOT_TWIST, side)
            return
        self.shot_result()

    def twist(self, side: Side, choice: str | None) -> None:
        self.outcome = "twist"
        pool = twist_pool(self.view(), side)
        parsed = None if choice is None else parse_twist(choice)
        if pool is None or parsed is None:
            self.note(C_SHOT_TWIST, f"{self.name(side)} rerolls nothing")
            self.next_twist()
            return
        kind, owner, values = pool
        _, index = parsed
        new = self.roll(6, side, "shot_twist")
        old = values[index - 1]
        changed = list(values)
        changed[index - 1] = new
        self.set(owner, **{f"{kind}_dice": tuple(changed)})
        self.note(
            C_SHOT_TWIST,
            f"{self.name(side)} rerolls {self.name(owner)}'s {kind.capitalize()} die "
            f"#{index} ({old}): it is now {new}, and must be used",
        )
        self.next_twist()

    def shot_result(self) -> None:
        totals = {side: self.total(side) for side in SIDES}
        for side in SIDES:
            c, bonus = self.corners[side], self.duellists[side].spell_attack
            self.note(
                C_SHOT_RESULT,
                f"{self.name(side)}: {max(c.attack or (0,))} {bonus:+d}"
                f" + Tricks {sum(c.trick_dice)} - Faults {sum(c.fault_dice)} = {totals[side]}",
            )
        if totals["a"] == totals["b"]:
            self.note(
                C_SHOT_RESULT, f"a tie at {totals['a']}: both duellists suffer the stakes"
            )
            self.tie()
            return
        w: Side = "a" if totals["a"] > totals["b"] else "b"
        self.shot_winner = w
        self.note(C_SHOT_RESULT, f"{self.name(w)} wins the Shot and the duel")
        options = consequence_options(self.view(), w)
        if len(options) > 1:
            reason = (
                "the Disruptive Style lets them choose the consequence"
                if self.corners[w].style == DISRUPTIVE
                else "their stake is Pride and they can cast "
                + ", ".join(o.capitalize() for o in options if o in PRIDE_SCHOOLS)
            )
            self.note(C_SCORE, f"{self.name(w)} chooses the consequence: {reason}")
            self.outcome = f"shot_{w}"
            self.wait(SCORE_CHOICE, w)
            return
        self.consequence(w, options[0])
        self.end(w)

    def score_choice(self, side: Side, choice: str | None) -> None:
        options = consequence_options(self.view(), side)
        picked = default_consequence(self.corners[side].stake)
        if choice is None:
            picked = picked if picked in options else options[0]
            self.note(
                C_MISSING,
                f"{self.name(side)} chose nothing: {CONSEQUENCE_LABELS[picked]} applies",
            )
        else:
            picked = parse_consequence(choice)
            self.note(C_SCORE, f"{self.name(side)} chooses {CONSEQUENCE_LABELS[picked]}")
        self.consequence(side, picked)
        self.end(side)

    def consequence(self, victor: Side, what: str, clause: str = C_SCORE) -> None:
        loser = other_side(victor)
        me = self.duellists[loser]
        who, by = self.name(loser), self.name(victor)
        if what == HIT_DIE:
            after = max(0, me.hit_dice - 1)
            self.duellists[loser] = replace(me, hit_dice=after)
            text = (
                f"{who} loses one Hit Die ({me.hit_dice} -> {after})"
                if me.hit_dice
                else f"{who} has no Hit Die left to lose"
            )
            clause = f"{clause}, Pride"
        elif what == FIRST_BLOOD:
            half = me.hp_max // 2
            target = max(1, half) if me.hp >= half else 1
            after = min(me.hp, target)
            self.duellists[loser] = replace(me, hp=after)
            why = "half the maximum" if me.hp >= half else "1, being below half already"
            text = f"{who} is reduced to {why}: HP {me.hp} -> {after}"
            clause = f"{clause}, First Blood"
        elif what == DEATH:
            self.duellists[loser] = replace(me, hp=0)
            text = f"{who} is reduced to 0 Hit Points (HP {me.hp} -> 0)"
            clause = f"{clause}, Death"
        else:
            slot = self.corners[victor].slot or 0
            text = {
                "necromancy": f"{who} is Poisoned for 1 minute",
                "abjuration": f"one random spell or magical effect on {who} of level {slot} "
                "or lower ends",
                "divination": f"{by} learns the surface thoughts of {who}",
                "enchantment": f"{who} is Charmed by {by} for 10 minutes",
                "illusion": f"{who} is Frightened of {by} for 10 minutes",
            }[what]
            clause = f"{clause}, Pride ({what.capitalize()})"
        self.note(clause, text)
        self.consequences.append(text)

    def tie(self) -> None:
        for side in SIDES:
            stake = self.corners[other_side(side)].stake
            self.consequence(
                other_side(side),
                default_consequence(stake),
                f"{C_SCORE} (tie: {self.name(side)} suffers "
                f"{self.name(other_side(side))}'s stake)",
            )
        self.end(None)

    def forfeit(self, missing: list[Side], clause: str) -> None:
        if len(missing) == 2:
            self.note(clause, "neither duellist chose by the close: the duel ends, no winner")
            self.end(None, score=False)
            self.outcome = "no_winner"
            return
        loser = missing[0]
        winner = other_side(loser)
        self.note(
            clause,
            f"{self.name(loser)} chose nothing by the close and forfeits: "
            f"{self.name(winner)} wins the duel (no Shot, no Score)",
        )
        self.end(winner, score=False)

    def end(self, winner: Side | None, *, score: bool = True) -> None:
        self.ended = True
        self.winner = winner
        self.outcome = f"{winner}_wins" if winner else "tie"
        self.wait(OVER)
        public = self.s.public_stake
        for side in SIDES:
            stake = self.corners[side].stake
            if stake is None:
                continue
            self.note(
                C_STAKES,
                f"{self.name(side)}'s true stake was {STAKE_LABELS[stake]} "
                f"(the public stake: {STAKE_LABELS[public]})",
            )
            if public == PRIDE and STAKE_RANK[stake] > STAKE_RANK[PRIDE]:
                aim = "kill" if stake == DEATH else "draw blood"
                self.note(
                    C_STAKES,
                    f"dishonourable: the stated stake was Pride, but {self.name(side)} "
                    f"shot to {aim} (true stake {STAKE_LABELS[stake]})",
                )
            elif STAKE_RANK[stake] > STAKE_RANK[public]:
                self.note(
                    C_STAKES,
                    f"{self.name(side)}'s true stake was deadlier than the public stake",
                )
        if not score:
            self.note(C_SCORE, "no consequence is applied")

    def finish(self, choices: Mapping[Side, str | None]) -> RoundResult:
        secret = self.s.phase in SECRET_PHASES
        shown: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            shown[side] = (SECRET_CHOICE if secret and choice is not None else choice)
        state = replace(
            self.view(),
            phase=self.phase,
            awaiting=self.awaiting,
            public=self.public,
            stare_round=self.stare_round,
            first=self.first,
            twist_queue=self.twist_queue,
            shot_winner=self.shot_winner,
            step=self.s.step + 1,
            ended=self.ended,
            winner=self.winner,
            notes=tuple(self.notes),
            consequences=tuple(self.consequences),
        )
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=self.outcome,
            winner=self.winner,
            ended=self.ended,
            locked=False,
            choices=shown,
            rolls=tuple(self.rolls),
            log=tuple(self.log),
            state=state,
        )


# -- the ruleset ---------------------------------------------------------------------------


class FoeqSpellDuel(Ruleset):
    id = RULESET_ID
    title = "FoEQ spell duel"
    # The bot runs it end to end: one round per step, opened automatically (auto_advance),
    # secret steps by DM, private notes by DM: see docs/rules/foeq-spell-duel.md.
    playable = True

    sheet_fields = (
        SheetField("initiative", "int", "Initiative modifier", MOD_MIN, MOD_MAX, default=0),
        SheetField(
            "spell_attack", "int", "Spell attack bonus", MOD_MIN, MOD_MAX, default=0
        ),
        *(
            SheetField(skill, "int", f"{SKILL_LABELS[skill]} modifier", MOD_MIN, MOD_MAX,
                       default=0)
            for skill in SKILLS
        ),
        SheetField("hp", "int", "Current Hit Points (default: hp_max)", 0, HP_MAX_LIMIT),
        SheetField("hp_max", "int", "Hit Point maximum (required)", 1, HP_MAX_LIMIT),
        SheetField("hit_dice", "int", "Hit Dice remaining", 0, HIT_DICE_LIMIT, default=1),
        SheetField(
            "spell_slots",
            "list",
            "Spell slots available per level, level 1 first, e.g. [4, 3, 2]",
            0,
            SLOT_COUNT_LIMIT,
            default=[0] * LEVELS,
        ),
        SheetField(
            "free_cast_levels",
            "list",
            "Levels at which an offensive spell can be cast without expending a slot",
            1,
            LEVELS,
            default=[],
        ),
        SheetField(
            "schools", "list", "Schools of magic the duellist can cast", choices=SCHOOLS,
            default=[],
        ),
    )

    # -- the step machine's helpers (the generic Ruleset hooks the services use) ---------
    auto_advance = True

    def awaiting_sides(self, state: Any) -> tuple[Side, ...]:
        return awaiting_sides(_as_state(state))

    def is_secret(self, state: Any) -> bool:
        return is_secret(_as_state(state))

    def private_notes(self, result: RoundResult) -> dict[Side, list[str]]:
        return private_notes(result)

    def public_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """While the duel runs, the stored/published result's state keeps only what is
        public: the duellists' sheets (no secrets), the phase and who is awaited, and each
        corner's dice and declared Move; never the true stakes, Styles, slots or notes.
        The result that ends the duel is published whole (everything is revealed)."""
        if result.get("ended"):
            return result
        state = result.get("state")
        if not isinstance(state, Mapping):
            return result
        raw = state.get("corners")
        corners: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        public_state: dict[str, Any] = {
            key: state[key]
            for key in (
                "a", "b", "public_stake", "challenger", "phase", "awaiting", "public",
                "stare_round", "step", "ended", "winner",
            )
            if key in state
        }
        public_state["corners"] = {
            side: {
                key: value
                for key, value in dict(corners.get(side) or {}).items()
                if key in _PUBLIC_CORNER_KEYS
            }
            for side in SIDES
        }
        return {**result, "state": public_state}

    def prompt(self, state: Any, side: Side) -> str | None:
        return step_prompt(_as_state(state), side)

    def sheet_updates(self, final_state: Any) -> dict[Side, dict[str, Any]]:
        """The resources the duel changed (HP, Hit Dice, spell slots), once it has ended."""
        state = _as_state(final_state)
        if not state.ended:
            return {}
        return {
            side: {
                "hp": state.duellist(side).hp,
                "hit_dice": state.duellist(side).hit_dice,
                "spell_slots": list(state.duellist(side).spell_slots),
            }
            for side in SIDES
        }

    def setup_parts(self, state: FoeqState, side: Side) -> dict[str, tuple[MoveSpec, ...]]:
        """The setup choice in three parts (for three select menus): compose the id with
        ``setup_choice(stake, style, slot)``."""
        me = state.duellist(side)
        return {
            "stake": tuple(MoveSpec(s, STAKE_LABELS[s], "stake") for s in STAKES),
            "style": tuple(
                MoveSpec(s, STYLE_LABELS[s], "style", ("wierd",) if s == WEIRD else ())
                for s in STYLES
            ),
            "slot": tuple(
                MoveSpec(str(n), "Cantrip (0)" if n == 0 else f"Level {n}", "slot")
                for n in me.slot_levels()
            ),
        }

    # -- Ruleset ----------------------------------------------------------------------------
    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        if not isinstance(state, FoeqState):
            return tuple(MoveSpec(m.id, m.label, "move", m.aliases) for m in STARE_MOVES)
        if side is None or side not in state.awaiting:
            return ()
        if state.phase == SETUP:
            parts = self.setup_parts(state, side)
            return tuple(
                MoveSpec(
                    setup_choice(stake.id, style.id, int(slot.id)),
                    f"{stake.label}, {style.label}, {slot.label}",
                    "setup",
                )
                for stake in parts["stake"]
                for style in parts["style"]
                for slot in parts["slot"]
            )
        if state.phase in (STARE_FIRST, STARE_SECOND):
            return tuple(
                MoveSpec(m.id, f"{m.label} ({SKILL_LABELS[m.skill]})", "move", m.aliases)
                for m in STARE_MOVES
            )
        if state.phase == STARE_STYLE:
            current = state.corner(side).style
            return (
                MoveSpec(KEEP, f"Keep {STYLE_LABELS[current or STEADFAST]}", "style"),
                *(
                    MoveSpec(f"style={s}", f"Change to {STYLE_LABELS[s]}", "style")
                    for s in STYLES
                    if s != current
                ),
            )
        if state.phase == SHOT_TWIST:
            pool = twist_pool(state, side)
            specs = [MoveSpec(NO_TWIST, "Reroll nothing", "twist")]
            if pool is not None:
                kind, owner, values = pool
                whose = "your" if owner == side else f"{state.duellist(owner).name}'s"
                specs += [
                    MoveSpec(
                        f"reroll:{kind}:{i}",
                        f"Reroll {whose} {kind.capitalize()} die #{i} ({value})",
                        "twist",
                    )
                    for i, value in enumerate(values, start=1)
                ]
            return tuple(specs)
        if state.phase == SCORE_CHOICE:
            return tuple(
                MoveSpec(c, CONSEQUENCE_LABELS[c], "consequence")
                for c in consequence_options(state, side)
            )
        return ()

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        if not isinstance(state, FoeqState):
            return self._parse_stateless(text)
        if side is None or side not in state.awaiting:
            who = ", ".join(state.awaiting) or "nobody"
            raise InvalidChoice(f"No choice is expected from you now (awaiting: {who}).")
        if state.phase == SETUP:
            stake, style, slot = parse_setup(text)
            allowed = state.duellist(side).slot_levels()
            if slot not in allowed:
                raise InvalidChoice(
                    f"You cannot use a level {slot} spell slot: you can declare "
                    f"{', '.join(str(n) for n in allowed)} (0 = cantrip)."
                )
            return setup_choice(stake, style, slot)
        if state.phase in (STARE_FIRST, STARE_SECOND):
            return parse_move(text)
        if state.phase == STARE_STYLE:
            return parse_style_change(text)
        if state.phase == SHOT_TWIST:
            parsed = parse_twist(text)
            if parsed is None:
                return NO_TWIST
            pool = twist_pool(state, side)
            legal = [m.id for m in self.moves(state, side)]
            if pool is None:
                raise InvalidChoice("Your Style grants no reroll: say 'none'.")
            kind, _, values = pool
            wanted, index = parsed
            if (wanted is not None and wanted != kind) or not 1 <= index <= len(values):
                raise InvalidChoice(
                    f"{_shown(text)!r} is not a die you may reroll. Allowed: "
                    f"{', '.join(legal)}."
                )
            return f"reroll:{kind}:{index}"
        if state.phase == SCORE_CHOICE:
            found = parse_consequence(text)
            options = consequence_options(state, side)
            if found not in options:
                raise InvalidChoice(
                    f"{CONSEQUENCE_LABELS[found]} is not open to you. Allowed: "
                    f"{', '.join(options)}."
                )
            return found
        raise InvalidChoice("The duel is over: no more choices.")

    def _parse_stateless(self, text: str) -> str:
        for parse in (parse_move, parse_consequence):
            try:
                return parse(text)
            except InvalidChoice:
                pass
        key = _key(text)
        if key in _KEEP_WORDS:
            return KEEP if key == KEEP else NO_TWIST
        if key.startswith("style"):
            return parse_style_change(text)
        if key.startswith("reroll"):
            parsed = parse_twist(text)
            if parsed is not None and parsed[0] is not None:
                return f"reroll:{parsed[0]}:{parsed[1]}"
        try:
            return setup_choice(*parse_setup(text))
        except InvalidChoice:
            pass
        raise InvalidChoice(
            f"{_shown(text)!r} is not a FoEQ choice: a Move, a setup "
            "('death quick 3'), 'keep' or 'style=...', 'none' or 'reroll:trick:1', "
            "or a consequence."
        )

    def choice_label(self, choice: str | None) -> str:
        if choice is None:
            return "no choice"
        if choice == SECRET_CHOICE:
            return "(secret)"
        if choice in STARE:
            return STARE[choice].label
        if choice in CONSEQUENCE_LABELS:
            return CONSEQUENCE_LABELS[choice]
        if choice == KEEP:
            return "Keep the Style"
        if choice == NO_TWIST:
            return "Reroll nothing"
        if choice.startswith("style="):
            return f"Change Style to {STYLE_LABELS.get(choice[6:], choice[6:])}"
        if choice.startswith("reroll:"):
            _, kind, index = [*choice.split(":"), "", ""][:3]
            return f"Reroll {kind.capitalize()} die #{index}"
        if choice.startswith("stake="):
            try:
                stake, style, slot = parse_setup(choice)
            except InvalidChoice:
                return choice
            return f"{STAKE_LABELS[stake]}, {STYLE_LABELS[style]}, slot {slot}"
        return choice

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return Duellist.from_sheet("", sheet).sheet()

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> FoeqState:
        """``params``: ``public_stake`` (pride, first_blood, death; default pride) and
        ``challenger`` ("a" or "b", default "a")."""
        stake_text = params.get("public_stake", PRIDE)
        stake = _STAKE_LOOKUP.get(_key(stake_text)) if stake_text is not None else PRIDE
        if stake is None or stake not in STAKES:
            raise InvalidRoundInput(
                f"public_stake must be one of {', '.join(STAKES)}, not {stake_text!r}."
            )
        challenger = _side(params.get("challenger", "a"))
        if challenger is None:
            raise InvalidRoundInput("challenger must be 'a' or 'b'.")
        return FoeqState(
            a=Duellist.from_sheet(a.name, a.sheet),
            b=Duellist.from_sheet(b.name, b.sheet),
            public_stake=stake,
            challenger=challenger,
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> FoeqState:
        return FoeqState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        policy = settings.get("missing_move", "none")
        return Options(missing_move="forfeit" if policy == "forfeit" else "none")

    def resolve(
        self,
        state: FoeqState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Options | None = None,
    ) -> RoundResult:
        options = options or Options()
        if not isinstance(state, FoeqState):
            raise InvalidRoundInput("resolve needs a FoeqState.")
        if state.ended or state.phase == OVER:
            raise InvalidRoundInput("This duel has already ended; no more steps resolve.")
        canonical: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            if choice is not None and side not in state.awaiting:
                raise InvalidRoundInput(
                    f"Side {side} has no choice to make in phase {state.phase}."
                )
            canonical[side] = None if choice is None else self.parse_choice(choice, state, side)
        step = _Step(state, dice, options)
        actor = state.awaiting[0] if state.awaiting else "a"
        if state.phase == SETUP:
            step.setup(canonical)
        elif state.phase == STARE_FIRST:
            step.declare_first(actor, canonical[actor])
        elif state.phase == STARE_SECOND:
            step.declare_second(actor, canonical[actor])
        elif state.phase == STARE_STYLE:
            step.style_change(actor, canonical[actor])
        elif state.phase == SHOT_TWIST:
            step.twist(actor, canonical[actor])
        elif state.phase == SCORE_CHOICE:
            step.score_choice(actor, canonical[actor])
        return step.finish(canonical)


FOEQ = FoeqSpellDuel()
register(FOEQ)
