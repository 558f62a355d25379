"""Fixtures for the archive tests: the fake Discord, and headless Chromium (skipped loudly
when missing, a failure when DUELBOT_REQUIRE_BROWSER=1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.services.container import Services
from tests.archive.browser import browser_required, chromium, find_chromium
from tests.fakediscord.pytest_plugin import fake_discord

__all__ = ["browser", "browser_tools", "fake_discord", "services"]

_browser_skips = pytest.StashKey[list[str]]()


@pytest.fixture
def services(database: Database) -> Services:
    return Services.create(database, DuelSettings())


@pytest.fixture(scope="session")
def browser_tools(request: pytest.FixtureRequest) -> tuple[str, str]:
    """(chromium, chromedriver), or skip (fail when the browser is required)."""
    found = find_chromium()
    if isinstance(found, str):
        reason = f"browser tests NOT run: {found}"
        if browser_required():
            pytest.fail(f"DUELBOT_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        request.config.stash.setdefault(_browser_skips, []).append(reason)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="session")
def browser(browser_tools: tuple[str, str]) -> Iterator[Any]:
    with chromium(*browser_tools) as web:
        yield web


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    skips = config.stash.get(_browser_skips, [])
    if skips:
        terminalreporter.write_sep("!", "Browser tests were SKIPPED", red=True, bold=True)
        terminalreporter.write_line(skips[0])
        terminalreporter.write_line(
            "Install chromium and chromium-driver; CI sets DUELBOT_REQUIRE_BROWSER=1 so that "
            "this fails instead."
        )
