"""Accessibility (issue 26): the archive's duel page, its index and its ladder page pass
axe-core 4.x with no serious or critical violation, in light and dark mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.archive.site import write_archive
from bot.services.container import Services
from tests.archive.axe import assert_accessible
from tests.archive.browser import open_page
from tests.archive.duels import by_this_axe_duel, export_of, rule_2_14_duel
from tests.services.helpers import CAROL, DAVE, GUILD

pytestmark = pytest.mark.browser


async def test_archive_pages_pass_axe_in_light_and_dark(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    first = await rule_2_14_duel(services)
    second = await by_this_axe_duel(services, CAROL, DAVE)
    exports = [await export_of(services, first), await export_of(services, second)]
    ladders = await services.ratings.whole_ladders(GUILD)
    assert ladders, "the ladder page has a rated duel to show"
    written = write_archive(tmp_path / "site", exports, ladders=ladders)
    names = {p.name for p in written}
    assert {"index.html", "ladder.html", f"duel-{first}.html"} <= names
    for name in ("index.html", "ladder.html", f"duel-{first}.html", f"duel-{second}.html"):
        open_page(browser, (tmp_path / "site" / name).as_uri())
        assert_accessible(browser, name)
