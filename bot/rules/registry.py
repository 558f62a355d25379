"""The one place that lists the rulesets, and the one way to find one.

``get(ruleset_id)`` is the lookup (``UnknownRuleset`` naming the known ids);
``get_or_none(ruleset_id)`` is the same lookup for a reader of stored data, which shows
what it can of a duel whose ruleset is no longer registered; ``ids()`` and
``all_rulesets()`` list them. The rulesets are the entry points of the group
``duelbot.rulesets`` (bot/rules/plugins.py): duelbot's own pyproject.toml declares the
built-in ones there, and an installed package adds its own the same way (docs/rulesets.md).
They are loaded once, at the first lookup. ``BUILTIN_ENTRY_POINTS`` repeats duelbot's own
declarations for a source tree run without installing. Nothing outside its package and
this module names a ruleset id or a ruleset module (tests/test_layering.py); nothing in
bot/rules imports this module, so the import graph has no cycle.
"""

from __future__ import annotations

import threading
from importlib.metadata import EntryPoint

from bot.rules import plugins
from bot.rules.base import Ruleset
from bot.rules.capabilities import InvalidRuleset as InvalidRuleset  # re-exported
from bot.rules.capabilities import PreDuel
from bot.rules.capabilities import capability as capability  # re-exported
from bot.rules.capabilities import check_ruleset as check_ruleset  # re-exported
from bot.rules.errors import UnknownRuleset
from bot.rules.text import RulesetText

_ = RulesetText(__package__)

#: duelbot's own entry points as its pyproject.toml declares them: used only when no
#: installed duelbot distribution declares the group (tests/rules/test_ruleset_entry_points.py
#: keeps the two equal).
BUILTIN_ENTRY_POINTS: tuple[EntryPoint, ...] = tuple(
    EntryPoint(name, value, plugins.GROUP)
    for name, value in (
        ("rule-2.14", "bot.rules.rule_2_14.ruleset:RULE_2_14"),
        ("by-this-axe", "bot.rules.by_this_axe.ruleset:BY_THIS_AXE"),
        ("foeq-spell-duel", "bot.rules.foeq.ruleset:FOEQ"),
    )
)

#: The ruleset used when none is named (a duel, ``duelbot adjudicate`` input).
DEFAULT_RULESET_ID = "rule-2.14"

_LOAD_LOCK = threading.Lock()
_loaded: plugins.Loaded | None = None
_REGISTRY: dict[str, Ruleset] = {}


def _load() -> plugins.Loaded:
    """The entry points' rulesets, loaded at the first call (the bot's threads may ask at
    once: one loads)."""
    global _loaded
    loaded = _loaded
    if loaded is None:
        with _LOAD_LOCK:
            loaded = _loaded
            if loaded is None:
                loaded = plugins.load(plugins.installed_entry_points(), BUILTIN_ENTRY_POINTS)
                _REGISTRY.update(loaded.rulesets)
                _loaded = loaded
    return loaded


def _registry() -> dict[str, Ruleset]:
    _load()
    return _REGISTRY


def builtin() -> tuple[Ruleset, ...]:
    """duelbot's own rulesets (its entry points, else ``BUILTIN_ENTRY_POINTS``), by id."""
    loaded = _load()
    return tuple(loaded.rulesets[ruleset_id] for ruleset_id in sorted(loaded.own))


def register(ruleset: Ruleset) -> Ruleset:
    """Register ``ruleset`` under its id (a test's own ruleset); returns it. InvalidRuleset
    when a capability it claims is not implemented in full (``check_ruleset``)."""
    _registry()[check_ruleset(ruleset).id] = ruleset
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Remove a ruleset a test registered: an installed one (an entry point) is put back."""
    installed = _load().rulesets
    if ruleset_id in installed:
        _REGISTRY[ruleset_id] = installed[ruleset_id]
    else:
        _REGISTRY.pop(ruleset_id, None)


def get(ruleset_id: str) -> Ruleset:
    """The ruleset registered as ``ruleset_id``; UnknownRuleset (a RulesError) naming the
    known ids when there is none."""
    registry = _registry()
    try:
        return registry[ruleset_id]
    except KeyError:
        known = ", ".join(sorted(registry)) or _("none")
        raise UnknownRuleset(
            _("Unknown ruleset {ruleset}; known: {known}.", ruleset=repr(ruleset_id),
              known=known)
        ) from None


def get_or_none(ruleset_id: str) -> Ruleset | None:
    """``get`` for readers of stored data (a post, an export, a replay of the ladder): None
    when no ruleset is registered as ``ruleset_id`` (a test's ruleset, since removed)."""
    return _registry().get(ruleset_id)


def ids() -> tuple[str, ...]:
    return tuple(sorted(_registry()))


def all_rulesets() -> tuple[Ruleset, ...]:
    registry = _registry()
    return tuple(registry[key] for key in sorted(registry))


def with_pre_duel_step(step_id: str) -> tuple[Ruleset, ...]:
    """The registered rulesets that declare the pre-duel step ``step_id`` (the ``PreDuel``
    capability), in ``all_rulesets()`` order: who can settle ``/duel challenge``."""
    return tuple(
        rules
        for rules in all_rulesets()
        if (steps := capability(rules, PreDuel)) is not None
        and any(s.id == step_id for s in steps.pre_duel_steps())
    )

