"""Issue 23, item 10: the archive page's Verify checks more than the dice, in headless
Chromium. A roll deleted, rolls out of order, a roll rewritten as `sides: 0, value: 0` (a
die of no sides re-derives 0 from any seed), a log citing a roll that is not recorded, and
a recorded roll that no log line states each make Verify say NOT ok, marked on the round;
a changed winner (an outcome: it needs the rules) is not checked by the page, which says so
plainly and names `duelbot verify`; an untouched page still verifies ok."""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import pytest

from bot.archive.page import render_duel_page
from bot.rules.dice import derive_roll
from bot.services.container import Services
from tests.archive.browser import (
    DESKTOP,
    PHONE,
    artifacts_dir,
    marks,
    open_page,
    screenshot,
    verify,
)
from tests.archive.duels import export_of, rolls_of, rule_2_14_duel

pytestmark = pytest.mark.browser


def page_file(tmp_path: Path, export: dict[str, Any], name: str) -> str:
    path = tmp_path / f"{name}.html"
    path.write_text(render_duel_page(export), encoding="utf-8")
    return path.as_uri()


def round_with_rolls(export: dict[str, Any], at_least: int) -> dict[str, Any]:
    """The first closed round with that many rolls, one of them of two sides or more."""
    for r in export["rounds"]:
        rolls = (r.get("result") or {}).get("rolls", [])
        if len(rolls) >= at_least and any(x["sides"] >= 2 for x in rolls):
            return dict(r)
    raise AssertionError("no such round")


def tamper(export: dict[str, Any], what: str) -> tuple[dict[str, Any], int, str]:
    """A changed copy, the changed round's number, and what its reason must say."""
    changed = copy.deepcopy(export)
    number = round_with_rolls(changed, 2)["number"]
    r = next(x for x in changed["rounds"] if x["number"] == number)
    rolls, log = r["result"]["rolls"], r["result"]["log"]
    if what == "last-roll-deleted":  # the old check saw nothing wrong: every label still fits
        rolls.pop()
        return changed, number, "a roll the log cites is not recorded"
    if what == "first-roll-deleted":
        rolls.pop(0)
        return changed, number, "missing"
    if what == "rolls-swapped":
        rolls[0], rolls[1] = rolls[1], rolls[0]
        return changed, number, "out of order"
    if what == "die-of-no-sides":
        big = next(x for x in rolls if x["sides"] >= 2)
        big["sides"], big["value"] = 0, 0
        return changed, number, "not one of this duel's dice"
    if what == "log-cites-an-unrecorded-roll":
        log.insert(len(log) - 1, log[[x["sides"] >= 2 for x in rolls].index(True)])
        return changed, number, "a roll the log cites is not recorded"
    if what == "roll-not-cited":
        # A roll with the right label and the value its seed gives: only the log betrays it.
        k = len(rolls)
        label = f"duel:{changed['duel_id']}:round:{number}:roll:{k}"
        value = derive_roll(bytes.fromhex(r["seed"]), label, 3)
        rolls.append({"label": label, "sides": 3, "value": value, "for": "a", "purpose": "evade"})
        return changed, number, "the log does not state this roll"
    raise AssertionError(what)


def element_screenshot(web: Any, element_id: str, path: Path, width: int) -> None:
    """Just one element (a round, the Verify panel) at ``width`` CSS pixels: a full page is
    too tall to read at a phone's width."""
    web.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    try:
        box = web.execute_script(
            "const r = document.getElementById(arguments[0]).getBoundingClientRect();"
            "return [r.left + scrollX, r.top + scrollY, r.width, r.height];",
            element_id,
        )
        x, y, w, h = (float(v) for v in box)
        shot = web.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": x, "y": y, "width": w, "height": min(h, 3000), "scale": 1},
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))
    finally:
        web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def assert_outcome_left_to_duelbot_verify(web: Any, result: dict[str, Any], duel_id: int) -> None:
    command = f"duelbot verify duel-{duel_id}.json"
    assert result["data-outcome"] == "not-checked", result
    assert f"Not checked here: the outcome (who won); run {command}" in str(result["text"])
    scope = web.find_element("id", "verify-scope")
    assert "It does not check the outcome" in scope.text and command in scope.text
    assert web.find_element("id", "verify-command").text == command


async def test_an_untouched_page_still_verifies_and_names_duelbot_verify(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    export = await export_of(services, await rule_2_14_duel(services))
    open_page(browser, page_file(tmp_path, export, "untouched"))
    result = verify(browser)
    total = rolls_of(export)
    assert result["data-result"] == "ok" and result["data-ok"] == str(total), result
    assert result["data-dice"] == "checked" and result["data-log"] == "checked", result
    assert set(marks(browser)["rolls"].values()) == {"ok"}
    assert_outcome_left_to_duelbot_verify(browser, result, export["duel_id"])
    out = artifacts_dir()
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        screenshot(browser, out / f"archive-checks-untouched-{name}.png", size)
        element_screenshot(
            browser, "verify-panel", out / f"archive-checks-untouched-{name}-verify.png", size[0]
        )


async def test_a_changed_winner_is_left_to_duelbot_verify_and_the_page_says_so(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    """The winner follows from the rules, which the page does not run: its dice still
    verify, and the page says plainly that it did not check the outcome, and how to."""
    export = await export_of(services, await rule_2_14_duel(services))
    changed = copy.deepcopy(export)
    assert changed["winner"] == "a"
    changed["winner"], changed["winner_name"] = "b", "Bob"
    last = changed["rounds"][-1]["result"]
    last["winner"], last["outcome"] = "b", "b_wins"
    open_page(browser, page_file(tmp_path, changed, "winner"))
    result = verify(browser)
    assert result["data-result"] == "ok", result  # the dice are untouched
    assert_outcome_left_to_duelbot_verify(browser, result, export["duel_id"])


@pytest.mark.parametrize(
    "what",
    [
        "last-roll-deleted",
        "first-roll-deleted",
        "rolls-swapped",
        "die-of-no-sides",
        "log-cites-an-unrecorded-roll",
        "roll-not-cited",
    ],
)
async def test_a_changed_roll_or_log_is_not_ok_on_its_round(
    browser: Any, services: Services, tmp_path: Path, what: str
) -> None:
    export = await export_of(services, await rule_2_14_duel(services))
    changed, number, reason = tamper(export, what)
    open_page(browser, page_file(tmp_path, changed, what))
    result = verify(browser)
    assert result["data-state"] == "done" and result["data-result"] == "mismatch", result
    assert str(result["text"]).startswith("\u2718"), result
    found = marks(browser)
    # Marked on that round, and on that round only.
    assert {n for n, m in found["rounds"].items() if m == "mismatch"} == {str(number)}, found
    assert all(m == "ok" for n, m in found["rounds"].items() if n != str(number) and m)
    section = browser.find_element("id", f"round-{number}")
    said = " ".join(
        [section.get_attribute("data-mismatch") or ""]
        + [
            roll.get_attribute("data-mismatch") or ""
            for roll in section.find_elements("css selector", "li.roll")
        ]
    )
    assert reason in said, said
    assert "\u2718 mismatch" in section.find_element("css selector", ".badge.verify").text
    # Said in words on the round, for a reader (a deleted roll has no roll left to mark).
    why = section.find_element("css selector", ".round-problems")
    assert why.is_displayed() and why.text.startswith("\u2718"), why.text
    if what in ("die-of-no-sides", "last-roll-deleted"):
        out = artifacts_dir()
        for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
            screenshot(browser, out / f"archive-checks-{what}-{name}.png", size)
            element_screenshot(
                browser, f"round-{number}", out / f"archive-checks-{what}-{name}-round.png", size[0]
            )
