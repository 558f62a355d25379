"""FoEQ choices: free text (or button ids) to canonical choice ids, per phase."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from bot.rules.errors import InvalidChoice
from bot.rules.foeq.sheet import (
    LEVELS,
)
from bot.rules.foeq.tables import (
    CONSEQUENCES,
    DEATH,
    DISRUPTIVE,
    FIRST_BLOOD,
    HIT_DIE,
    KEEP,
    OVERWHELMING,
    PRIDE,
    PRIDE_SCHOOLS,
    QUICK,
    STARE_MOVES,
    STEADFAST,
    STYLES,
    WEIRD,
    _normalise,
)
from bot.rules.foeq.text import _

# -- parsing ---------------------------------------------------------------------------




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
                _("{text}: {token} is not a stake, Style or spell slot level. {help}",
                  text=repr(_shown(text)), token=repr(token), help=_setup_help())
            )
    for what, found in (("stake", stakes), ("Style", styles), ("spell slot level", slots)):
        if len(found) != 1:
            raise InvalidChoice(_setup_problem(what, bool(found), repr(_shown(text))))
    if not 0 <= slots[0] <= LEVELS:
        raise InvalidChoice(
            _("Spell slot level {level} is not 0 (cantrip) to 9.", level=slots[0])
        )
    return stakes[0], styles[0], slots[0]


def _setup_help() -> str:
    return _(
        "Give your true stake (pride, first_blood, death), your Style (steadfast, quick, "
        "overwhelming, weird, disruptive) and your spell slot level (0 = cantrip), e.g. "
        "'stake=death;style=quick;slot=3' or 'death quick 3'."
    )


def _setup_problem(what: str, given: bool, text: str) -> str:
    """Why a setup lacks one part, or gives it twice: one whole sentence each."""
    fields = {"text": text, "help": _setup_help()}
    if what == "stake":
        if given:
            return _("{text}: the stake is given more than once. {help}", **fields)
        return _("{text}: the stake is missing. {help}", **fields)
    if what == "Style":
        if given:
            return _("{text}: the Style is given more than once. {help}", **fields)
        return _("{text}: the Style is missing. {help}", **fields)
    if given:
        return _("{text}: the spell slot level is given more than once. {help}", **fields)
    return _("{text}: the spell slot level is missing. {help}", **fields)


def parse_move(text: str) -> str:
    key = _key(text)
    move = _MOVE_LOOKUP.get(key) or _MOVE_LOOKUP.get(key.replace("_", ""))
    if move is None:
        allowed = ", ".join(f"{m.id} ({'/'.join(m.aliases)})" for m in STARE_MOVES)
        raise InvalidChoice(
            _("{text} is not a Move. Allowed: {allowed}.", text=repr(_shown(text)),
              allowed=allowed)
        )
    return move


def parse_style_change(text: str) -> str:
    key = _key(text)
    if key in _KEEP_WORDS:
        return KEEP
    key = re.sub(r"^(?:change_to|change|switch_to|switch|style)[_=:]*", "", key)
    style = _STYLE_LOOKUP.get(key) or _STYLE_LOOKUP.get(key.replace("_", ""))
    if style is None:
        raise InvalidChoice(
            _("{text}: say 'keep', or the Style to change to ({styles}).",
              text=repr(_shown(text)), styles=", ".join(STYLES))
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
            _("{text}: say 'none', or the die to reroll, e.g. 'reroll:trick:2'.",
              text=repr(_shown(text)))
        )
    return match.group(1), int(match.group(2))


def parse_consequence(text: str) -> str:
    key = _key(text)
    found = _CONSEQUENCE_LOOKUP.get(key) or _CONSEQUENCE_LOOKUP.get(key.replace("_", ""))
    if found is None:
        raise InvalidChoice(
            _("{text} is not a consequence. Allowed: {allowed}.", text=repr(_shown(text)),
              allowed=", ".join(CONSEQUENCES))
        )
    return found



