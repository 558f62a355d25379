"""The sandbox page on a phone (390 px) and a desktop (1280 px), used as a person would
(issue 26): only the page's own buttons and form, guided by its "next step" button through a
rule 2.14 duel's first round, then `/duel export`. On every screen: no sideways scrolling,
the newest message in view, touch targets of 44 px, and axe-core with no serious or critical
violation in light and dark mode. Screenshots of both widths go to the artifacts dir."""

from __future__ import annotations

import contextlib
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.archive.axe import assert_accessible
from tests.archive.browser import DESKTOP, PHONE, artifacts_dir
from tests.sandbox.support import running_sandbox
from tests.sandbox.test_sandbox_browser import act, by_css, click, messages_text, wait

pytestmark = pytest.mark.browser


def emulate(web: Any, size: tuple[int, int]) -> None:
    width, height = size
    web.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def screen_is_sound(web: Any, where: str) -> None:
    """No sideways scroll, the newest message in view, every visible control >= 44x44."""
    from selenium.common.exceptions import TimeoutException

    wide = web.execute_script(
        "return [document.scrollingElement.scrollWidth, window.innerWidth]"
    )
    assert wide[0] <= wide[1], f"{where}: scrolls sideways {wide}"
    def gap() -> int:
        return int(web.execute_script(
            "const b = document.getElementById('messages');"
            "return b.scrollHeight - b.scrollTop - b.clientHeight"
        ))

    with contextlib.suppress(TimeoutException):  # a resize settles within a frame or two
        wait(web, lambda: gap() <= 2, timeout=3)
    assert gap() <= 2, f"{where}: the newest message is {gap()} px below the view"
    small = web.execute_script(
        "return [...document.querySelectorAll('button, select, input, #sidebar a, a.attachment')]"
        ".filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden')"
        ".map(e => [e.id || e.className || e.tagName, e.getBoundingClientRect()])"
        ".filter(([, r]) => r.width < 44 || r.height < 44)"
        ".map(([n, r]) => `${n} ${Math.round(r.width)}x${Math.round(r.height)}`)"
    )
    assert not small, f"{where}: touch targets under 44 px: {small}"


def shot(web: Any, name: str, size: tuple[int, int]) -> None:
    import base64

    data = web.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
    (artifacts_dir() / f"sandbox-{name}-{size[0]}.png").write_bytes(base64.b64decode(data))


def guided(web: Any) -> str:
    """Press the page's "next step" button (in an empty channel or the guide bar)."""
    wait(web, lambda: [b for b in by_css(web, ".guide-fill") if b.is_displayed()])
    text = str(web.execute_script(
        "const b = [...document.querySelectorAll('.guide-fill')].find(e => e.offsetParent);"
        "document.body.dataset.guide = ''; b.click(); return b.textContent"
    ))
    wait(web, lambda: web.execute_script("return document.body.dataset.guide") == "filled")
    return text


def tab_through(web: Any, presses: int = 80) -> set[str]:
    """What Tab focuses, from the top of the page: ids, or a kind for repeated controls."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    web.execute_script("document.activeElement && document.activeElement.blur();"
                       "window.focus(); document.body.focus()")
    seen: set[str] = set()
    for _ in range(presses):
        ActionChains(web).send_keys(Keys.TAB).perform()
        seen.add(str(web.execute_script(
            "const e = document.activeElement;"
            "if (e.matches('#channel-list a')) return 'channel-link';"
            "if (e.matches('#dm-list a')) return 'dm-link';"
            "if (e.matches('button.component')) return 'component';"
            "if (e.matches('.guide-fill')) return 'guide-fill';"
            "return e.id || e.tagName"
        )))
    return seen


def run(web: Any) -> str:
    return act(web, lambda: click(web, "#run-command"))


def acting_as(web: Any) -> str:
    return str(web.execute_script("return document.getElementById('acting-as').value"))


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-390", "desktop-1280"])
def test_a_guided_first_round(tmp_path: Path, sandbox_browser: Any, size: tuple[int, int]) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    web = sandbox_browser
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()  # ids to check what the page shows, never to act
        emulate(web, size)
        try:
            web.get(sb.url)
            wait(web, lambda: web.execute_script("return document.body.dataset.ready") == "1")
            # The first screen tells a newcomer what to do, with a button for it.
            wait(web, lambda: by_css(web, "#messages .guide-card .guide-fill"))
            assert "stats" in by_css(web, "#messages .guide-card")[0].text
            screen_is_sound(web, "first screen")
            shot(web, "first-screen", size)
            assert_accessible(web, "sandbox first screen")
            top = web.execute_script("return document.getElementById('topbar').offsetHeight")
            assert top <= 60, f"the top bar wraps: {top} px"

            assert "Ann" in guided(web)
            assert acting_as(web) == who["morgan"]
            assert "STR 5" in run(web)
            assert "Bob" in guided(web)
            run(web)
            guided(web)
            duel = run(web).split("Duel #")[1].split()[0]

            # A required field left empty is caught by the page, in plain words.
            Select(by_css(web, "#command-select")[0]).select_by_value("round open")
            assert by_css(web, "#opt-duel")[0].get_attribute("required") is not None
            assert "(required)" in by_css(web, "[data-option='duel'] label")[0].text
            click(web, "#run-command")
            status = by_css(web, "#action-status")[0]
            wait(web, lambda: status.get_attribute("data-state") == "error")
            assert "needs these required options: duel" in status.text and "[" not in status.text
            assert by_css(web, "#opt-duel")[0].get_attribute("aria-invalid") == "true"

            guided(web)
            assert "Round 1" in run(web)
            wait(web, lambda: "Duel #" in messages_text(web))
            screen_is_sound(web, "channel after /round open")
            shot(web, "channel-round-open", size)
            if size == PHONE:  # every phone width of issue 26, with the long commitment shown
                for width in (360, 430):
                    emulate(web, (width, 800))
                    screen_is_sound(web, f"channel after /round open at {width} px")
                emulate(web, size)
            assert_accessible(web, "sandbox channel")

            # Ann's DMs: the guide opens them with a move typed; Ann acts there.
            assert "Ann" in guided(web)
            wait(web, lambda: acting_as(web) == who["ann"])
            wait(web, lambda: by_css(web, "#messages button.component"))
            act(web, lambda: click(web, "#dm-send"))
            wait(web, lambda: "Evade" in messages_text(web))
            screen_is_sound(web, "Ann's DMs")

            # Bob's DMs: Bob acts there and clicks a move button.
            assert "Bob" in guided(web)
            wait(web, lambda: acting_as(web) == who["bob"])
            wait(web, lambda: by_css(web, "#messages button.component"))
            screen_is_sound(web, "Bob's DMs")
            shot(web, "dm-buttons", size)
            assert_accessible(web, "sandbox DMs")
            strike = "#messages button.component[data-custom-id$=':full_frontal_strike']"
            # By keyboard alone: Tab reaches every kind of control; Enter presses the move.
            reached = tab_through(web)
            wanted = {"acting-as", "guide-fill", "dm-input", "dm-send", "command-select",
                      "run-command", "component", "messages"}
            wanted |= {"menu-button"} if size == PHONE else {"channel-link", "dm-link"}
            assert wanted <= reached, wanted - reached
            by_css(web, strike)[0].send_keys(Keys.ENTER)  # focuses it on the way
            status = by_css(web, "#action-status")[0]
            wait(web, lambda: "Full Frontal Strike" in status.text, timeout=30)

            # The close: back in the channel, acting as the commander again.
            assert "/round close" in guided(web)
            wait(web, lambda: acting_as(web) == who["morgan"])
            assert "Morgan" in by_css(web, "#view-note .acting-now")[0].text
            run(web)
            wait(web, lambda: "Full Frontal Strike" in messages_text(web))
            screen_is_sound(web, "channel after /round close")
            shot(web, "channel-result", size)

            # The export is a link; the HTML opens (in a new tab) as the archive page.
            Select(by_css(web, "#command-select")[0]).select_by_value("duel export")
            by_css(web, "#opt-duel")[0].send_keys(duel)
            Select(by_css(web, "#opt-format")[0]).select_by_value("html")
            run(web)
            wait(web, lambda: by_css(web, "#messages a.attachment"))
            link = by_css(web, "#messages a.attachment")[-1]
            assert link.get_attribute("target") == "_blank"
            href = str(link.get_attribute("href"))
            with urllib.request.urlopen(href, timeout=10) as answer:
                assert answer.headers.get_content_type() == "text/html"
                assert answer.headers["Content-Disposition"].startswith("inline")
                assert b"<html" in answer.read(4096).lower()
            screen_is_sound(web, "channel after the export")
            shot(web, "channel-export", size)
            main = web.current_window_handle
            link.click()
            wait(web, lambda: len(web.window_handles) == 2)
            web.switch_to.window(next(h for h in web.window_handles if h != main))
            wait(web, lambda: f"#{duel}" in web.title or "Duel" in web.title)
            web.close()
            web.switch_to.window(main)

            # A reader who scrolled up stays where they are when someone else posts.
            web.execute_script("document.getElementById('messages').scrollTop = 0")
            count = int(by_css(web, "#messages")[0].get_attribute("data-count"))
            sb.slash(who["morgan"], "round open", sb.world()["duel_channel_id"], duel=duel)
            wait(web, lambda: int(by_css(web, "#messages")[0].get_attribute("data-count")) > count)
            assert web.execute_script("return document.getElementById('messages').scrollTop") < 5

            # Buttons are drawn as the message's components say (disabled only if the bot
            # disabled them: it does not edit its prompts when a round closes).
            web.execute_script(
                "document.querySelector(arguments[0]).click()",
                f"#dm-list a[data-dm-user-id='{who['bob']}']",
            )
            wait(web, lambda: acting_as(web) == who["bob"])
            wait(web, lambda: by_css(web, "#messages button.component"))

            def drawn_as_said() -> bool:
                said = {
                    (m["id"], c.get("custom_id")): bool(c.get("disabled"))
                    for m in sb.ok("GET", f"/api/people/{who['bob']}/dms")["messages"]
                    for row in m.get("components") or []
                    for c in row.get("components") or []
                }
                drawn = web.execute_script(
                    "return [...document.querySelectorAll('#messages button.component')]"
                    ".map(b => [b.dataset.messageId, b.dataset.customId, b.disabled])"
                )
                return bool(drawn) and all(said.get((m, c)) == d for m, c, d in drawn)

            wait(web, drawn_as_said)

            if size == PHONE:
                # The drawer, by keyboard: open, a channel link has focus, Escape closes.
                menu = by_css(web, "#menu-button")[0]
                assert menu.is_displayed() and not by_css(web, "#sidebar a")[0].is_displayed()
                menu.send_keys(Keys.ENTER)
                wait(web, lambda: menu.get_attribute("aria-expanded") == "true")
                focused = web.switch_to.active_element
                assert focused.get_attribute("data-dm-user-id") or focused.get_attribute(
                    "data-channel-id"
                )
                assert "run-command" not in tab_through(web, 20), "Tab left the open drawer"
                screen_is_sound(web, "drawer")
                shot(web, "drawer", size)
                assert_accessible(web, "sandbox drawer")
                web.switch_to.active_element.send_keys(Keys.ESCAPE)
                wait(web, lambda: menu.get_attribute("aria-expanded") == "false")
        finally:
            web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        status_code, _ = sb.stop(signal.SIGINT, timeout=20)
        assert status_code == 0
