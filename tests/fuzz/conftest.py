"""Fixtures for the bad-input suite: the fake Discord."""

from tests.cli.exports import exports
from tests.fakediscord.pytest_plugin import fake_discord

__all__ = ["exports", "fake_discord"]
