"""Pure rules engine: no Discord, no database, no I/O. bot/rules/registry.py lists the rulesets."""

from bot.rules import by_this_axe, foeq, registry, rule_2_14
from bot.rules.base import RoundResult, Ruleset, get_ruleset, ruleset_ids
from bot.rules.errors import RulesError

__all__ = [
    "RoundResult",
    "RulesError",
    "Ruleset",
    "by_this_axe",
    "foeq",
    "get_ruleset",
    "registry",
    "rule_2_14",
    "ruleset_ids",
]
