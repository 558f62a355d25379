"""Fixtures for the fourth ruleset's tests: the fake Discord."""

from tests.fakediscord.pytest_plugin import fake_discord

__all__ = ["fake_discord"]
