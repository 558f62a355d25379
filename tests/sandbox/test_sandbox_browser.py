"""The sandbox page in headless Chromium, as a newcomer uses it: set stats, start a duel, open
a round, one move by DM text and one by button, close the round and read the result in the
channel view. Screenshots at desktop width go to tests/artifacts/ (or $DUELBOT_ARTIFACTS)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from tests.archive.browser import DESKTOP, artifacts_dir, requested_urls, viewport_screenshot
from tests.sandbox.support import Sandbox, running_sandbox

HOSTILE = '<img src=x onerror="document.title=1"><b>bold?</b>'


def wait(web: Any, check: Any, timeout: float = 20) -> Any:
    """Until check() is truthy; the page re-renders as the bot posts, so an element found a
    moment ago may be gone: that is retried, not a failure."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(
        web, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
    ).until(lambda _: check())


def click(web: Any, css: str) -> None:
    """Find and click in one step (no stale element in between)."""
    assert web.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return false; e.click(); "
        "return true;", css
    ), f"nothing matches {css}"


def by_css(web: Any, css: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(web.find_elements(By.CSS_SELECTOR, css))


def run_command(web: Any, path: str, **fields: str) -> str:
    """Pick /path in the form, fill its fields (selects by value), Run; the status line."""
    from selenium.webdriver.support.ui import Select

    Select(by_css(web, "#command-select")[0]).select_by_value(path)
    for name, value in fields.items():
        field = by_css(web, f"#opt-{name}")[0]
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    return act(web, lambda: click(web, "#run-command"))


def act(web: Any, do: Any) -> str:
    web.execute_script("document.getElementById('action-status').dataset.state = 'idle'")
    do()
    status = by_css(web, "#action-status")[0]
    wait(web, lambda: status.get_attribute("data-state") in ("done", "error"), timeout=30)
    assert status.get_attribute("data-state") == "done", status.text
    return str(status.text)


def messages_text(web: Any) -> str:
    return str(web.execute_script("return document.getElementById('messages').innerText"))


def last_message(web: Any) -> dict[str, str]:
    return dict(web.execute_script(
        "const all = document.querySelectorAll('#messages .message'); "
        "const m = all[all.length - 1]; "
        "return {text: m.innerText, author: m.dataset.authorId};"
    ))


def open_view(web: Any, css: str) -> None:
    click(web, css)
    wait(web, lambda: by_css(web, f"{css}[aria-current='page']"))


def test_a_round_in_the_browser(tmp_path: Path, sandbox_browser: Any) -> None:
    from selenium.webdriver.support.ui import Select

    web = sandbox_browser
    shots = artifacts_dir()
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        duels = sb.world()["duel_channel_id"]
        web.set_window_size(*DESKTOP)
        web.get("about:blank")
        web.get_log("performance")
        web.get(sb.url)
        wait(web, lambda: web.execute_script("return document.body.dataset.ready") == "1")
        assert Select(by_css(web, "#acting-as")[0]).first_selected_option.get_attribute(
            "value"
        ) == who["morgan"], "the commander acts first"

        assert "STR 5" in run_command(web, "stats set", member=who["ann"], str="5", agi="3")
        run_command(web, "stats set", member=who["bob"], str="4", agi="2")
        started = run_command(web, "duel start", a=who["ann"], b=who["bob"])
        duel = started.split("Duel #")[1].split()[0]
        # The duel number comes from the bot's autocomplete, through the stand-in.
        Select(by_css(web, "#command-select")[0]).select_by_value("round open")
        by_css(web, "#opt-duel")[0].click()
        wait(web, lambda: by_css(web, "#opt-duel-choices option"))
        assert by_css(web, "#opt-duel-choices option")[0].get_attribute("value") == duel
        assert "Round 1" in run_command(web, "round open", duel=duel)
        wait(web, lambda: "Duel #" in messages_text(web))
        viewport_screenshot(web, shots / "sandbox-channel-round-open.png", DESKTOP)

        # Ann types her move in her DMs with the bot.
        open_view(web, f"#dm-list a[data-dm-user-id='{who['ann']}']")
        wait(web, lambda: by_css(web, "#messages button.component"))
        by_css(web, "#dm-input")[0].send_keys("evade")
        act(web, lambda: click(web, "#dm-send"))
        wait(web, lambda: "Evade" in messages_text(web))
        # Names and text are text, never markup.
        by_css(web, "#dm-input")[0].send_keys(HOSTILE)
        act(web, lambda: click(web, "#dm-send"))
        wait(web, lambda: HOSTILE in messages_text(web))
        assert not by_css(web, "#messages img") and not by_css(web, "#messages .content b")
        assert web.title == "duelbot sandbox"

        # Bob clicks a button.
        open_view(web, f"#dm-list a[data-dm-user-id='{who['bob']}']")
        wait(web, lambda: by_css(web, "#messages button.component"))
        viewport_screenshot(web, shots / "sandbox-dm-buttons.png", DESKTOP)
        strike = "#messages button.component[data-custom-id$=':full_frontal_strike']"
        assert "Full Frontal Strike" in act(web, lambda: click(web, strike))

        # Back in the channel, the commander closes the round and the result is posted.
        open_view(web, f"#channel-list a[data-channel-id='{duels}']")
        Select(by_css(web, "#acting-as")[0]).select_by_value(who["morgan"])
        wait(web, lambda: "Morgan" in by_css(web, "#view-note")[0].text)
        assert "Evade" not in messages_text(web), "a move shown before the close"
        run_command(web, "round close", duel=duel)
        wait(web, lambda: "Evade" in messages_text(web) and "Full Frontal Strike"
             in messages_text(web))
        result = last_message(web)
        assert "Evade" in result["text"] and result["author"] != who["ann"]
        assert "is thinking" not in messages_text(web), "a deferred reply left loading"
        assert not by_css(web, "#dm-form")[0].is_displayed(), "no DM box in a channel"
        # Embeds keep their colour bar and fields, as Discord draws them.
        bars = {e.value_of_css_property("border-left-color") for e in by_css(web, ".embed")}
        assert bars - {"rgb(30, 31, 34)", "rgba(30, 31, 34, 1)"}, bars
        assert by_css(web, "#messages .embed-field-name")
        viewport_screenshot(web, shots / "sandbox-channel-result.png", DESKTOP)

        # Everything the page loaded came from the sandbox itself.
        outside = [u for u in requested_urls(web) if not u.startswith((sb.url, "data:", "about:"))]
        assert outside == []
        stop_cleanly(sb)


def stop_cleanly(sb: Sandbox) -> None:
    status, elapsed = sb.stop(signal.SIGINT, timeout=20)
    assert status == 0 and elapsed < 10, (status, elapsed, sb.stderr_text())
    assert "Traceback" not in sb.stderr_text()
