"""One FoEQ step: applies the awaited side's choices, then plays every part of the duel that
needs only dice, and stops at the next step that needs a choice (or at the end).

The step's machinery is one class built in layers, each a module, each knowing only the
phases after it: step_base.py (working memory, tools, the end and the frozen result) <-
shot.py (the Shot and the Score) <- stare.py (the setup and the Stare)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.rules.dice import DiceSource
from bot.rules.foeq.stare import StarePhase
from bot.rules.foeq.state import FoeqState, Options
from bot.rules.foeq.tables import (
    SCORE_CHOICE,
    SETUP,
    SHOT_TWIST,
    STARE_FIRST,
    STARE_SECOND,
    STARE_STYLE,
)
from bot.rules.terms import RoundResult, Side


def play_step(
    state: FoeqState,
    choices: Mapping[Side, str | None],
    dice: DiceSource,
    options: Options,
) -> RoundResult:
    """The step ``state`` waits for, given each side's canonical choice (None: nothing by
    the close); ``FoeqSpellDuel.resolve`` has checked that only awaited sides chose."""
    step = StarePhase(state, dice, options)
    actor = state.awaiting[0] if state.awaiting else "a"
    if state.phase == SETUP:
        step.setup(choices)
    elif state.phase == STARE_FIRST:
        step.declare_first(actor, choices[actor])
    elif state.phase == STARE_SECOND:
        step.declare_second(actor, choices[actor])
    elif state.phase == STARE_STYLE:
        step.style_change(actor, choices[actor])
    elif state.phase == SHOT_TWIST:
        step.twist(actor, choices[actor])
    elif state.phase == SCORE_CHOICE:
        step.score_choice(actor, choices[actor])
    return step.finish(choices)
