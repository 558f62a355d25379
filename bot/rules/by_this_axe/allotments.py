"""By This Axe allotments: the three maneuver areas, text forms and the allotment clause."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from bot.rules.by_this_axe.tables import (
    FLEE,
    FLEE_FROM_ROUND,
)
from bot.rules.by_this_axe.text import N_, _
from bot.rules.errors import InvalidChoice
from bot.rules.terms import MoveSpec

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
        """As the adjudication log states it (English)."""
        return f"Attack {self.attack}, Parry {self.parry}, Trick {self.tricks}"

    @property
    def shown(self) -> str:
        """As a member reads it, in their language."""
        return _("Attack {attack}, Parry {parry}, Trick {tricks}",
                 attack=self.attack, parry=self.parry, tricks=self.tricks)

    @property
    def dice(self) -> int:
        return self.attack + self.parry + self.tricks


NOTHING = Allotment(0, 0, 0)
FLEE_LABEL = N_("Flee (attempt to run away)")
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

def forms_text() -> str:
    """How an allotment is written, in the reader's language."""
    return _(
        "write attack, parry and dirty-trick dice like 'a3 p1 t0', '3/1/0' or "
        "'attack 3 parry 1 tricks 0' (at least 1 attack, at least 1 parry, at most 1 "
        "dirty trick), or '{flee}' from round {round}",
        flee=FLEE,
        round=FLEE_FROM_ROUND,
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
        raise InvalidChoice(
            _("{text} is not an allotment: {forms}.", text=_shown(text), forms=forms_text())
        )
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
                _("{text}: {area} is not a maneuver area (attack, parry, tricks); {forms}.",
                  text=repr(_shown(text)), area=repr(match.group(1)), forms=forms_text())
            )
        if key in found:
            raise InvalidChoice(
                _("{text} names {key} twice; {forms}.", text=repr(_shown(text)), key=key,
                  forms=forms_text())
            )
        found[key] = int(match.group(2))
        pos = match.end()
    if pos < len(words) or not found:
        raise InvalidChoice(
            _("{text} is not an allotment: {forms}.", text=repr(_shown(text)),
              forms=forms_text())
        )
    return Allotment(found.get("attack", 0), found.get("parry", 0), found.get("tricks", 0))


def check_allotment(
    allot: Allotment, pool: int, *, allot_all: bool = False, who: str = ""
) -> Allotment:
    """``allot`` if it obeys the allotment clause for a pool of ``pool`` dice."""
    if who:
        pool_text = _("{who} has a pool of {pool} dice", who=who, pool=pool)
    else:
        pool_text = _("the pool is {pool} dice", pool=pool)
    fields = {"shown": allot.shown, "pool": pool_text, "dice": allot.dice}
    if allot.attack < 1:
        raise InvalidChoice(
            _("{shown}: at least one die must be allotted to attack (By This Axe); {pool}.",
              **fields)
        )
    if allot.parry < 1:
        raise InvalidChoice(
            _("{shown}: at least one die must be allotted to parry (By This Axe); {pool}.",
              **fields)
        )
    if allot.tricks > 1:
        raise InvalidChoice(
            _("{shown}: only one die can be allotted to dirty tricks (By This Axe); {pool}.",
              **fields)
        )
    if allot.dice > pool:
        raise InvalidChoice(
            _("{shown}: {dice} dice allotted, more than the pool allows; {pool}.", **fields)
        )
    if allot_all and allot.dice != pool:
        raise InvalidChoice(
            _("{shown}: {dice} dice allotted, but this duel requires every die of the "
              "pool to be allotted (allot_all); {pool}.", **fields)
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
        raise InvalidChoice(
            _("{choice} is not a canonical allotment id (a3p1t0).", choice=_shown(choice))
        )
    a, p, t = (int(g) for g in match.groups())
    return Allotment(a, p, t)



