"""A German duel's archive page in headless Chromium (issue 28): ``<html lang="de">``, German
headings, labels and buttons, and the in-browser dice verification succeeds, saying so in
German; a tampered copy is caught in German; screenshots at phone (390 px) and desktop
widths go to tests/artifacts/. The duel speaks German from its start (the server's
language), so its rounds closed in German and their logs are German: the page reads their
dice all the same (the ruleset's ``log_dice_pattern`` is anchored on the dice notation)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from bot.archive.page import render_duel_page
from bot.db.engine import Database
from bot.exports.formats import duel_json, export_html
from bot.services.container import Services
from tests.archive.browser import (
    DESKTOP,
    PHONE,
    artifacts_dir,
    open_page,
    requested_urls,
    resource_entries,
    screenshot,
    verify,
    viewport_screenshot,
)
from tests.archive.duels import rule_2_14_duel
from tests.archive.german import history_of
from tests.archive.test_browser import tamper
from tests.services.helpers import COMMANDER, GUILD

pytestmark = pytest.mark.browser


async def german_duel(services: Services, database: Database) -> int:
    """A whole rule 2.14 duel (one round undone) on a server whose language is German: the
    duel's language is German from its start, every round closed in German."""
    await services.settings.set_language(GUILD, COMMANDER, "de")
    return await rule_2_14_duel(services)


def text_of(web: Any, element_id: str) -> str:
    return str(web.find_element("id", element_id).text)


async def test_a_german_duels_page_verifies_in_german(
    browser: Any, services: Services, database: Database, db_backend: str, tmp_path: Path
) -> None:
    duel_id = await german_duel(services, database)
    history = await history_of(services, database, duel_id)
    export = duel_json(history)
    path = tmp_path / f"duel-{duel_id}.html"
    path.write_text(export_html(history), encoding="utf-8")

    open_page(browser, path.as_uri())
    assert browser.execute_script("return document.documentElement.lang") == "de"
    assert browser.title == f"Duell #{duel_id}: Alice gegen Bob"
    assert text_of(browser, "verify-heading") == "Nachweislich faire Würfel"
    assert text_of(browser, "overview-heading") == "Das Duell"
    assert text_of(browser, "rules-heading") == "Geltende Regeln"
    assert text_of(browser, "verify-button") == "Jeden Wurf prüfen"
    assert text_of(browser, "verify-summary") == "Noch nicht geprüft."
    facts = text_of(browser, "duel-facts")
    assert "Regelwerk" in facts and "Sieger" in facts and "Gestartet" in facts
    assert "UTC" in facts and "Started" not in facts
    # (A round's heading is its label as the close stored it, in the ruleset's words: the
    # duel's language once the close speaks it, not the page's to translate.)
    round_one = text_of(browser, "round-1")
    assert "Protokoll, mit den angeführten Regeln" in round_one and "Würfe (" in round_one
    assert "Zurückgenommen von" in text_of(browser, "round-2")
    # The log is German, its rules cited by their German headings, and its dice are read.
    assert "2.14 Verteidigungen, Ausweichen" in round_one and " würfelt DICE" in round_one
    assert " rolls DICE" not in round_one and "Defences" not in round_one
    summary = browser.find_element("id", "verify-summary")

    # The dice verify, exactly as on an English page, and the page says so in German.
    assert_all_ok_german(browser, export)
    assert summary.get_attribute("data-log") == "checked"
    badge = browser.find_element("css selector", "#round-1 .badge.verify").text
    assert badge == "\u2714 geprüft"
    assert "nachgerechnet" in text_of(browser, "round-1")
    assert resource_entries(browser) == []
    assert set(requested_urls(browser)) <= {path.as_uri()}

    out = artifacts_dir()
    stem = f"archive-german-{db_backend}"
    assert screenshot(browser, out / f"{stem}-phone.png", PHONE).stat().st_size > 10_000
    screenshot(browser, out / f"{stem}-desktop.png", DESKTOP)
    viewport_screenshot(browser, out / f"{stem}-phone-top.png", PHONE)


def assert_all_ok_german(web: Any, export: dict[str, Any]) -> None:
    """What tests/archive/test_browser.py's ``assert_all_ok`` checks of a whole duel (every
    roll and round ok, by the same data attributes), and the summary in German."""
    total = sum(len((r.get("result") or {}).get("rolls", [])) for r in export["rounds"])
    result = verify(web)
    assert result["data-state"] == "done" and result["data-result"] == "ok", result
    assert result["data-total"] == str(total) and result["data-ok"] == str(total), result
    summary = str(result["text"])
    assert summary.startswith(f"\u2714 {total} von {total} Würfen stimmen überein;"), summary
    assert "Runden geprüft (Seed passt zu seinem Commitment" in summary, summary
    assert "Hier nicht geprüft: das Ergebnis (wer gewann)" in summary, summary


async def test_a_tampered_german_page_is_caught_in_german(
    browser: Any, services: Services, database: Database, tmp_path: Path
) -> None:
    duel_id = await german_duel(services, database)
    export = duel_json(await history_of(services, database, duel_id))
    changed, i, k = tamper(export, "value")
    number = changed["rounds"][i]["number"]
    path = tmp_path / "tampered.html"
    path.write_text(render_duel_page(changed), encoding="utf-8")
    open_page(browser, path.as_uri())
    result = verify(browser)
    assert result["data-result"] == "mismatch", result
    roll = browser.find_element("id", f"round-{number}-roll-{k}")
    assert "nachgerechnet" in (roll.get_attribute("data-mismatch") or "")
    badge = browser.find_element("css selector", f"#round-{number} .badge.verify").text
    assert badge == "\u2718 Abweichung"


async def test_a_german_log_that_states_another_value_is_caught(
    browser: Any, services: Services, database: Database, tmp_path: Path
) -> None:
    """The page reads the dice from the German log: a log changed to state another value
    than the roll is a mismatch of that roll."""
    duel_id = await german_duel(services, database)
    export = duel_json(await history_of(services, database, duel_id))
    changed = copy.deepcopy(export)
    for r in changed["rounds"]:
        log = (r.get("result") or {}).get("log") or []
        for j, line in enumerate(log):
            found = re.search(r"(würfelt DICE[0-9]+ \([^()]*\) und erzielt )([0-9]+)", line)
            if found:
                other = "99" if found.group(2) != "99" else "98"
                log[j] = line[: found.start(2)] + other + line[found.end(2):]
                number = r["number"]
                break
        else:
            continue
        break
    else:
        raise AssertionError("no German log line states a roll")
    path = tmp_path / "tampered-log.html"
    path.write_text(render_duel_page(changed), encoding="utf-8")
    open_page(browser, path.as_uri())
    result = verify(browser)
    assert result["data-result"] == "mismatch", result
    reasons = [
        node.get_attribute("data-mismatch") or ""
        for node in browser.find_elements("css selector", f"#round-{number} [data-mismatch]")
    ]
    assert any("99" in reason or "98" in reason for reason in reasons), reasons
