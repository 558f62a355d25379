"""By This Axe duels: dice-pool allotment, dirty tricks, parries, counterattacks, flight.

The seed is shared/seeds/by-this-axe-duels.txt; every interpretation and default is
recorded in docs/rules/by-this-axe.md. Pure: no I/O, every die comes from a DiceSource.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any, Final, Literal

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
from bot.rules.errors import InvalidChoice, InvalidRoundInput, InvalidStats

RULESET_ID = "by-this-axe"
TITLE = "By This Axe duels"

# -- characters ---------------------------------------------------------------------------

#: Dice pool by character type (the seed's table).
POOLS: dict[str, int] = {
    "hero": 4,
    "superhero": 8,
    "champion": 12,
    "priest": 3,
    "mage": 3,
    "high_priest": 6,
    "wizard": 6,
}
CHARACTERS: tuple[str, ...] = tuple(POOLS)
MAX_POOL = max(POOLS.values())

#: duelbot's default armor save by type (the seed says only "as normal"): the d6 result
#: needed to save a hit, 0 = no save. Base saves, the Heroic +1 is never applied in a duel.
DEFAULT_ARMOR_SAVE: dict[str, int] = {
    "hero": 5,
    "superhero": 5,
    "champion": 5,
    "priest": 6,
    "high_priest": 6,
    "mage": 0,
    "wizard": 0,
}
NO_SAVE = 0
ARMOR_MIN = 0
ARMOR_MAX = 7  # 7 is accepted as "no save" and stored as 0
DEFAULT_WOUNDS = 1
WOUNDS_MAX = 99

# -- choices and outcomes -----------------------------------------------------------------

FLEE: Final = "flee"
FLEE_FROM_ROUND = 2

A_WINS, B_WINS, BOTH_DEFEATED = "a_wins", "b_wins", "both_defeated"
A_FLEES, B_FLEES, BOTH_FLEE, CONTINUE = "a_flees", "b_flees", "both_flee", "continue"
OUTCOMES: tuple[str, ...] = (A_WINS, B_WINS, BOTH_DEFEATED, A_FLEES, B_FLEES, BOTH_FLEE, CONTINUE)

def describe_outcome(outcome: str, a_name: str, b_name: str) -> str:
    """One sentence for an outcome id, with the duellists' names (for posts)."""
    texts = {
        A_WINS: f"{b_name} is defeated: {a_name} wins the duel",
        B_WINS: f"{a_name} is defeated: {b_name} wins the duel",
        BOTH_DEFEATED: "Both characters are defeated; the duel ends with no winner",
        A_FLEES: f"{a_name} runs away; the duel ends with no winner",
        B_FLEES: f"{b_name} runs away; the duel ends with no winner",
        BOTH_FLEE: "Both characters run away; the duel ends with no winner",
        CONTINUE: "Nobody is defeated and nobody ran away; the duel goes on",
    }
    return texts.get(outcome, outcome)


TrickTakes = Literal["parry_first", "attack_first"]
TRICK_TAKES: tuple[str, ...] = ("parry_first", "attack_first")
TRICK_FORFEIT = 2

MissingMovePolicy = Literal["none", "forfeit"]
MISSING_MOVE_POLICIES: tuple[str, ...] = ("none", "forfeit")

# Roll purposes, in the fixed order of a round (A before B within each step).
DIRTY_TRICK, ATTACK, PARRY, COUNTERATTACK, ARMOR_SAVE, FLEE_ROLL = (
    "dirty_trick",
    "attack",
    "parry",
    "counterattack",
    "armor_save",
    "flee",
)
FORCE_DUEL = "force_duel"

# -- clauses cited in the log -------------------------------------------------------------

C_CHALLENGE = "By This Axe, Duels (challenge)"
C_REFUSAL = "By This Axe, Duels (refusal)"
C_FORCE = "By This Axe, Duels (forcing a duel)"
C_REVEAL = "By This Axe, Reveal"
C_TRICKS = "By This Axe, Dirty tricks"
C_ATTACKS = "By This Axe, Attacks"
C_PARRIES = "By This Axe, Parries"
C_COUNTER = "By This Axe, Counterattack"
C_ARMOR = "By This Axe, Armor saves"
C_FLIGHT = "By This Axe, Duels (flight)"
C_ROUNDS = "By This Axe, Duels (rounds)"
C_WOUNDS = "duelbot wounds"
C_MISSING = "duelbot missing allotment"
C_FORFEIT = "duelbot missing_move = forfeit"


def _hit(value: int) -> bool:
    """Attack, parry, counterattack and flee dice all succeed on 1-3."""
    return 1 <= value <= 3


def _trick_works(value: int) -> bool:
    return 1 <= value <= 2


def _saves(value: int, armor_save: int) -> bool:
    return armor_save != NO_SAVE and value >= armor_save


def _save_text(armor_save: int) -> str:
    if armor_save == NO_SAVE:
        return "no save"
    return "6" if armor_save == 6 else f"{armor_save}-6"


# -- allotments -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, order=True)
class Allotment:
    """Dice in the three maneuver areas. (0, 0, 0) is "no allotment" (missing or fleeing)."""

    attack: int
    parry: int
    tricks: int

    @property
    def id(self) -> str:
        return f"a{self.attack}p{self.parry}t{self.tricks}"

    @property
    def label(self) -> str:
        return f"Attack {self.attack}, Parry {self.parry}, Trick {self.tricks}"

    @property
    def dice(self) -> int:
        return self.attack + self.parry + self.tricks


NOTHING = Allotment(0, 0, 0)
FLEE_LABEL = "Flee (attempt to run away)"
FLEE_SPEC = MoveSpec(FLEE, FLEE_LABEL, "flee", ("run", "run away", "escape"))

_CANONICAL = re.compile(r"a(\d+)p(\d+)t(\d+)")
_NUMERIC = re.compile(r"\d{1,3}(?:\s*[/,;|\-]\s*\d{1,3}|\s+\d{1,3}){1,2}")
_PAIR = re.compile(r"\s*([a-z]+(?:[ _\-]+[a-z]+)?)\s*[:=]?\s*(\d{1,3})\s*")
_KEYWORDS: dict[str, str] = {
    **dict.fromkeys(("a", "att", "atk", "attack", "attacks", "attacking"), "attack"),
    **dict.fromkeys(
        ("p", "par", "parry", "parries", "d", "def", "defence", "defense", "defend"), "parry"
    ),
    **dict.fromkeys(
        ("t", "dt", "trick", "tricks", "dirtytrick", "dirtytricks", "dirty"), "tricks"
    ),
}
_FLEE_WORDS = frozenset({"flee", "run", "runaway", "escape", "flight", "fleeduel"})

FORMS_TEXT = (
    "write attack, parry and dirty-trick dice like 'a3 p1 t0', '3/1/0' or "
    "'attack 3 parry 1 tricks 0' (at least 1 attack, at least 1 parry, at most 1 "
    f"dirty trick), or '{FLEE}' from round {FLEE_FROM_ROUND}"
)


def _normalise(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return re.sub(r"\s+", " ", folded.strip().casefold())


def _shown(text: object) -> str:
    shown = text if isinstance(text, str) else repr(text)
    return shown if len(shown) <= 40 else shown[:40] + "…"


def parse_form(text: str) -> Allotment | Literal["flee"]:
    """The allotment (or flee) a text names, checking its form only (not the rules)."""
    if not isinstance(text, str):
        raise InvalidChoice(f"{_shown(text)} is not an allotment: {FORMS_TEXT}.")
    norm = _normalise(text)
    if re.sub(r"[\s_\-]+", "", norm) in _FLEE_WORDS or norm in ("flee the duel", "run away"):
        return FLEE
    compact = norm.replace(" ", "")
    canonical = _CANONICAL.fullmatch(compact)
    if canonical:
        a, p, t = (int(g) for g in canonical.groups())
        return Allotment(a, p, t)
    if _NUMERIC.fullmatch(norm):
        numbers = [int(n) for n in re.findall(r"\d+", norm)]
        return Allotment(numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else 0)
    words = re.sub(r"\band\b|[,;+&/]", " ", norm)
    found: dict[str, int] = {}
    pos = 0
    while pos < len(words):
        match = _PAIR.match(words, pos)
        if match is None or match.end() == pos:
            break
        key = _KEYWORDS.get(re.sub(r"[ _\-]+", "", match.group(1)))
        if key is None:
            raise InvalidChoice(
                f"{_shown(text)!r}: {match.group(1)!r} is not a maneuver area "
                f"(attack, parry, tricks); {FORMS_TEXT}."
            )
        if key in found:
            raise InvalidChoice(f"{_shown(text)!r} names {key} twice; {FORMS_TEXT}.")
        found[key] = int(match.group(2))
        pos = match.end()
    if pos < len(words) or not found:
        raise InvalidChoice(f"{_shown(text)!r} is not an allotment: {FORMS_TEXT}.")
    return Allotment(found.get("attack", 0), found.get("parry", 0), found.get("tricks", 0))


def check_allotment(
    allot: Allotment, pool: int, *, allot_all: bool = False, who: str = ""
) -> Allotment:
    """``allot`` if it obeys the allotment clause for a pool of ``pool`` dice."""
    pool_text = f"{who} has a pool of {pool} dice" if who else f"the pool is {pool} dice"
    shown = allot.label
    if allot.attack < 1:
        raise InvalidChoice(
            f"{shown}: at least one die must be allotted to attack (By This Axe); {pool_text}."
        )
    if allot.parry < 1:
        raise InvalidChoice(
            f"{shown}: at least one die must be allotted to parry (By This Axe); {pool_text}."
        )
    if allot.tricks > 1:
        raise InvalidChoice(
            f"{shown}: only one die can be allotted to dirty tricks (By This Axe); "
            f"{pool_text}."
        )
    if allot.dice > pool:
        raise InvalidChoice(
            f"{shown}: {allot.dice} dice allotted, more than the pool allows; {pool_text}."
        )
    if allot_all and allot.dice != pool:
        raise InvalidChoice(
            f"{shown}: {allot.dice} dice allotted, but this duel requires every die of the "
            f"pool to be allotted (allot_all); {pool_text}."
        )
    return allot


def legal_allotments(pool: int, *, allot_all: bool = False) -> tuple[Allotment, ...]:
    """Every legal allotment, ordered: most dice first, then no trick before a trick,
    then most attack dice first. With allot_all only the first group remains."""
    found = [
        Allotment(a, p, t)
        for t in (0, 1)
        for a in range(1, pool + 1)
        for p in range(1, pool + 1)
        if a + p + t <= pool and (not allot_all or a + p + t == pool)
    ]
    return tuple(sorted(found, key=lambda x: (-x.dice, x.tricks, -x.attack)))


def choice_to_allotment(choice: str | None) -> Allotment:
    """The dice a canonical choice puts in play: flee and None put none."""
    if choice is None or choice == FLEE:
        return NOTHING
    match = _CANONICAL.fullmatch(choice)
    if match is None:
        raise InvalidChoice(f"{_shown(choice)} is not a canonical allotment id (a3p1t0).")
    a, p, t = (int(g) for g in match.groups())
    return Allotment(a, p, t)


# -- sheets and state -----------------------------------------------------------------------


def _int_field(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("+").isdigit():
            value = int(value.strip().lstrip("+"))
        else:
            raise InvalidStats(f"{name} must be a whole number, not {value!r}.")
    if not low <= value <= high:
        raise InvalidStats(f"{name} must be between {low} and {high}, not {value}.")
    return value


def _character(value: object) -> str:
    key = re.sub(r"[\s_\-]+", "_", _normalise(value)) if isinstance(value, str) else ""
    if key not in POOLS:
        allowed = ", ".join(f"{c} ({n} dice)" for c, n in POOLS.items())
        given = "it is missing" if value is None else (
            f"not {_shown(value)!r}" if isinstance(value, str) else f"not {_shown(value)}"
        )
        raise InvalidStats(f"character must be one of {allowed}; {given}.")
    return key


def _bool_field(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().casefold() in ("yes", "true", "1", "no",
                                                                "false", "0"):
        return value.strip().casefold() in ("yes", "true", "1")
    raise InvalidStats(f"{name} must be true or false, not {_shown(value)}.")


def clean_sheet(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """A validated sheet: character, armor_save (0 = none), wounds, leader."""
    if not isinstance(sheet, Mapping):
        raise InvalidStats("A sheet must be an object with character, armor_save, wounds.")
    character = _character(sheet.get("character"))
    armor = sheet.get("armor_save")
    if armor is None:
        armor = DEFAULT_ARMOR_SAVE[character]
    armor = _int_field("armor_save", armor, ARMOR_MIN, ARMOR_MAX)
    if armor == 1:
        raise InvalidStats(
            "armor_save must be 2 to 6 (the d6 result that saves), or 0 or 7 for no save; "
            "1 would save every hit."
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


# -- the round --------------------------------------------------------------------------------


class _Round:
    """Working memory of one resolution."""

    def __init__(self, state: DuelState, picks: dict[Side, str | None], dice: DiceSource):
        self.state = state
        self.picks = picks
        self.dice = dice
        self.log: list[LogEvent] = []
        self.rolls: list[Roll] = []
        self.allot: dict[Side, Allotment] = {s: choice_to_allotment(picks[s]) for s in SIDES}

    def name(self, side: Side) -> str:
        return self.state.duellist(side).name or f"Duellist {side.upper()}"

    def note(self, clause: str, text: str) -> None:
        self.log.append(LogEvent(clause, text))

    def roll(self, side: Side, purpose: str) -> int:
        made = self.dice.roll(6, side=side, purpose=purpose)
        self.rolls.append(made)
        return made.value

    def roll_many(self, side: Side, n: int, purpose: str) -> list[int]:
        return [self.roll(side, purpose) for _ in range(n)]


def _faces(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def _hits(n: int, word: str = "hit") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ByThisAxe(Ruleset):
    id = RULESET_ID
    title = TITLE

    sheet_fields = (
        SheetField(
            "character",
            "choice",
            "Character type; dice pool: hero 4, superhero 8, champion 12, priest 3, mage 3, "
            "high_priest 6, wizard 6",
            choices=CHARACTERS,
        ),
        SheetField(
            "armor_save",
            "int",
            "d6 result that saves a hit (5 = 5-6 saves; 0 or 7 = no save); base save, the "
            "Heroic +1 is ignored in duels. Default by type: hero/superhero/champion 5, "
            "priest/high_priest 6, mage/wizard none",
            ARMOR_MIN,
            ARMOR_MAX,
        ),
        SheetField("wounds", "int", "Unsaved hits that defeat the character", 1, WOUNDS_MAX,
                   default=DEFAULT_WOUNDS),
        SheetField("leader", "choice", "The character is a leader (challenge refusals): "
                   "yes or no", choices=("no", "yes"), default="no"),
    )

    # -- choices ------------------------------------------------------------------------

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        if isinstance(state, DuelState) and state.ended:
            return ()
        pool = MAX_POOL
        allot_all = False
        if isinstance(state, DuelState):
            allot_all = state.allot_all
            if side in SIDES:
                pool = state.duellist(side).pool
        specs = tuple(
            MoveSpec(x.id, x.label, "allotment", (f"{x.attack}/{x.parry}/{x.tricks}",))
            for x in legal_allotments(pool, allot_all=allot_all)
        )
        if not isinstance(state, DuelState) or state.round_no >= FLEE_FROM_ROUND:
            specs += (FLEE_SPEC,)
        return specs

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        form = parse_form(text)
        known = isinstance(state, DuelState)
        if form == FLEE:
            if known and state.round_no < FLEE_FROM_ROUND:
                raise InvalidChoice(
                    f"You cannot flee in round {state.round_no}: a character may attempt "
                    f"to flee a duel beginning on round {FLEE_FROM_ROUND} (By This Axe). "
                    "Allot your dice instead, e.g. 'a2 p2 t0'."
                )
            return FLEE
        assert isinstance(form, Allotment)
        if known and side in SIDES:
            me = state.duellist(side)
            who = me.name or f"Duellist {side.upper()}"
            check_allotment(
                form, me.pool, allot_all=state.allot_all, who=f"{who} ({me.character})"
            )
        else:
            check_allotment(form, MAX_POOL, allot_all=False, who="the largest character")
        return form.id

    def choice_label(self, choice: str | None) -> str:
        if choice is None:
            return "no allotment"
        if choice == FLEE:
            return FLEE_LABEL
        try:
            return choice_to_allotment(choice).label
        except InvalidChoice:
            return choice

    # -- sheets, state, options -------------------------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        return clean_sheet(sheet)

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> DuelState:
        allot_all = params.get("allot_all", False)
        if not isinstance(allot_all, bool):
            raise InvalidRoundInput(f"allot_all must be true or false, not {allot_all!r}.")
        return DuelState(
            a=Combatant.from_sheet(a.name, a.sheet),
            b=Combatant.from_sheet(b.name, b.sheet),
            allot_all=allot_all,
            trick_takes=_trick_takes(params.get("trick_takes", "parry_first")),
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> DuelState:
        return DuelState.from_dict(data)

    def make_options(self, settings: Mapping[str, Any]) -> Options:
        return Options(
            missing_move="forfeit" if settings.get("missing_move") == "forfeit" else "none"
        )

    def roll_classes(self, sides: int, purpose: str) -> list[tuple[int, int]]:
        if sides != 6:
            return super().roll_classes(sides, purpose)
        if purpose == DIRTY_TRICK:
            return [(1, 2), (3, 4)]
        if purpose in (ATTACK, PARRY, COUNTERATTACK, FLEE_ROLL, FORCE_DUEL):
            return [(1, 3), (4, 3)]
        # An armor save's threshold belongs to the duellist, not the purpose: every face.
        return super().roll_classes(sides, purpose)

    # -- resolution ---------------------------------------------------------------------

    def _picks(
        self, state: DuelState, choices: Mapping[Side, str | None]
    ) -> dict[Side, str | None]:
        picks: dict[Side, str | None] = {}
        for side in SIDES:
            choice = choices.get(side)
            picks[side] = None if choice is None else self.parse_choice(choice, state, side)
        return picks

    def resolve(
        self,
        state: DuelState,
        choices: Mapping[Side, str | None],
        dice: DiceSource,
        options: Options | None = None,
    ) -> RoundResult:
        options = options or Options()
        if state.ended:
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        rnd = _Round(state, self._picks(state, choices), dice)
        rnd.note(C_ROUNDS, f"round {state.round_no}")
        forfeiter = self._missing(rnd, options)
        if forfeiter is not None:
            victor = other_side(forfeiter)
            return self._result(rnd, f"{victor}_wins", victor, state.a, state.b)
        self._reveal(rnd)
        self._tricks(rnd)
        hits = {s: self._roll_area(rnd, s, ATTACK) for s in SIDES}
        parried = {s: self._roll_area(rnd, s, PARRY) for s in SIDES}
        landed = self._landed(rnd, hits, parried)
        self._counterattacks(rnd, hits, parried, landed)
        after = {s: self._armor(rnd, s, landed[s]) for s in SIDES}
        defeated = [s for s in SIDES if after[s].defeated]
        fled = self._flight(rnd, defeated)
        winner: Side | None = None
        if len(defeated) == 2:
            outcome = BOTH_DEFEATED
            rnd.note(C_ROUNDS, "both characters are defeated: the duel ends with no winner")
        elif defeated:
            winner = other_side(defeated[0])
            outcome = f"{winner}_wins"
            rnd.note(C_ROUNDS, f"{rnd.name(defeated[0])} is defeated: "
                     f"{rnd.name(winner)} wins the duel")
        elif len(fled) == 2:
            outcome = BOTH_FLEE
            rnd.note(C_ROUNDS, "both characters run away: the duel ends with no winner")
        elif fled:
            outcome = f"{fled[0]}_flees"
            rnd.note(C_ROUNDS, f"{rnd.name(fled[0])} runs away: the duel ends with no winner")
        else:
            outcome = CONTINUE
            rnd.note(C_ROUNDS, "nobody is defeated and nobody ran away: the duel goes on to "
                     f"round {state.round_no + 1}")
        return self._result(rnd, outcome, winner, after["a"], after["b"])

    def _result(
        self, rnd: _Round, outcome: str, winner: Side | None, a: Combatant, b: Combatant
    ) -> RoundResult:
        ended = outcome != CONTINUE
        new_state = replace(
            rnd.state,
            a=a,
            b=b,
            round_no=rnd.state.round_no + (0 if ended else 1),
            ended=ended,
            winner=winner,
            outcome=outcome,
        )
        return RoundResult(
            ruleset=RULESET_ID,
            outcome=outcome,
            winner=winner,
            ended=ended,
            locked=False,
            choices=dict(rnd.picks),
            rolls=tuple(rnd.rolls),
            log=tuple(rnd.log),
            state=new_state,
        )

    def _missing(self, rnd: _Round, options: Options) -> Side | None:
        missing = [s for s in SIDES if rnd.picks[s] is None]
        for side in missing:
            rnd.note(C_MISSING, f"{rnd.name(side)} sent no allotment by the close: no dice in "
                     "attack, parry or dirty tricks this round")
        if options.missing_move == "forfeit" and len(missing) == 1:
            rnd.note(C_FORFEIT, f"{rnd.name(missing[0])} forfeits; "
                     f"{rnd.name(other_side(missing[0]))} wins the duel")
            return missing[0]
        if options.missing_move == "forfeit" and len(missing) == 2:
            rnd.note(C_FORFEIT, "neither duellist sent an allotment; nobody forfeits")
        return None

    def _reveal(self, rnd: _Round) -> None:
        for side in SIDES:
            pick = rnd.picks[side]
            if pick == FLEE:
                text = (f"{rnd.name(side)} attempts to flee (no attack, no parry, no dirty "
                        "tricks this round)")
            elif pick is None:
                text = f"{rnd.name(side)} has no dice in play"
            else:
                text = f"{rnd.name(side)} reveals {rnd.allot[side].label}"
            rnd.note(C_REVEAL, text)

    def _tricks(self, rnd: _Round) -> None:
        worked: list[Side] = []
        for side in SIDES:
            if rnd.allot[side].tricks == 0:
                continue
            value = rnd.roll(side, DIRTY_TRICK)
            if _trick_works(value):
                worked.append(side)
                rnd.note(C_TRICKS, f"{rnd.name(side)} rolls {value}: the dirty trick works "
                         f"(1-2), {rnd.name(other_side(side))} forfeits two dice")
            else:
                rnd.note(C_TRICKS, f"{rnd.name(side)} rolls {value}: no effect (3-6)")
        takes = rnd.state.trick_takes
        for side in worked:
            victim = other_side(side)
            before = rnd.allot[victim]
            after = forfeit_dice(before, takes)
            rnd.allot[victim] = after
            order = "parry first, then attack" if takes == "parry_first" else (
                "attack first, then parry")
            rnd.note(
                C_TRICKS,
                f"{rnd.name(victim)} forfeits {before.attack - after.attack} attack and "
                f"{before.parry - after.parry} parry dice for the round ({order}): "
                f"Attack {after.attack}, Parry {after.parry}",
            )

    def _roll_area(self, rnd: _Round, side: Side, purpose: str) -> int:
        n = rnd.allot[side].attack if purpose == ATTACK else rnd.allot[side].parry
        clause = C_ATTACKS if purpose == ATTACK else C_PARRIES
        word = "hit" if purpose == ATTACK else "parry success"
        if n == 0:
            rnd.note(clause, f"{rnd.name(side)} has no {purpose} dice")
            return 0
        values = rnd.roll_many(side, n, purpose)
        count = sum(1 for v in values if _hit(v))
        plural = f"{count} {word}" if count == 1 else (
            f"{count} hits" if purpose == ATTACK else f"{count} parry successes")
        rnd.note(clause, f"{rnd.name(side)} rolls {_dice(n)} ({_faces(values)}): {plural} "
                 "(1-3)")
        return count

    def _landed(
        self, rnd: _Round, hits: dict[Side, int], parried: dict[Side, int]
    ) -> dict[Side, int]:
        landed: dict[Side, int] = {}
        for side in SIDES:
            incoming = hits[other_side(side)]
            negated = min(incoming, parried[side])
            landed[side] = incoming - negated
            if incoming:
                verb = "lands" if landed[side] == 1 else "land"
                rnd.note(C_PARRIES, f"{rnd.name(side)} negates {negated} of "
                         f"{rnd.name(other_side(side))}'s {_hits(incoming)}: "
                         f"{landed[side]} {verb} on {rnd.name(side)}")
        return landed

    def _counterattacks(
        self,
        rnd: _Round,
        hits: dict[Side, int],
        parried: dict[Side, int],
        landed: dict[Side, int],
    ) -> None:
        for side in SIDES:
            incoming = hits[other_side(side)]
            if parried[side] <= incoming:
                continue
            value = rnd.roll(side, COUNTERATTACK)
            target = other_side(side)
            lead = (f"{rnd.name(side)} has more parry successes ({parried[side]}) than "
                    f"incoming hits ({incoming}) and rolls a counterattack die: {value}")
            if _hit(value):
                landed[target] += 1
                rnd.note(C_COUNTER, f"{lead}, a hit on {rnd.name(target)} that cannot "
                         "be parried")
            else:
                rnd.note(C_COUNTER, f"{lead}, no hit")

    def _armor(self, rnd: _Round, side: Side, landed: int) -> Combatant:
        me = rnd.state.duellist(side)
        if landed == 0:
            return me
        save = me.armor_save
        if save == NO_SAVE:
            unsaved = landed
            rnd.note(C_ARMOR, f"{rnd.name(side)} has no armor save: {_hits(landed)} unsaved")
        else:
            values = rnd.roll_many(side, landed, ARMOR_SAVE)
            saved = sum(1 for v in values if _saves(v, save))
            unsaved = landed - saved
            rnd.note(
                C_ARMOR,
                f"{rnd.name(side)} saves on {_save_text(save)} (Heroic +1 ignored), rolls "
                f"{_faces(values)}: {saved} saved, {unsaved} unsaved",
            )
        after = replace(me, wounds_taken=me.wounds_taken + unsaved)
        if unsaved:
            state = "defeated" if after.defeated else "still standing"
            rnd.note(C_WOUNDS, f"{rnd.name(side)} takes {_hits(unsaved, 'wound')} "
                     f"({after.wounds_taken} of {after.wounds}): {state}")
        return after

    def _flight(self, rnd: _Round, defeated: list[Side]) -> list[Side]:
        fled: list[Side] = []
        for side in SIDES:
            if rnd.picks[side] != FLEE:
                continue
            if side in defeated:
                rnd.note(C_FLIGHT, f"{rnd.name(side)} is defeated before getting away: "
                         "no flee roll")
                continue
            value = rnd.roll(side, FLEE_ROLL)
            if _hit(value):
                fled.append(side)
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: flees the duel (1-3)")
            else:
                rnd.note(C_FLIGHT, f"{rnd.name(side)} rolls {value}: fails to flee (4-6)")
        return fled

    # -- exact odds ---------------------------------------------------------------------

    def outcome_distribution(
        self,
        state: Any,
        choices: Mapping[Side, str | None],
        options: Any,
    ) -> dict[str, Fraction]:
        """Exact outcome probabilities, by counting (binomials per class, see round_joint);
        equal to the base class's die-by-die enumeration, but fast for any pool."""
        if not isinstance(state, DuelState):
            raise InvalidRoundInput("outcome_distribution needs a By This Axe duel state.")
        if state.ended:
            raise InvalidRoundInput("This duel has already ended; no more rounds resolve.")
        opts = options if isinstance(options, Options) else Options()
        picks = self._picks(state, choices)
        missing = [s for s in SIDES if picks[s] is None]
        if opts.missing_move == "forfeit" and len(missing) == 1:
            return {f"{other_side(missing[0])}_wins": Fraction(1)}
        joint = round_joint(
            state.a, state.b, choice_to_allotment(picks["a"]),
            choice_to_allotment(picks["b"]), state.trick_takes,
        )
        return outcomes_from_joint(
            joint, state.a, state.b, picks["a"] == FLEE, picks["b"] == FLEE
        )


# -- exact counting -------------------------------------------------------------------------

HALF = Fraction(1, 2)
TRICK_P = Fraction(2, 6)


@lru_cache(maxsize=4096)
def binomial(n: int, p: Fraction) -> tuple[Fraction, ...]:
    """P(k successes) for k = 0..n of n independent trials with success chance p."""
    return tuple(Fraction(comb(n, k)) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def fail_chance(armor_save: int) -> Fraction:
    """Chance one landed hit is not saved: (save - 1)/6, or 1 with no save."""
    return Fraction(1) if armor_save == NO_SAVE else Fraction(armor_save - 1, 6)


def _add(dist: dict[Any, Fraction], key: Any, p: Fraction) -> None:
    if p:
        dist[key] = dist.get(key, Fraction(0)) + p


def _exchange(attack: int, parry: int) -> dict[tuple[int, bool], Fraction]:
    """One direction of blows: (hits landing past the parries, the parrier counterattacks)."""
    out: dict[tuple[int, bool], Fraction] = {}
    for h, ph in enumerate(binomial(attack, HALF)):
        for s, ps in enumerate(binomial(parry, HALF)):
            _add(out, (max(0, h - s), s > h), ph * ps)
    return out


def landed_joint(
    a_allot: Allotment, b_allot: Allotment, takes: TrickTakes = "parry_first"
) -> dict[tuple[int, int], Fraction]:
    """Exact joint distribution of (hits landing on A, hits landing on B) before saves."""
    trick_a = ((True, TRICK_P), (False, 1 - TRICK_P)) if a_allot.tricks else ((False, 1),)
    trick_b = ((True, TRICK_P), (False, 1 - TRICK_P)) if b_allot.tricks else ((False, 1),)
    out: dict[tuple[int, int], Fraction] = {}
    for a_works, pa in trick_a:
        for b_works, pb in trick_b:
            eff_a = forfeit_dice(a_allot, takes) if b_works else a_allot
            eff_b = forfeit_dice(b_allot, takes) if a_works else b_allot
            on_b = _exchange(eff_a.attack, eff_b.parry)  # (landed on B, B counters)
            on_a = _exchange(eff_b.attack, eff_a.parry)  # (landed on A, A counters)
            for (direct_b, b_counters), px in on_b.items():
                for (direct_a, a_counters), py in on_a.items():
                    weight = Fraction(pa) * Fraction(pb) * px * py
                    for extra_a, pca in ((1, HALF), (0, HALF)) if b_counters else ((0, 1),):
                        for extra_b, pcb in ((1, HALF), (0, HALF)) if a_counters else (
                            (0, 1),
                        ):
                            _add(out, (direct_a + extra_a, direct_b + extra_b),
                                 weight * pca * pcb)
    return out


def round_joint(
    a: Combatant, b: Combatant, a_allot: Allotment, b_allot: Allotment,
    takes: TrickTakes = "parry_first",
) -> dict[tuple[int, int], Fraction]:
    """Exact joint distribution of (unsaved hits on A, unsaved hits on B) in one round."""
    out: dict[tuple[int, int], Fraction] = {}
    fail_a, fail_b = fail_chance(a.armor_save), fail_chance(b.armor_save)
    for (la, lb), p in landed_joint(a_allot, b_allot, takes).items():
        for ua, pua in enumerate(binomial(la, fail_a)):
            for ub, pub in enumerate(binomial(lb, fail_b)):
                _add(out, (ua, ub), p * pua * pub)
    return out


def outcomes_from_joint(
    joint: Mapping[tuple[int, int], Fraction],
    a: Combatant,
    b: Combatant,
    a_flees: bool,
    b_flees: bool,
) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for (ua, ub), p in joint.items():
        down_a = a.wounds_taken + ua >= a.wounds
        down_b = b.wounds_taken + ub >= b.wounds
        if down_a and down_b:
            _add(out, BOTH_DEFEATED, p)
        elif down_a:
            _add(out, B_WINS, p)
        elif down_b:
            _add(out, A_WINS, p)
        else:
            pa = HALF if a_flees else Fraction(0)
            pb = HALF if b_flees else Fraction(0)
            _add(out, BOTH_FLEE, p * pa * pb)
            _add(out, A_FLEES, p * pa * (1 - pb))
            _add(out, B_FLEES, p * (1 - pa) * pb)
            _add(out, CONTINUE, p * (1 - pa) * (1 - pb))
    return {o: out[o] for o in OUTCOMES if o in out}


def _marginal(joint: Mapping[tuple[int, int], Fraction], index: int) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for key, p in joint.items():
        _add(out, key[index], p)
    return dict(sorted(out.items()))


def _allotment_for(text: str, pool: int, who: str) -> Allotment:
    form = parse_form(text)
    if form == FLEE:
        return NOTHING
    assert isinstance(form, Allotment)
    return check_allotment(form, pool, who=who)


def unsaved_hits_distribution(
    attacker_sheet: Mapping[str, Any],
    defender_sheet: Mapping[str, Any],
    a_allot: str,
    b_allot: str,
    *,
    takes: TrickTakes = "parry_first",
) -> dict[int, Fraction]:
    """Exact distribution of the unsaved hits the attacker deals the defender in one round
    (attacks past the parries plus a counterattack, after the defender's armor saves), when
    the attacker allots ``a_allot`` and the defender ``b_allot`` ("flee" allots nothing).
    Swap the arguments for the other direction."""
    attacker = Combatant.from_sheet("attacker", attacker_sheet)
    defender = Combatant.from_sheet("defender", defender_sheet)
    joint = round_joint(
        attacker,
        defender,
        _allotment_for(a_allot, attacker.pool, f"the attacker ({attacker.character})"),
        _allotment_for(b_allot, defender.pool, f"the defender ({defender.character})"),
        takes,
    )
    return _marginal(joint, 1)


@dataclass(frozen=True, slots=True)
class RoundOdds:
    """Exact odds of one round for two allotments."""

    a_allot: str
    b_allot: str
    on_a: dict[int, Fraction]
    on_b: dict[int, Fraction]
    outcomes: dict[str, Fraction]


def round_odds(state: DuelState, a_choice: str, b_choice: str) -> RoundOdds:
    """Exact unsaved hits on each side and the outcome distribution for one round."""
    picks = BY_THIS_AXE._picks(state, {"a": a_choice, "b": b_choice})
    joint = round_joint(
        state.a, state.b, choice_to_allotment(picks["a"]), choice_to_allotment(picks["b"]),
        state.trick_takes,
    )
    return RoundOdds(
        a_allot=picks["a"] or "",
        b_allot=picks["b"] or "",
        on_a=_marginal(joint, 0),
        on_b=_marginal(joint, 1),
        outcomes=outcomes_from_joint(
            joint, state.a, state.b, picks["a"] == FLEE, picks["b"] == FLEE
        ),
    )


# -- the challenge --------------------------------------------------------------------------

ChallengeOutcome = Literal["accepted", "forced", "refused"]


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    """What became of a challenge. ``duel``: a duel is fought. ``declined``: the refusal
    stands (no duel). ``leadership_lost``: the challenged leader's first refusal costs him
    his leadership for this turn; the caller records that the free first refusal is used."""

    outcome: ChallengeOutcome
    duel: bool
    declined: bool
    leadership_lost: bool
    roll: Roll | None
    log: tuple[LogEvent, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "duel": self.duel,
            "declined": self.declined,
            "leadership_lost": self.leadership_lost,
            "roll": None if self.roll is None else self.roll.to_dict(),
            "log": [str(e) for e in self.log],
        }


LEADERSHIP_PENALTY = (
    "loses all leadership value for this turn only: he may not participate in an attack "
    "this turn, may not voluntarily move to a new unit and may not rally a unit this turn"
)


def challenge(
    challenger: Fighter,
    challenged: Fighter,
    accepted: bool,
    units_in_contact: bool,
    leader_first_refusal: bool,
    dice: DiceSource,
    *,
    attempt_force: bool = True,
) -> ChallengeResult:
    """Settle a challenge. The challenger is side "a" for the force roll.

    Accepted: a duel. Refused: when the units are in contact (and the challenger tries,
    ``attempt_force``), a d6 of 1-3 forces the duel anyway and the refusal does not count;
    otherwise the refusal stands and, when the challenged is a leader
    (``challenged.sheet["leader"]``) refusing for the first time in the game
    (``leader_first_refusal``), he loses his leadership for the turn. Later refusals are
    free (the caller passes ``leader_first_refusal=False``)."""
    log: list[LogEvent] = []
    who = challenger.name or "The challenger"
    them = challenged.name or "the challenged character"
    log.append(LogEvent(C_CHALLENGE, f"{who} challenges {them} to personal combat"))
    if accepted:
        log.append(LogEvent(C_CHALLENGE, f"{them} accepts: the duel is fought"))
        return ChallengeResult("accepted", True, False, False, None, tuple(log))
    log.append(LogEvent(C_REFUSAL, f"{them} refuses the challenge"))
    roll: Roll | None = None
    if units_in_contact and attempt_force:
        roll = dice.roll(6, side="a", purpose=FORCE_DUEL)
        if _hit(roll.value):
            log.append(LogEvent(C_FORCE, f"the units are in contact: {who} rolls "
                                f"{roll.value} and forces the duel (1-3); the refusal "
                                "does not stand"))
            return ChallengeResult("forced", True, False, False, roll, tuple(log))
        log.append(LogEvent(C_FORCE, f"the units are in contact: {who} rolls {roll.value} "
                            "and fails to force the duel (4-6)"))
    is_leader = bool(challenged.sheet.get("leader", False))
    lost = is_leader and leader_first_refusal
    if lost:
        log.append(LogEvent(C_REFUSAL, f"{them}'s first refusal as a leader: he "
                            f"{LEADERSHIP_PENALTY}"))
    elif is_leader:
        log.append(LogEvent(C_REFUSAL, f"{them} has declined before: this refusal is "
                            "without penalty"))
    else:
        log.append(LogEvent(C_REFUSAL, f"{them} is not a leader: no leadership to lose"))
    return ChallengeResult("refused", False, True, lost, roll, tuple(log))


BY_THIS_AXE = ByThisAxe()
register(BY_THIS_AXE)
