"""Rule 2.14 Duelling: the core ruleset (interpretation in docs/rules/rule-2.14.md).

Modules: moves (moves, outcomes, parsing), state (duellists, state, options), ruleset (the
Ruleset and its resolution). Every name is re-exported here."""

from __future__ import annotations

from bot.rules.rule_2_14.moves import (
    ATTACKS,
    DEFENCES,
    EVADE,
    FULL_FRONTAL_STRIKE,
    LABELS,
    LOCK_ATTEMPT,
    MISSING_MOVE_POLICIES,
    MOVE_IDS,
    MOVES,
    OUTCOMES,
    RETREAT,
    RULESET_ID,
    SIDE_SWIPE,
    STAT_MAX,
    STAT_MIN,
    MissingMovePolicy,
    allowed_moves_text,
    check_stat,
    parse_move,
)
from bot.rules.rule_2_14.ruleset import (
    RULE_2_14,
    Rule214,
)
from bot.rules.rule_2_14.state import (
    Duellist,
    DuelState,
    Options,
)

__all__ = [
    "ATTACKS",
    "DEFENCES",
    "EVADE",
    "FULL_FRONTAL_STRIKE",
    "LABELS",
    "LOCK_ATTEMPT",
    "MISSING_MOVE_POLICIES",
    "MOVES",
    "MOVE_IDS",
    "OUTCOMES",
    "RETREAT",
    "RULESET_ID",
    "RULE_2_14",
    "SIDE_SWIPE",
    "STAT_MAX",
    "STAT_MIN",
    "DuelState",
    "Duellist",
    "MissingMovePolicy",
    "Options",
    "Rule214",
    "allowed_moves_text",
    "check_stat",
    "parse_move",
]
