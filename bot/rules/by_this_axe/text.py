"""This ruleset's texts in the reader's language: its package's catalog
(``locales/<language>/LC_MESSAGES/duelbot.po``, bot/rules/text.py). ``_``, ``_n`` and
``_p`` are the names ``pybabel extract`` finds (`make catalogs`); ``N_`` marks a module
constant, translated where it is read with ``_(CONSTANT)``."""

from __future__ import annotations

from bot.rules.text import N_, NP_, RulesetText

_ = RulesetText(__package__)
_n = _.plural
_p = _.context

__all__ = ["NP_", "N_", "_", "_n", "_p"]
