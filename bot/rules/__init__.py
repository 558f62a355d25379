"""Pure rules engine: no Discord, no database, no I/O. bot/rules/registry.py lists the rulesets.

The ruleset packages are not re-exported here: import one by its own name
(``from bot.rules.foeq import FOEQ``), or better, ask the registry.
"""

from bot.rules import registry
from bot.rules.base import RoundResult, Ruleset, get_ruleset, ruleset_ids
from bot.rules.errors import RulesError

__all__ = [
    "RoundResult",
    "RulesError",
    "Ruleset",
    "get_ruleset",
    "registry",
    "ruleset_ids",
]
