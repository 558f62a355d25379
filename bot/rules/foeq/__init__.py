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

Modules: tables, sheet, state, parsing, phases (what the state asks next), step (one
step's resolution), ruleset (the Ruleset). Every name is re-exported here."""

from __future__ import annotations

from bot.rules.foeq.parsing import (
    parse_consequence,
    parse_move,
    parse_setup,
    parse_style_change,
    parse_twist,
    setup_choice,
)
from bot.rules.foeq.phases import (
    awaiting_sides,
    consequence_options,
    default_consequence,
    is_secret,
    private_notes,
    step_prompt,
    twist_pool,
)
from bot.rules.foeq.ruleset import (
    FOEQ,
    FoeqSpellDuel,
)
from bot.rules.foeq.sheet import (
    HIT_DICE_LIMIT,
    HP_MAX_LIMIT,
    LEVELS,
    MOD_MAX,
    MOD_MIN,
    SLOT_COUNT_LIMIT,
    Duellist,
)
from bot.rules.foeq.state import (
    Corner,
    FoeqState,
    Options,
)
from bot.rules.foeq.tables import (
    ADVANTAGE_AGAINST,
    BIG_WIN,
    BLUFF,
    C_FORFEIT,
    C_MISSING,
    C_SCORE,
    C_SHOT_CAST,
    C_SHOT_FAULTS,
    C_SHOT_INIT,
    C_SHOT_RESULT,
    C_SHOT_REVEAL,
    C_SHOT_TRICKS,
    C_SHOT_TWIST,
    C_STAKES,
    C_STARE_FIRST,
    C_STARE_INIT,
    C_STARE_RESOLVE,
    C_STARE_ROLL,
    C_STARE_SECOND,
    C_STYLE,
    CLAUSE,
    CONSEQUENCE_LABELS,
    CONSEQUENCES,
    DEATH,
    DISRUPTIVE,
    EYE_OF_THE_BEHOLDER,
    FAULT,
    FIRST_BLOOD,
    HIT_DIE,
    KEEP,
    MAX_TIES,
    MISSING_MOVE_POLICIES,
    NO_TWIST,
    OUTCOMES,
    OVER,
    OVERWHELMING,
    PHASES,
    PRIDE,
    PRIDE_SCHOOLS,
    QUICK,
    REROLL,
    RULESET_ID,
    SAGE_ADVICE,
    SCHOOLS,
    SCORE_CHOICE,
    SECRET_CHOICE,
    SECRET_PHASES,
    SEE_THROUGH_THEM,
    SETUP,
    SHOT_TWIST,
    SHOW_OFF,
    SKILL_LABELS,
    SKILLS,
    STAKE_LABELS,
    STAKE_RANK,
    STAKES,
    STARE,
    STARE_FIRST,
    STARE_MOVE_IDS,
    STARE_MOVES,
    STARE_ROUNDS,
    STARE_SECOND,
    STARE_STYLE,
    STEADFAST,
    STYLE_LABELS,
    STYLES,
    TACTICAL_ANALYSIS,
    THE_LOOK,
    TRICK,
    TWITCH,
    WEIRD,
    MissingMovePolicy,
    StareMove,
)

__all__ = [
    "ADVANTAGE_AGAINST",
    "BIG_WIN",
    "BLUFF",
    "CLAUSE",
    "CONSEQUENCES",
    "CONSEQUENCE_LABELS",
    "C_FORFEIT",
    "C_MISSING",
    "C_SCORE",
    "C_SHOT_CAST",
    "C_SHOT_FAULTS",
    "C_SHOT_INIT",
    "C_SHOT_RESULT",
    "C_SHOT_REVEAL",
    "C_SHOT_TRICKS",
    "C_SHOT_TWIST",
    "C_STAKES",
    "C_STARE_FIRST",
    "C_STARE_INIT",
    "C_STARE_RESOLVE",
    "C_STARE_ROLL",
    "C_STARE_SECOND",
    "C_STYLE",
    "DEATH",
    "DISRUPTIVE",
    "EYE_OF_THE_BEHOLDER",
    "FAULT",
    "FIRST_BLOOD",
    "FOEQ",
    "HIT_DICE_LIMIT",
    "HIT_DIE",
    "HP_MAX_LIMIT",
    "KEEP",
    "LEVELS",
    "MAX_TIES",
    "MISSING_MOVE_POLICIES",
    "MOD_MAX",
    "MOD_MIN",
    "NO_TWIST",
    "OUTCOMES",
    "OVER",
    "OVERWHELMING",
    "PHASES",
    "PRIDE",
    "PRIDE_SCHOOLS",
    "QUICK",
    "REROLL",
    "RULESET_ID",
    "SAGE_ADVICE",
    "SCHOOLS",
    "SCORE_CHOICE",
    "SECRET_CHOICE",
    "SECRET_PHASES",
    "SEE_THROUGH_THEM",
    "SETUP",
    "SHOT_TWIST",
    "SHOW_OFF",
    "SKILLS",
    "SKILL_LABELS",
    "SLOT_COUNT_LIMIT",
    "STAKES",
    "STAKE_LABELS",
    "STAKE_RANK",
    "STARE",
    "STARE_FIRST",
    "STARE_MOVES",
    "STARE_MOVE_IDS",
    "STARE_ROUNDS",
    "STARE_SECOND",
    "STARE_STYLE",
    "STEADFAST",
    "STYLES",
    "STYLE_LABELS",
    "TACTICAL_ANALYSIS",
    "THE_LOOK",
    "TRICK",
    "TWITCH",
    "WEIRD",
    "Corner",
    "Duellist",
    "FoeqSpellDuel",
    "FoeqState",
    "MissingMovePolicy",
    "Options",
    "StareMove",
    "awaiting_sides",
    "consequence_options",
    "default_consequence",
    "is_secret",
    "parse_consequence",
    "parse_move",
    "parse_setup",
    "parse_style_change",
    "parse_twist",
    "private_notes",
    "setup_choice",
    "step_prompt",
    "twist_pool",
]
