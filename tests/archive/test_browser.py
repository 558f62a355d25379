"""The archive page in a real browser (headless Chromium): a whole duel of each ruleset,
played through the fake Discord and exported with `/duel export format:html`, verifies every
roll from file://; tampered copies are caught at the right roll and round; the page asks the
network for nothing; screenshots at phone and desktop widths are kept as test artifacts."""

from __future__ import annotations

import copy
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.archive.page import render_duel_page
from bot.archive.site import write_archive
from bot.db.engine import Database
from bot.rules.dice import commitment, derive_roll
from bot.services.container import Services
from bot.services.views import MemberRef
from tests.archive.browser import (
    DESKTOP,
    PHONE,
    artifacts_dir,
    chromium,
    marks,
    open_page,
    requested_urls,
    resource_entries,
    screenshot,
    verify,
    viewport_screenshot,
)
from tests.archive.duels import (
    RULESETS,
    UNDO_REASON,
    by_this_axe_duel,
    export_of,
    play_and_export,
    rolls_of,
    rule_2_14_duel,
)
from tests.fakediscord import FakeDiscord
from tests.services.helpers import CAROL, DAVE

pytestmark = pytest.mark.browser


def embedded(html: str) -> Any:
    start = html.index('<script type="application/json" id="duel-data">')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def page_file(tmp_path: Path, export: dict[str, Any], name: str = "page.html") -> str:
    path = tmp_path / name
    path.write_text(render_duel_page(export), encoding="utf-8")
    return path.as_uri()


def assert_all_ok(web: Any, export: dict[str, Any], engine: str = "webcrypto") -> None:
    result = verify(web)
    total = rolls_of(export)
    assert result["data-state"] == "done", result
    assert result["data-total"] == str(total) and result["data-ok"] == str(total), result
    assert result["data-result"] == "ok" and result["data-engine"] == engine, result
    assert f"{total} of {total} rolls match" in str(result["text"])
    found = marks(web)
    assert len(found["rolls"]) == total
    assert set(found["rolls"].values()) == {"ok"} or total == 0
    closed = [str(r["number"]) for r in export["rounds"] if r.get("seed")]
    assert closed and all(found["rounds"][n] == "ok" for n in closed), found["rounds"]


# -- a whole duel of each ruleset, through the fake Discord ------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_whole_duel_verifies_in_chromium(
    browser: Any,
    fake_discord: FakeDiscord,
    database: Database,
    db_backend: str,
    tmp_path: Path,
    ruleset: str,
) -> None:
    duel = await play_and_export(fake_discord, database, ruleset)
    html = duel.html.decode("utf-8")
    # The page carries the JSON export itself: everything shown is read from it.
    assert embedded(html) == duel.export
    assert duel.rolls > 0
    path = tmp_path / f"duel-{duel.duel_id}.html"
    path.write_bytes(duel.html)

    open_page(browser, path.as_uri())
    assert browser.title == f"Duel #{duel.duel_id}: ann vs bob"
    assert marks(browser)["rolls"] and set(marks(browser)["rolls"].values()) == {None}
    assert_all_ok(browser, duel.export)

    # Shown: both duellists, every round with both moves, each roll with label, die, value.
    text = browser.find_element("tag name", "body").text
    for r in duel.export["rounds"]:
        result = r["result"]
        assert r["seed"] in text and r["commitment"] in text
        for label in result["labels"].values():
            assert str(label) in text
        for roll in result["rolls"]:
            assert roll["label"] in text
    undone = [r for r in duel.export["rounds"] if r["status"] == "undone"]
    if ruleset == "rule-2.14":
        assert [r["number"] for r in undone] == [2]
        section = browser.find_element("id", "round-2")
        assert section.get_attribute("data-status") == "undone"
        assert UNDO_REASON in section.text and "Undone by user" in section.text
        assert "follows the undo of round 2" in browser.find_element("id", "round-3").text

    # Nothing but the page itself was requested, as the browser's own records say.
    assert resource_entries(browser) == []
    assert set(requested_urls(browser)) <= {path.as_uri()}

    out = artifacts_dir()
    stem = f"archive-{ruleset}-{db_backend}"
    for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
        shot = screenshot(browser, out / f"{stem}-{name}.png", size)
        assert shot.stat().st_size > 10_000
    screenshot(browser, out / f"{stem}-phone-dark.png", PHONE, dark=True)
    viewport_screenshot(browser, out / f"{stem}-desktop-top.png", DESKTOP)


# -- tampered copies ----------------------------------------------------------------------


def first_round_with(export: dict[str, Any], *, sides_at_least: int) -> tuple[int, int]:
    """(index in rounds, index in its rolls) of the first roll of a die that big."""
    for i, r in enumerate(export["rounds"]):
        for k, roll in enumerate((r.get("result") or {}).get("rolls", [])):
            if roll["sides"] >= sides_at_least:
                return i, k
    raise AssertionError("no such roll")


def tamper(export: dict[str, Any], what: str) -> tuple[dict[str, Any], int, int]:
    changed = copy.deepcopy(export)
    i, k = first_round_with(changed, sides_at_least=2)
    r = changed["rounds"][i]
    roll = r["result"]["rolls"][k]
    if what == "value":
        roll["value"] = roll["value"] % roll["sides"] + 1  # another face of the same die
    elif what == "label":
        roll["label"] = roll["label"].replace(f"roll:{k}", f"roll:{k + 7}")
    elif what == "sides":
        # A bigger die on which the same seed gives another value (on the page, the die is
        # taken as published; a die changed without changing the value needs the rules:
        # `duelbot verify` re-adjudicates the round).
        seed = bytes.fromhex(r["seed"])
        roll["sides"] = next(
            x
            for x in range(roll["sides"] + 1, roll["sides"] + 50)
            if derive_roll(seed, roll["label"], x) != roll["value"]
        )
    elif what == "seed":
        r["seed"] = ("0" if r["seed"][0] != "0" else "1") + r["seed"][1:]
    elif what == "commitment":
        r["commitment"] = commitment("ab" * 32)
    return changed, i, k


@pytest.mark.parametrize("what", ["value", "label", "sides", "seed", "commitment"])
async def test_a_tampered_copy_is_caught_at_the_right_roll(
    browser: Any, services: Services, tmp_path: Path, what: str
) -> None:
    export = await export_of(services, await rule_2_14_duel(services))
    changed, i, k = tamper(export, what)
    number = str(changed["rounds"][i]["number"])
    open_page(browser, page_file(tmp_path, changed))
    result = verify(browser)
    found = marks(browser)
    total = rolls_of(export)
    in_round = len(changed["rounds"][i]["result"]["rolls"])
    assert result["data-state"] == "done" and result["data-result"] == "mismatch", result
    assert result["data-total"] == str(total)
    if what in ("value", "label", "sides"):
        bad_rolls = {f"{number}:{k}"}  # exactly that roll
    else:  # the round's seed no longer proves anything about any of its rolls
        bad_rolls = {f"{number}:{j}" for j in range(in_round)}
    assert {key for key, mark in found["rolls"].items() if mark == "mismatch"} == bad_rolls
    assert {key for key, mark in found["rolls"].items() if mark == "ok"} == (
        set(found["rolls"]) - bad_rolls
    )
    assert [n for n, mark in found["rounds"].items() if mark == "mismatch"] == [number]
    assert result["data-ok"] == str(total - len(bad_rolls))
    assert result["data-rounds-ok"] == str(int(str(result["data-rounds"])) - 1)
    assert f"{total - len(bad_rolls)} of {total} rolls match" in str(result["text"])
    # The reason is on the element, for a person and for a script.
    roll = browser.find_element("id", f"round-{number}-roll-{k}")
    reason = roll.get_attribute("data-mismatch") or ""
    expected = {
        "value": "re-derived",
        "label": "label should be",
        "sides": "re-derived",
        "seed": "commitment",
        "commitment": "commitment",
    }[what]
    assert expected in reason, reason
    assert "\u2718" in roll.text


async def test_the_javascript_engine_agrees_with_webcrypto(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    """The page's own SHA-256/HMAC (used where a browser withholds WebCrypto) gives the same
    marks, and catches the same tampering."""
    export = await export_of(services, await by_this_axe_duel(services))
    open_page(browser, page_file(tmp_path, export) + "#engine=js")
    assert_all_ok(browser, export, engine="javascript")
    changed, i, k = tamper(export, "value")
    open_page(browser, page_file(tmp_path, changed, "tampered.html") + "#engine=js")
    result = verify(browser)
    assert result["data-engine"] == "javascript" and result["data-result"] == "mismatch"
    assert result["data-ok"] == str(rolls_of(export) - 1)
    number = changed["rounds"][i]["number"]
    assert marks(browser)["rolls"][f"{number}:{k}"] == "mismatch"


def test_the_documented_example_with_rejection_sampling_and_a_huge_die(
    browser: Any, tmp_path: Path
) -> None:
    """docs/fairness.md's worked example, including X = 2**63 + 1 (counter 0 rejected, a
    value beyond 2**53 that only BigInt keeps exact) and X <= 0."""
    seed = bytes(range(32)).hex()
    rolls = [
        {"label": "duel:1:round:1:roll:0", "sides": -3, "value": 0, "for": "b", "purpose": "evade"},
        {"label": "duel:1:round:1:roll:1", "sides": 3, "value": 2, "for": "a", "purpose": "ffs"},
        {
            "label": "duel:1:round:1:roll:2",
            "sides": 2**63 + 1,
            "value": 3916592538638892960,
            "for": "a",
            "purpose": "huge",
        },
    ]
    export = {
        "duel_id": 1,
        "ruleset": "rule-2.14",
        "status": "ended",
        "duellists": {"a": {"name": "Alice"}, "b": {"name": "Bob"}},
        "rounds": [
            {
                "number": 1,
                "status": "closed",
                "seed": seed,
                "commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
                "result": {
                    "outcome": "a_wins",
                    "winner": "a",
                    "rolls": rolls,
                    # The log states every roll (the page checks it does, by rule 2.14's
                    # declared pattern).
                    "log": [
                        "2.14 Evade: Bob rolls DICE-3 (AGI 1 - STR 4) is 0 (Glossary)",
                        "2.14 Full Frontal Strike: Alice rolls DICE3 (STR 5 - AGI 2) rolled 2",
                        "2.14 Huge: Alice rolls DICE9223372036854775809 (2^63 + 1) rolled "
                        "3916592538638892960",
                    ],
                },
            }
        ],
    }
    for engine, suffix in (("webcrypto", ""), ("javascript", "#engine=js")):
        open_page(browser, page_file(tmp_path, export) + suffix)
        assert_all_ok(browser, export, engine=engine)
        roll = browser.find_element("id", "round-1-roll-2")
        assert roll.get_attribute("data-derived") == "3916592538638892960"
    off_by_one = copy.deepcopy(export)
    off_by_one["rounds"][0]["result"]["rolls"][2]["value"] += 1  # a difference Number loses
    open_page(browser, page_file(tmp_path, off_by_one, "off.html"))
    assert verify(browser)["data-ok"] == "2"
    assert marks(browser)["rolls"]["1:2"] == "mismatch"


async def test_an_open_round_is_sealed_and_not_counted(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    export = await export_of(services, await rule_2_14_duel(services, finish=False))
    assert export["rounds"][-1]["status"] == "open" and export["rounds"][-1]["seed"] is None
    open_page(browser, page_file(tmp_path, export))
    result = verify(browser)
    assert result["data-result"] == "ok" and result["data-rounds"] == "2", result
    assert marks(browser)["rounds"]["3"] == "sealed"
    assert "still open" in browser.find_element("id", "round-3").text


async def test_names_are_text_never_markup(
    browser: Any, services: Services, tmp_path: Path
) -> None:
    evil = MemberRef(CAROL.user_id, "</script><img src=x onerror=window.pwned=1>")
    comment = MemberRef(DAVE.user_id, "<!--<script>window.pwned=2</script>")
    export = await export_of(services, await rule_2_14_duel(services, evil, comment))
    html = render_duel_page(export)
    assert embedded(html) == export
    open_page(browser, page_file(tmp_path, export))
    assert browser.execute_script("return window.pwned") is None
    assert browser.find_element("id", "duel-title").text == (
        f"Duel #{export['duel_id']}: {evil.name} vs {comment.name}"
    )
    assert browser.find_elements("css selector", "img") == []
    assert_all_ok(browser, export)


# -- served over http ---------------------------------------------------------------------


@pytest.fixture
def http_root(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(tmp_path)
    )
    http.server.SimpleHTTPRequestHandler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield tmp_path, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


async def test_an_archive_site_over_http(
    browser: Any,
    browser_tools: tuple[str, str],
    services: Services,
    http_root: tuple[Path, int],
) -> None:
    """`duelbot archive`'s output on a static host: the index filters by duellist, ruleset
    and status, links to each page, and each page verifies over http: with WebCrypto on
    127.0.0.1 (a secure context) and with the page's own SHA-256 on a host that is not."""
    root, port = http_root
    first = await rule_2_14_duel(services)
    second = await by_this_axe_duel(services, CAROL, DAVE)
    exports = [await export_of(services, first), await export_of(services, second)]
    written = write_archive(root / "site", exports)
    assert [p.name for p in written] == ["index.html", f"duel-{first}.html", f"duel-{second}.html"]

    base = f"http://127.0.0.1:{port}/site/"
    open_page(browser, base + "index.html")
    rows = browser.find_elements("css selector", "#duel-index tbody tr")
    assert [r.get_attribute("data-duel") for r in rows] == [str(second), str(first)]

    def shown() -> list[str]:
        return [
            r.get_attribute("data-duel")
            for r in browser.find_elements("css selector", "#duel-index tbody tr")
            if r.is_displayed()
        ]

    browser.find_element("id", "filter-duellist").send_keys("caro")
    assert shown() == [str(second)]
    assert "Showing 1 of 2" in browser.find_element("id", "filter-count").text
    browser.find_element("id", "filter-duellist").clear()
    browser.execute_script(
        "const s = document.getElementById('filter-ruleset'); s.value = 'rule-2.14';"
        "s.dispatchEvent(new Event('change'))"
    )
    assert shown() == [str(first)]
    open_page(browser, base + "index.html?ruleset=by-this-axe")
    assert shown() == [str(second)]
    assert resource_entries(browser) == []
    viewport_screenshot(browser, artifacts_dir() / "archive-index-phone.png", PHONE)

    browser.find_element("css selector", f'a[href="duel-{second}.html"]').click()
    assert browser.current_url == base + f"duel-{second}.html"
    assert_all_ok(browser, exports[1])
    index_url = base + "index.html?ruleset=by-this-axe"
    assert set(requested_urls(browser)) <= {index_url, browser.current_url}

    # A host that is not this machine, over plain http: no WebCrypto, the page's own code.
    with chromium(*browser_tools, "--host-resolver-rules=MAP archive.test 127.0.0.1") as web:
        open_page(web, f"http://archive.test:{port}/site/duel-{first}.html")
        assert web.execute_script("return window.isSecureContext") is False
        assert_all_ok(web, exports[0], engine="javascript")
        assert "own SHA-256" in web.find_element("id", "verify-summary").text
