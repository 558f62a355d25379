"""What a FoEQ state asks next: awaited sides, secrecy, private notes, legal rerolls and
consequences, DM prompts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.rules.errors import InvalidRoundInput
from bot.rules.foeq.state import (
    DISRUPTIVE_RULE,
    EITHER,
    WINNER_ONLY,
    FoeqState,
)
from bot.rules.foeq.tables import (
    DEATH,
    DISRUPTIVE,
    FIRST_BLOOD,
    HIT_DIE,
    PRIDE,
    PRIDE_SCHOOLS,
    REROLL,
    SCORE_CHOICE,
    SETUP,
    SHOT_TWIST,
    STAKE_LABELS,
    STARE,
    STARE_FIRST,
    STARE_SECOND,
    STARE_STYLE,
    STEADFAST,
    STYLE_LABELS,
    TRICK,
)
from bot.rules.foeq.text import _, _n
from bot.rules.terms import RoundResult, Side, other_side

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


def score_chooser(
    state: FoeqState, victor: Side, disruptive: str | None = None
) -> Side:
    """Who chooses the loser's consequence: the victor, unless only the loser is Disruptive
    and the house rule ``disruptive = either`` lets a Disruptive loser choose."""
    rule = disruptive or state.house_rules.get(DISRUPTIVE_RULE.key, WINNER_ONLY)
    loser = other_side(victor)
    if (
        rule == EITHER
        and state.corner(victor).style != DISRUPTIVE
        and state.corner(loser).style == DISRUPTIVE
    ):
        return loser
    return victor


def consequence_options(
    state: FoeqState, victor: Side, disruptive: str | None = None
) -> tuple[str, ...]:
    """The consequences the chooser (``score_chooser``) may pick for the loser of a Shot
    won by ``victor`` (one entry: nothing to choose). School options are the victor's."""
    me = state.corner(victor)
    schools = tuple(s for s in PRIDE_SCHOOLS if s in state.duellist(victor).schools)
    if me.style == DISRUPTIVE or score_chooser(state, victor, disruptive) != victor:
        return (HIT_DIE, *schools, FIRST_BLOOD, DEATH)
    if me.stake == PRIDE:
        return (HIT_DIE, *schools)
    return (me.stake,) if me.stake in (FIRST_BLOOD, DEATH) else (HIT_DIE,)


def default_consequence(stake: str | None) -> str:
    return HIT_DIE if stake in (None, PRIDE) else stake or HIT_DIE


def _d(n: int) -> str:
    """A number of Trick or Fault dice, "1 die", "2 dice" (in the reader's language)."""
    return _n("{count} die", "{count} dice", n)


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
    them = other.name or _("Duellist {side}", side=other_side(side).upper())
    rnd = state.stare_round
    if state.phase == SETUP:
        levels = ", ".join(str(n) for n in me.slot_levels())
        return _(
            "Setup: choose your true stake, style and slot, e.g. `death quick 3`. "
            "The public stake is {stake}; your true stake is "
            "pride, first_blood or death; your Style steadfast, quick, overwhelming, weird or "
            "disruptive; your spell slot level one of {levels} (0 = cantrip). "
            "All three stay secret until the Shot (the stake until the end).",
            stake=_(STAKE_LABELS[state.public_stake]),
            levels=levels,
        )
    if state.phase == STARE_FIRST:
        return _(
            "The Stare, round {round}, First Declaration: you have the lower "
            "Initiative, so you declare your Move first, in the open (e.g. `bluff`, `eye`, "
            "`sage`). {them} declares after you.",
            round=rnd,
            them=them,
        )
    if state.phase == STARE_SECOND:
        first = state.corner(other_side(side)).move
        declared = _(STARE[first].label) if first in STARE else _("no Move")
        return _(
            "The Stare, round {round}, Second Declaration: {them} declared "
            "**{declared}**. Declare your Move, in the open (e.g. `bluff`, `eye`, `sage`).",
            round=rnd,
            them=them,
            declared=declared,
        )
    if state.phase == STARE_STYLE:
        current = _(STYLE_LABELS[state.corner(side).style or STEADFAST])
        return _(
            "The Stare, round {round}: you may change your Style (now "
            "{style}). Say `keep`, or the Style to change to. Your decision stays secret.",
            round=rnd,
            style=current,
        )
    if state.phase == SHOT_TWIST:
        pool = twist_pool(state, side)
        if pool is None:
            return _(
                "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
                "or `none`."
            )
        kind, owner, values = pool
        dice = ", ".join(f"#{i} ({v})" for i, v in enumerate(values, start=1))
        return _twist_prompt(kind, None if owner == side else them, dice)
    if state.phase == SCORE_CHOICE:
        victor = state.shot_winner or side
        options = ", ".join(f"`{c}`" for c in consequence_options(state, victor))
        if victor != side:
            return _(
                "The Score: {them} won the Shot, but your Disruptive Style lets you choose "
                "the consequence you face (house rule disruptive = either): {options}.",
                them=them,
                options=options,
            )
        return _(
            "The Score: you won the Shot. Choose the consequence {them} faces: {options}.",
            them=them,
            options=options,
        )
    return None


def _twist_prompt(kind: str, owner: str | None, dice: str) -> str:
    """The Strategic Twist's prompt when the Style grants a reroll: of the side's own dice
    (``owner`` None) or of the named opponent's, Trick or Fault: one whole sentence each."""
    fields = {"owner": owner, "dice": dice}
    if owner is None and kind == TRICK:
        return _(
            "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
            "or `none`. You may reroll one of your Trick dice: {dice}.", **fields
        )
    if owner is None:
        return _(
            "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
            "or `none`. You may reroll one of your Fault dice: {dice}.", **fields
        )
    if kind == TRICK:
        return _(
            "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
            "or `none`. You may reroll one of {owner}'s Trick dice: {dice}.", **fields
        )
    return _(
        "The Shot, Strategic Twist: choose which die to reroll (e.g. `reroll trick 1`), "
        "or `none`. You may reroll one of {owner}'s Fault dice: {dice}.", **fields
    )



