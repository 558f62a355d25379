"""The sandbox page on a phone (390 px) and a desktop (1280 px), used as a person would
(issue 26): only the page's own buttons, form and DM box, guided by its "next step" button
through a whole rule 2.14 duel (rounds until it ends, then `/duel export` as a web page and
the archive page opened from its link), then one By This Axe round and one FoEQ step. After
every step: no sideways scrolling, the newest message in view, touch targets of 44 px; on
every screen, axe-core with no serious or critical violation in light and dark mode; a
closed round's prompt buttons drawn disabled (the bot edits them). Screenshots of both
widths go to the artifacts dir (tests/artifacts or $DUELBOT_ARTIFACTS)."""

from __future__ import annotations

import contextlib
import json
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException

from tests.archive.axe import assert_accessible
from tests.archive.browser import DESKTOP, PHONE, artifacts_dir
from tests.sandbox.support import Sandbox, running_sandbox
from tests.sandbox.test_sandbox_browser import (
    act,
    by_css,
    click,
    messages_text,
    open_view,
    run_command,
    wait,
)

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
    assert gap() <= 2, f"{where}: the newest message is {gap()} px below the view " + str(
        web.execute_script(
            "const b = document.getElementById('messages');"
            "return [state.stuck, b.scrollTop, b.scrollHeight, b.clientHeight, b.dataset.count]"
        )
    )
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


#: FoEQ sheets with which every phase is reached whatever the dice (tests/discord/test_foeq_duel).
FOEQ_ANN = (
    "initiative=2 spell_attack=40 arcana=40 hp_max=20 hit_dice=3 spell_slots=2,1 "
    "schools=illusion"
)
FOEQ_BOB = "spell_attack=-20 deception=-20 hp_max=12 hit_dice=2"


def message_count(web: Any) -> int:
    return int(by_css(web, "#messages")[0].get_attribute("data-count") or 0)


def round_buttons(web: Any, duel: str, round_no: int) -> list[bool]:
    """The disabled state of every move button drawn for that round of that duel."""
    return list(web.execute_script(
        "return [...document.querySelectorAll('#messages button.component')]"
        ".filter(b => b.dataset.customId.startsWith(arguments[0]))"
        ".map(b => b.disabled)",
        f"duelbot:move:{duel}:{round_no}:",
    ))


def as_commander_in(web: Any, who: dict[str, str], channel: str) -> None:
    """The duel channel, acting as the commander (the page's own channel link and picker)."""
    from selenium.webdriver.support.ui import Select

    open_view(web, f"#channel-list a[data-channel-id='{channel}']")
    Select(by_css(web, "#acting-as")[0]).select_by_value(who["morgan"])
    wait(web, lambda: acting_as(web) == who["morgan"])


def dm(web: Any, who: dict[str, str], name: str, text: str, answer: str) -> None:
    """Open ``name``'s DMs with the bot, type ``text``, send; wait for the bot's ``answer``."""
    open_view(web, f"#dm-list a[data-dm-user-id='{who[name]}']")
    wait(web, lambda: acting_as(web) == who[name])
    field = by_css(web, "#dm-input")[0]
    field.clear()
    field.send_keys(text)
    act(web, lambda: click(web, "#dm-send"))
    wait(web, lambda: answer in messages_text(web), timeout=30)


#: Result heights on a phone (issue 26): rule 2.14 at most 700 px, a step of the others 900.
RULE_2_14_MAX_PX, STEP_MAX_PX = 700, 900


def result_height(web: Any, duel: str) -> float:
    """The height of the newest result message of ``duel`` drawn in the view (its embed's
    title "Duel #N, round|step K: A vs B"), or -1 when none is."""
    return float(web.execute_script(
        "const re = new RegExp('^Duel #' + arguments[0] + ', (round|step) \\\\d+: ');"
        "const found = [...document.querySelectorAll('#messages .message')].filter(m =>"
        " [...m.querySelectorAll('.embed-title')].some(t => re.test(t.textContent)));"
        "return found.length ? found[found.length - 1].getBoundingClientRect().height : -1;",
        duel,
    ))


def result_fits(web: Any, duel: str, limit: float, size: tuple[int, int]) -> None:
    """On a phone, the newest result of ``duel`` is drawn within ``limit`` px."""
    wait(web, lambda: result_height(web, duel) > 0)
    if size == PHONE:
        height = result_height(web, duel)
        assert height <= limit, f"duel #{duel}'s result is {height:.0f} px tall (<= {limit})"


def prompts_closed(web: Any, who: dict[str, str], duel: str, round_no: int, where: str) -> None:
    """Bob's DMs draw the closed round's move buttons disabled, once the bot's edit landed."""
    open_view(web, f"#dm-list a[data-dm-user-id='{who['bob']}']")
    wait(web, lambda: acting_as(web) == who["bob"])
    wait(web, lambda: round_buttons(web, duel, round_no))
    wait(web, lambda: all(round_buttons(web, duel, round_no)), timeout=30)
    screen_is_sound(web, where)


def play_round(
    web: Any, who: dict[str, str], duel: str, round_no: int, size: tuple[int, int]
) -> str:
    """One round of the guided duel (open already); the commander's close reply."""
    from selenium.webdriver.common.keys import Keys

    first = round_no == 1
    # Ann's DMs: the guide opens them with a move typed; Ann acts there.
    assert "Ann" in guided(web)
    wait(web, lambda: acting_as(web) == who["ann"])
    wait(web, lambda: round_buttons(web, duel, round_no))
    if not first:
        field = by_css(web, "#dm-input")[0]
        field.clear()
        field.send_keys("retreat")
    act(web, lambda: click(web, "#dm-send"))
    wait(web, lambda: ("Evade" if first else "Retreat") in messages_text(web))
    screen_is_sound(web, f"Ann's DMs, round {round_no}")

    # Bob's DMs: Bob acts there and presses a move button.
    assert "Bob" in guided(web)
    wait(web, lambda: acting_as(web) == who["bob"])
    wait(web, lambda: round_buttons(web, duel, round_no))
    screen_is_sound(web, f"Bob's DMs, round {round_no}")
    move = "full_frontal_strike" if first else "retreat"
    button = f"#messages button.component[data-custom-id='duelbot:move:{duel}:{round_no}:{move}']"
    status = by_css(web, "#action-status")[0]
    if first:
        shot(web, "dm-buttons", size)
        assert_accessible(web, "sandbox DMs")
        # By keyboard alone: Tab reaches every kind of control; Enter presses the move.
        reached = tab_through(web)
        wanted = {"acting-as", "guide-fill", "dm-input", "dm-send", "command-select",
                  "run-command", "component", "messages"}
        wanted |= {"menu-button"} if size == PHONE else {"channel-link", "dm-link"}
        assert wanted <= reached, wanted - reached
        by_css(web, button)[0].send_keys(Keys.ENTER)  # focuses it on the way
        wait(web, lambda: "Full Frontal Strike" in status.text, timeout=30)
    else:
        assert "Retreat" in act(web, lambda: click(web, button))

    # The close: back in the channel, acting as the commander again.
    assert "/round close" in guided(web)
    wait(web, lambda: acting_as(web) == who["morgan"])
    assert "Morgan" in by_css(web, "#view-note .acting-now")[0].text
    before = message_count(web)
    closed = run(web)
    wait(web, lambda: message_count(web) > before)
    wait(web, lambda: ("Full Frontal Strike" if first else "Retreat") in messages_text(web))
    screen_is_sound(web, f"channel after round {round_no}'s close")
    result_fits(web, duel, RULE_2_14_MAX_PX, size)
    if first:
        shot(web, "channel-result", size)

    # The bot edits the closed round's prompts: their buttons are drawn disabled.
    prompts_closed(web, who, duel, round_no, f"Bob's DMs after round {round_no}")
    if first:
        shot(web, "dm-closed-round", size)
        assert_accessible(web, "sandbox DMs with a closed round")
    return closed


def whole_rule_2_14_duel(web: Any, who: dict[str, str], size: tuple[int, int]) -> str:
    """Guided from the first screen: stats, a duel, rounds until the duel ends. Round 1: Ann
    types Evade, Bob presses Full Frontal Strike by keyboard; later rounds both retreat, which
    ends a duel that is not locked (rule 2.14.1)."""
    from selenium.webdriver.support.ui import Select

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
    assert "needs this required option: duel" in status.text and "[" not in status.text
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

    for round_no in range(1, 4):
        closed = play_round(web, who, duel, round_no, size)
        if "duel is over" in closed:
            return duel
        assert "/round open" in guided(web)
        assert f"Round {round_no + 1}" in run(web)
    raise AssertionError("two retreats did not end the duel")


def export_and_archive(web: Any, duel: str, size: tuple[int, int]) -> None:
    """The guide's last step: the export as a web page; its link opens the archive page."""
    assert "/duel export" in guided(web)
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
    assert not by_css(web, ".guide-fill"), "the guide is done once the duel is exported"
    main = web.current_window_handle
    link.click()
    wait(web, lambda: len(web.window_handles) == 2)
    web.switch_to.window(next(h for h in web.window_handles if h != main))
    try:
        wait(web, lambda: f"#{duel}" in web.title)
        wait(web, lambda: "Ann" in web.execute_script("return document.body.innerText"))
        wide = web.execute_script(
            "return [document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
        )
        assert wide[0] <= wide[1], f"the archive page scrolls sideways {wide}"
        shot(web, "archive-page", size)
        assert_accessible(web, "the exported archive page")
    finally:
        web.close()
        web.switch_to.window(main)


def a_by_this_axe_round(web: Any, who: dict[str, str], channel: str, size: tuple[int, int]) -> None:
    """Sheets, a duel, one round: allotments typed in each DM, closed by the commander."""
    as_commander_in(web, who, channel)
    ruleset = "by-this-axe"
    assert "champion" in run_command(
        web, "sheet set", member=who["ann"], ruleset=ruleset,
        fields="character=champion armor_save=5 wounds=2",
    ).lower()
    hero = "character=hero wounds=1"
    run_command(web, "sheet set", member=who["bob"], ruleset=ruleset, fields=hero)
    started = run_command(
        web, "duel start", a=who["ann"], b=who["bob"], ruleset=ruleset,
        params="forfeit=parry-first",
    )
    duel = started.split("Duel #")[1].split()[0]
    assert "Round 1" in run_command(web, "round open", duel=duel)
    screen_is_sound(web, "By This Axe: round open")
    dm(web, who, "ann", "a5 p6 t1", "Attack 5")
    screen_is_sound(web, "By This Axe: Ann's DMs")
    shot(web, "axe-dm", size)
    assert_accessible(web, "By This Axe DMs")
    dm(web, who, "bob", f"#{duel} 2/2/0", "Attack 2, Parry 2")
    as_commander_in(web, who, channel)
    before = message_count(web)
    run_command(web, "round close", duel=duel)
    wait(web, lambda: message_count(web) > before)
    screen_is_sound(web, "By This Axe: the result")
    result_fits(web, duel, STEP_MAX_PX, size)
    shot(web, "axe-result", size)
    assert_accessible(web, "By This Axe result")
    # Ann and Bob have one live duel at a time here: DMs without "#N" stay unambiguous.
    run_command(web, "duel end", duel=duel, reason="one round shown")


def a_foeq_step(
    web: Any, sb: Sandbox, who: dict[str, str], channel: str, size: tuple[int, int]
) -> str:
    """Sheets, a duel, its first step (setup, both typed): it closes by itself once both
    have chosen, and the next step's prompt arrives."""
    as_commander_in(web, who, channel)
    ruleset = "foeq-spell-duel"
    run_command(web, "sheet set", member=who["ann"], ruleset=ruleset, fields=FOEQ_ANN)
    run_command(web, "sheet set", member=who["bob"], ruleset=ruleset, fields=FOEQ_BOB)
    started = run_command(
        web, "duel start", a=who["ann"], b=who["bob"], ruleset=ruleset,
        params="public_stake=pride challenger=a",
    )
    duel = started.split("Duel #")[1].split()[0]
    # FoEQ plays steps, and its /round open reply says so (issue 24).
    assert "Step 1" in run_command(web, "round open", duel=duel)
    open_view(web, f"#dm-list a[data-dm-user-id='{who['ann']}']")
    wait(web, lambda: "Setup: choose" in messages_text(web))
    dm(web, who, "ann", "pride quick level 1", "Pride")
    dm(web, who, "bob", "death quick cantrip", "Death")
    # Both chose: the step closes and the next opens with its own prompt, to the one who
    # declares first (the lower initiative: found by reading, then shown by the page).

    def declares_first() -> str | None:
        for name in ("ann", "bob"):
            dms = sb.ok("GET", f"/api/people/{who[name]}/dms")["messages"]
            if any("First Declaration" in json.dumps(m) for m in dms):
                return name
        return None

    first = wait(web, declares_first, timeout=30)
    open_view(web, f"#dm-list a[data-dm-user-id='{who[first]}']")
    wait(web, lambda: "First Declaration" in messages_text(web))
    # The edit that disables a closed step's buttons follows its close by a second.
    wait(web, lambda: all(round_buttons(web, duel, 1)), timeout=30)
    screen_is_sound(web, "FoEQ: the next step's prompt")
    shot(web, "foeq-dm", size)
    assert_accessible(web, "FoEQ DMs")
    as_commander_in(web, who, channel)
    wait(web, lambda: f"#{duel}" in messages_text(web))
    screen_is_sound(web, "FoEQ: the channel after the first step")
    result_fits(web, duel, STEP_MAX_PX, size)
    return duel


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone-390", "desktop-1280"])
def test_a_whole_guided_duel_then_a_round_of_each_ruleset(
    tmp_path: Path, sandbox_browser: Any, size: tuple[int, int]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    web = sandbox_browser
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()  # ids to check what the page shows, never to act
        channel = str(sb.world()["duel_channel_id"])
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

            duel = whole_rule_2_14_duel(web, who, size)
            export_and_archive(web, duel, size)
            a_by_this_axe_round(web, who, channel, size)
            foeq = a_foeq_step(web, sb, who, channel, size)

            # A reader who scrolled up stays where they are when someone else posts.
            web.execute_script("document.getElementById('messages').scrollTop = 0")
            count = message_count(web)
            sb.slash(who["morgan"], "duel end", channel, duel=foeq, reason="shown enough")
            wait(web, lambda: message_count(web) > count)
            assert web.execute_script("return document.getElementById('messages').scrollTop") < 5

            # Buttons are drawn as the message's components say: the bot disabled those of
            # every closed round (and of the FoEQ step the end cancelled).
            drawn_as_said(web, sb, who["bob"])

            if size == PHONE:
                # The drawer, by keyboard: open, a channel link has focus, Escape closes.
                menu = by_css(web, "#menu-button")[0]
                # The sidebar's links are redrawn when a post arrives: a link found may be
                # replaced before it is read, so it is found again then.
                def link_shown() -> bool:
                    for _ in range(5):
                        try:
                            return bool(by_css(web, "#sidebar a")[0].is_displayed())
                        except StaleElementReferenceException:
                            continue
                    raise AssertionError("the sidebar kept being redrawn")

                assert menu.is_displayed() and not link_shown()
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
                # A post that redraws the sidebar keeps the keyboard user's place in it.
                before = web.execute_script(
                    "const a = document.activeElement;"
                    " return a.dataset.channelId || a.dataset.dmUserId || null")
                web.execute_script("renderSidebar()")
                after = web.execute_script(
                    "const a = document.activeElement;"
                    " if (!a.closest('#sidebar')) return null;"
                    " return a.dataset.channelId || a.dataset.dmUserId")
                assert before and after == before, (before, after)
                # Escape goes to whatever has focus, as a keyboard's key does.
                ActionChains(web).send_keys(Keys.ESCAPE).perform()
                wait(web, lambda: menu.get_attribute("aria-expanded") == "false")
        finally:
            web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        status_code, _ = sb.stop(signal.SIGINT, timeout=20)
        assert status_code == 0


def drawn_as_said(web: Any, sb: Sandbox, user_id: str) -> None:
    """Every button drawn in the user's DMs is enabled or disabled as the stand-in's stored
    message says (read-only API), and some are disabled."""
    open_view(web, f"#dm-list a[data-dm-user-id='{user_id}']")
    wait(web, lambda: acting_as(web) == user_id)
    wait(web, lambda: by_css(web, "#messages button.component"))

    def check() -> bool:
        said = {
            (m["id"], c.get("custom_id")): bool(c.get("disabled"))
            for m in sb.ok("GET", f"/api/people/{user_id}/dms")["messages"]
            for row in m.get("components") or []
            for c in row.get("components") or []
        }
        drawn = web.execute_script(
            "return [...document.querySelectorAll('#messages button.component')]"
            ".map(b => [b.dataset.messageId, b.dataset.customId, b.disabled])"
        )
        return (
            bool(drawn)
            and any(d for _, _, d in drawn)
            and all(said.get((m, c)) == d for m, c, d in drawn)
        )

    wait(web, check)
