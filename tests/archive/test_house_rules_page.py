"""Issue 23 item 8, the archive page: a duel started with the legacy key
`params:trick_takes=attack_first` runs forfeit=attack-first, and its page's "Rules in force"
(read from the JSON export it embeds) says attack-first, never the default victim-chooses
(it listed both). Played through the fake Discord on SQLite and PostgreSQL, exported with
`/duel export format:html`, shown in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.db.engine import Database
from tests.archive.browser import open_page
from tests.discord.harness import running_world
from tests.discord.test_house_rules import BTA, bta_sheets, duel_number, duel_row, start
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.browser


def rules_in_force(web: Any) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    rules = web.find_element(By.ID, "rules-list")
    WebDriverWait(web, 15).until(lambda _: rules.text.strip())
    return str(rules.text)


async def test_the_page_shows_the_forfeit_the_duel_runs(
    browser: Any, fake_discord: FakeDiscord, database: Database, tmp_path: Path
) -> None:
    async with running_world(fake_discord, database) as w:
        await bta_sheets(w)
        duel_id = duel_number(await start(w, BTA, "trick_takes=attack_first"))
        assert (await duel_row(database, duel_id)).state["house_rules"]["forfeit"] == (
            "attack-first"
        )
        page = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="html")
        assert page.files, page.content
    path = tmp_path / f"duel-{duel_id}.html"
    path.write_bytes(page.files[0].data)
    open_page(browser, path.as_uri())
    text = rules_in_force(browser)
    assert "attack-first" in text, text
    assert "victim-chooses" not in text and "parry-first" not in text, text
    assert "trick" not in text.casefold(), text  # the legacy key is not shown as a setting
