"""A fourth ruleset that lives only under tests: a fencing bout to two touches.

It proves that a ruleset is a self-contained plug-in (issues 11 and 24): its code is the
installable package tests/rulesets/fencing_package (``duelbot_fencing``, on the tests'
path through pytest's ``pythonpath`` in pyproject.toml); a test registers it with
``bot.rules.registry.register(FENCING)``, and the bot plays it through the same services,
Discord layer, exports and verification as the built-in rulesets, with no change to any
file outside tests/rulesets/. tests/rulesets/test_fencing_package.py installs the package
into a fresh virtual environment, where duelbot finds it by its entry point.
"""

from duelbot_fencing.ruleset import FENCING, RULESET_ID, Fencing

__all__ = ["FENCING", "RULESET_ID", "Fencing"]
