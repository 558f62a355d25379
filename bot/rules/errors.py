"""The one error root of the rules engine. Every message is fit to show a user."""

from __future__ import annotations


class RulesError(Exception):
    """Root of every error the rules engine raises."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidChoice(RulesError):
    """A submitted move/choice is not legal for this ruleset."""


class InvalidStats(RulesError):
    """A duellist's statistics are missing or out of range."""


class InvalidSeed(RulesError):
    """A dice seed is not 32 bytes of hex."""


class DiceError(RulesError):
    """A dice source could not produce a roll."""


class UnknownRuleset(RulesError):
    """No ruleset is registered under that id."""


class InvalidRoundInput(RulesError):
    """A round description (e.g. the adjudicate JSON) is malformed."""


class InvalidHouseRule(RulesError):
    """A per-duel house rule is unknown or has a value it does not allow."""
