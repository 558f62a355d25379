"""The victim's choice after a dirty trick (house rule ``forfeit = victim-chooses``).

A choice names the dice *forfeited*: ``forfeit:a1p1`` gives up one attack and one parry die.
"""

from __future__ import annotations

import re

from bot.rules.by_this_axe.allotments import Allotment, _normalise, _shown, parse_form
from bot.rules.by_this_axe.state import forfeit_splits
from bot.rules.by_this_axe.text import _, _n
from bot.rules.errors import InvalidChoice

FORFEIT_PREFIX = "forfeit:"
_ID = re.compile(r"forfeit:a(\d)p(\d)")

#: Words for "as many as possible from that area" and for "one of each".
_FROM_ATTACK = frozenset({"attack", "attacks", "a", "att", "atk"})
_FROM_PARRY = frozenset({"parry", "parries", "p", "par", "defence", "defense", "def"})
_ONE_EACH = frozenset({"both", "one each", "each", "split", "mixed", "1 each"})


def forfeit_choice_id(split: Allotment) -> str:
    return f"{FORFEIT_PREFIX}a{split.attack}p{split.parry}"


def forfeit_label(split: Allotment) -> str:
    """A forfeit as a member reads it, in their language: "Forfeit 2 attack dice"."""
    if split.attack and split.parry:
        return _(
            "Forfeit {attack} and {parry}",
            attack=_n("{count} attack die", "{count} attack dice", split.attack),
            parry=_n("{count} parry die", "{count} parry dice", split.parry),
        )
    if split.attack:
        return _n("Forfeit {count} attack die", "Forfeit {count} attack dice", split.attack)
    if split.parry:
        return _n("Forfeit {count} parry die", "Forfeit {count} parry dice", split.parry)
    return _("Forfeit nothing")


def parse_forfeit_id(choice: str) -> Allotment:
    match = _ID.fullmatch(choice.strip()) if isinstance(choice, str) else None
    if match is None:
        raise InvalidChoice(
            _("{choice} is not a forfeit choice id (forfeit:a1p1).", choice=_shown(choice))
        )
    return Allotment(int(match.group(1)), int(match.group(2)), 0)


def parse_forfeit_text(text: str, allot: Allotment) -> Allotment:
    """The dice a victim's text forfeits: an id (``forfeit:a2p0``), a count form
    (``a1 p1``, ``2/0``, ``attack 2``), or a word: ``attack`` / ``parry`` (as many as
    possible from that area), ``both`` / ``one each``."""
    if not isinstance(text, str):
        raise InvalidChoice(_("{text} is not a forfeit choice.", text=_shown(text)))
    norm = _normalise(text)
    if norm.startswith(FORFEIT_PREFIX):
        return parse_forfeit_id(norm)
    norm = re.sub(r"^(?:forfeit|lose|give up)\s+", "", norm)
    total = min(2, allot.attack + allot.parry)
    if norm in _FROM_ATTACK:
        from_attack = min(total, allot.attack)
        return Allotment(from_attack, total - from_attack, 0)
    if norm in _FROM_PARRY:
        from_parry = min(total, allot.parry)
        return Allotment(total - from_parry, from_parry, 0)
    if norm in _ONE_EACH:
        return Allotment(1, 1, 0)
    try:
        form = parse_form(norm)
    except InvalidChoice:
        form = None
    if not isinstance(form, Allotment) or form.tricks:
        splits = ", ".join(forfeit_choice_id(s) for s in forfeit_splits(allot))
        raise InvalidChoice(
            _("{text}: say which dice you forfeit, e.g. 'attack', 'parry', 'one each' or "
              "'a1 p1'. Allowed: {allowed}.", text=repr(_shown(text)), allowed=splits)
        )
    return form


def after_split(allot: Allotment, split: Allotment) -> Allotment:
    """``allot`` once the victim gave up ``split``."""
    return Allotment(allot.attack - split.attack, allot.parry - split.parry, allot.tricks)
