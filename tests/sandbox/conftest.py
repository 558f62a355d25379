"""Headless Chromium for the sandbox page: skipped loudly when missing, a failure when
DUELBOT_REQUIRE_BROWSER=1 (tests/archive/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.archive.browser import browser_required, chromium, find_chromium

_skips = pytest.StashKey[list[str]]()


@pytest.fixture(scope="module")
def sandbox_browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    found = find_chromium()
    if isinstance(found, str):
        reason = f"sandbox browser test NOT run: {found}"
        if browser_required():
            pytest.fail(f"DUELBOT_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        request.config.stash.setdefault(_skips, []).append(reason)
        pytest.skip(reason)
    with chromium(*found) as web:
        yield web


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    skips = config.stash.get(_skips, [])
    if skips:
        terminalreporter.write_sep("!", "Sandbox browser test was SKIPPED", red=True, bold=True)
        terminalreporter.write_line(skips[0])
