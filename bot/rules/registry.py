"""The one place that lists the rulesets, and the one way to find one.

``get(ruleset_id)`` is the lookup (``UnknownRuleset`` naming the known ids);
``get_or_none(ruleset_id)`` is the same lookup for a reader of stored data, which shows
what it can of a duel whose ruleset is no longer registered; ``ids()`` and
``all_rulesets()`` list them. A new ruleset is one package under bot/rules/ and one entry in
``BUILTIN`` below (docs/rulesets.md). Nothing outside its package and this module names a
ruleset id or imports a ruleset module (tests/test_layering.py). This module imports each
ruleset from its own ``ruleset`` module; bot/rules/base.py imports no ruleset, so the
import graph has no cycle.
"""

from __future__ import annotations

from bot.rules.base import Ruleset
from bot.rules.by_this_axe.ruleset import BY_THIS_AXE
from bot.rules.capabilities import InvalidRuleset as InvalidRuleset  # re-exported
from bot.rules.capabilities import PreDuel
from bot.rules.capabilities import capability as capability  # re-exported
from bot.rules.capabilities import check_ruleset as check_ruleset  # re-exported
from bot.rules.errors import UnknownRuleset
from bot.rules.foeq.ruleset import FOEQ
from bot.rules.rule_2_14.ruleset import RULE_2_14

#: The rulesets the bot ships with, in the order they are offered.
BUILTIN: tuple[Ruleset, ...] = (RULE_2_14, BY_THIS_AXE, FOEQ)

#: The ruleset used when none is named (a duel, ``duelbot adjudicate`` input).
DEFAULT_RULESET_ID = RULE_2_14.id

_REGISTRY: dict[str, Ruleset] = {ruleset.id: ruleset for ruleset in BUILTIN}


def register(ruleset: Ruleset) -> Ruleset:
    """Register ``ruleset`` under its id (a test's own ruleset); returns it. InvalidRuleset
    when a capability it claims is not implemented in full (``check_ruleset``)."""
    _REGISTRY[check_ruleset(ruleset).id] = ruleset
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Remove a ruleset a test registered (the built-in ones stay)."""
    if ruleset_id not in {r.id for r in BUILTIN}:
        _REGISTRY.pop(ruleset_id, None)


def get(ruleset_id: str) -> Ruleset:
    """The ruleset registered as ``ruleset_id``; UnknownRuleset (a RulesError) naming the
    known ids when there is none."""
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise UnknownRuleset(f"Unknown ruleset {ruleset_id!r}; known: {known}.") from None


def get_or_none(ruleset_id: str) -> Ruleset | None:
    """``get`` for readers of stored data (a post, an export, a replay of the ladder): None
    when no ruleset is registered as ``ruleset_id`` (a test's ruleset, since removed)."""
    return _REGISTRY.get(ruleset_id)


def ids() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def all_rulesets() -> tuple[Ruleset, ...]:
    return tuple(_REGISTRY[key] for key in ids())


def with_pre_duel_step(step_id: str) -> tuple[Ruleset, ...]:
    """The registered rulesets that declare the pre-duel step ``step_id`` (the ``PreDuel``
    capability), in ``all_rulesets()`` order: who can settle ``/duel challenge``."""
    return tuple(
        rules
        for rules in all_rulesets()
        if (steps := capability(rules, PreDuel)) is not None
        and any(s.id == step_id for s in steps.pre_duel_steps())
    )


# The built-ins pass the same check as any registered ruleset, at import.
for _builtin in BUILTIN:
    check_ruleset(_builtin)
