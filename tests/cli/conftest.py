"""Fixtures for the command-line tests: the fake Discord (for /duel export)."""

from tests.fakediscord.pytest_plugin import fake_discord

__all__ = ["fake_discord"]
