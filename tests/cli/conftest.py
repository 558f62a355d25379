"""Fixtures for the command-line tests: the fake Discord (for /duel export)."""

from tests.cli.exports import exports
from tests.fakediscord.pytest_plugin import fake_discord

__all__ = ["exports", "fake_discord"]
