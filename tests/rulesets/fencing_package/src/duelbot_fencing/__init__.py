"""A fencing bout for duelbot, installable as a package: the worked example of
docs/rulesets.md ("Write, test and publish your own ruleset").

duelbot finds it through the entry point this package's pyproject.toml declares in the
group ``duelbot.rulesets`` (``fencing-bout = "duelbot_fencing.ruleset:FENCING"``); nothing
in duelbot names it.
"""

from duelbot_fencing.ruleset import FENCING, RULESET_ID, Fencing

__all__ = ["FENCING", "RULESET_ID", "Fencing"]
