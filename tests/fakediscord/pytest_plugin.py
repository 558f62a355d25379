"""pytest fixtures. Use from a test module or conftest.py:

    from tests.fakediscord.pytest_plugin import fake_discord  # noqa: F401  (re-export)

or in tests/conftest.py: ``pytest_plugins = ["tests.fakediscord.pytest_plugin"]``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.standin.runner import patch_discord
from bot.standin.server import FakeDiscord


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord with discord.py patched to use it. At teardown it fails the
    test if the bot called a route the fake does not know, or the fake itself crashed
    (set ``fake.unknown_routes.clear()`` in a test that means to hit unknown routes)."""
    async with FakeDiscord() as fake:
        with patch_discord(fake):
            yield fake
    fake.check()
