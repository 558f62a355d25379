"""What a By This Axe duellist may choose in a given state, and reading what they sent: the
legal allotments (and flight), the forfeit a dirty trick's victim picks, free text to a
canonical choice id, and a choice's label. ruleset.py, resolution.py and the exact odds
(odds.round_odds) read choices through these functions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from bot.rules.by_this_axe.allotments import (
    FLEE_LABEL,
    FLEE_SPEC,
    NOTHING,
    Allotment,
    _shown,
    check_allotment,
    choice_to_allotment,
    legal_allotments,
    parse_form,
)
from bot.rules.by_this_axe.forfeits import (
    FORFEIT_PREFIX,
    forfeit_choice_id,
    forfeit_label,
    parse_forfeit_id,
    parse_forfeit_text,
)
from bot.rules.by_this_axe.state import DuelState, forfeit_splits
from bot.rules.by_this_axe.tables import FLEE, FLEE_FROM_ROUND, MAX_POOL
from bot.rules.by_this_axe.text import _
from bot.rules.errors import InvalidChoice
from bot.rules.terms import SIDES, MoveSpec, Side


def legal_moves(state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
    """``Ruleset.moves``: the allotments (and flight) of ``side`` in ``state``; a halted
    round's victim's forfeits; without a state, every allotment of the largest pool."""
    if isinstance(state, DuelState) and state.ended:
        return ()
    if isinstance(state, DuelState) and state.pending is not None:
        if side not in state.pending.victims:
            return ()
        return tuple(
            MoveSpec(forfeit_choice_id(split), forfeit_label(split), "forfeit")
            for split in forfeit_splits(tricked_allotment(state, side))
        )
    pool = MAX_POOL
    allot_all = False
    if isinstance(state, DuelState):
        allot_all = state.allot_all
        if side in SIDES:
            pool = state.duellist(side).pool
    specs = tuple(
        MoveSpec(x.id, x.shown, "allotment", (f"{x.attack}/{x.parry}/{x.tricks}",))
        for x in legal_allotments(pool, allot_all=allot_all)
    )
    if not isinstance(state, DuelState) or state.round_no >= FLEE_FROM_ROUND:
        specs += (replace(FLEE_SPEC, label=_(FLEE_SPEC.label)),)
    return specs


def parse_choice(text: str, state: Any = None, side: Side | None = None) -> str:
    """``Ruleset.parse_choice``: the canonical id of ``text``, checked against ``side``'s
    pool in ``state`` when given; InvalidChoice saying what is allowed."""
    if isinstance(state, DuelState) and state.pending is not None:
        return parse_forfeit(text, state, side)
    if isinstance(text, str) and text.startswith(FORFEIT_PREFIX):
        split = parse_forfeit_id(text)
        return forfeit_choice_id(split)
    form = parse_form(text)
    known = isinstance(state, DuelState)
    if form == FLEE:
        if known and state.round_no < FLEE_FROM_ROUND:
            raise InvalidChoice(
                _("You cannot flee in round {round}: a character may attempt to flee a duel "
                  "beginning on round {first} (By This Axe). Allot your dice instead, e.g. "
                  "'a2 p2 t0'.", round=state.round_no, first=FLEE_FROM_ROUND)
            )
        return FLEE
    assert isinstance(form, Allotment)
    if known and side in SIDES:
        me = state.duellist(side)
        who = me.name or _("Duellist {side}", side=side.upper())
        check_allotment(
            form, me.pool, allot_all=state.allot_all, who=f"{who} ({me.character})"
        )
    else:
        check_allotment(form, MAX_POOL, allot_all=False, who=_("the largest character"))
    return form.id


def choice_label(choice: str | None) -> str:
    """``Ruleset.choice_label``: how a canonical choice is shown."""
    if choice is None:
        return _("no allotment")
    if choice == FLEE:
        return _(FLEE_LABEL)
    if choice.startswith(FORFEIT_PREFIX):
        try:
            return forfeit_label(parse_forfeit_id(choice))
        except InvalidChoice:
            return choice
    try:
        return choice_to_allotment(choice).shown
    except InvalidChoice:
        return choice


def picks(state: DuelState, choices: Mapping[Side, str | None]) -> dict[Side, str | None]:
    """Each side's choice as a canonical id (None: nothing sent), checked against ``state``."""
    picked: dict[Side, str | None] = {}
    for side in SIDES:
        choice = choices.get(side)
        picked[side] = None if choice is None else parse_choice(choice, state, side)
    return picked


def tricked_allotment(state: DuelState, side: Side | None) -> Allotment:
    """The allotment ``side`` made in the round halted by a dirty trick (NOTHING if none)."""
    if state.pending is None or side not in SIDES:
        return NOTHING
    return choice_to_allotment(state.pending.picks.get(side))


def parse_forfeit(text: str, state: DuelState, side: Side | None) -> str:
    """The forfeit a halted round's victim ``side`` chose, as its canonical id."""
    pending = state.pending
    assert pending is not None
    if side not in pending.victims:
        names = [state.duellist(v).name or v for v in pending.victims]
        if len(names) == 1:
            raise InvalidChoice(
                _("No choice is expected from you now: the round waits for the forfeit "
                  "choice of {name}.", name=names[0])
            )
        raise InvalidChoice(
            _("No choice is expected from you now: the round waits for the forfeit choice "
              "of {first} and {second}.", first=names[0], second=names[-1])
        )
    allot = tricked_allotment(state, side)
    splits = forfeit_splits(allot)
    split = parse_forfeit_text(text, allot)
    if split not in splits:
        allowed = "; ".join(f"{forfeit_choice_id(x)} ({forfeit_label(x)})" for x in splits)
        raise InvalidChoice(
            _("{text} is not a forfeit you can make with {allotment}: forfeit {count} dice. "
              "Allowed: {allowed}.", text=repr(_shown(text)), allotment=allot.shown,
              count=splits[0].attack + splits[0].parry, allowed=allowed)
        )
    return forfeit_choice_id(split)
