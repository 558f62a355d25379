"""This package's translation functions, bound to its own catalog (bot/rules/text.py)."""

from __future__ import annotations

from bot.rules.text import N_, RulesetText

_ = RulesetText(__package__)
_n = _.plural
_p = _.context

__all__ = ["N_", "_", "_n", "_p"]
