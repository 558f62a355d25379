"""A fourth ruleset that lives only under tests: a fencing bout to two touches.

It proves that a ruleset is a self-contained plug-in (issue 11): a test registers it with
``bot.rules.registry.register(FENCING)``, and the bot plays it through the same services,
Discord layer, exports and verification as the built-in rulesets, with no change to any
file outside this folder.
"""

from tests.rulesets.fencing.ruleset import FENCING, RULESET_ID, Fencing

__all__ = ["FENCING", "RULESET_ID", "Fencing"]
