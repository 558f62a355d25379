"""A round result a player reads at a glance (issue 26): on a phone (390 px) the sandbox page
shows a rule 2.14 result in at most 700 px and a By This Axe or FoEQ step result in at most
900 px. The duels are set up and played through the sandbox's JSON API (the walkthrough as a
person is tests/sandbox/test_sandbox_phone.py); the page then shows the channel and every
result message is measured. Screenshots of the tallest result of each ruleset go to the
artifacts dir."""

from __future__ import annotations

import base64
import re
import time
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.archive.browser import PHONE, artifacts_dir
from tests.sandbox.support import Sandbox, running_sandbox, wait_until
from tests.sandbox.test_sandbox_browser import open_view, wait
from tests.sandbox.test_sandbox_phone import emulate

pytestmark = pytest.mark.browser

#: The most a result may take on a 390 px wide phone (issue 26).
RULE_2_14_MAX_PX = 700
STEP_MAX_PX = 900

#: A result's embed title: "Duel #N, round R: ..." (an opening says "round R is open").
RESULT_TITLE = re.compile(r"^Duel #(\d+), (?:round|step) \d+: ")


def _channel(sb: Sandbox, channel_id: str) -> list[dict[str, Any]]:
    return list(sb.ok("GET", f"/api/channels/{channel_id}/messages?as=")["messages"])


def _results(sb: Sandbox, channel_id: str, duel_id: str) -> list[dict[str, Any]]:
    found = []
    for message in _channel(sb, channel_id):
        for embed in message.get("embeds") or []:
            match = RESULT_TITLE.match(embed.get("title") or "")
            if match and match.group(1) == duel_id:
                found.append(message)
                break
    return found


def _wait_results(sb: Sandbox, channel: str, duel_id: str, count: int) -> None:
    wait_until(
        lambda: len(_results(sb, channel, duel_id)) >= count, 60, f"result {count} of {duel_id}"
    )


def _start(
    sb: Sandbox, channel: str, ruleset: str, sheets: dict[str, str], params: str = ""
) -> str:
    who = sb.people()
    cmdr = who["morgan"]
    for user, fields in sheets.items():
        reply = sb.slash(cmdr, "sheet set", channel, member=who[user], ruleset=ruleset,
                         fields=fields)["reply"]
        assert "Sheet saved" in reply["content"], reply
    options: dict[str, Any] = {"a": who["ann"], "b": who["bob"], "ruleset": ruleset}
    if params:
        options["params"] = params
    started = sb.slash(cmdr, "duel start", channel, **options)["reply"]["content"]
    assert "Duel #" in started, started
    return str(started.split("Duel #")[1].split()[0])


def _move(sb: Sandbox, channel: str, user: str, duel_id: str, move: str) -> str:
    """``/move`` for ``user``; waits out the per-user move limit when it answers so."""
    for _ in range(10):
        reply = sb.slash(user, "move", channel, duel=duel_id, move=move)["reply"]
        text = str(reply["content"] or "") + str(reply.get("embeds") or "")
        if "received" in text or "changed" in text:
            return text
        if "too many" in text.lower() or "wait" in text.lower():
            time.sleep(2.2)
            continue
        raise AssertionError(f"/move {move!r} refused: {text}")
    raise AssertionError(f"/move {move!r} kept being limited")


def _rule_2_14(sb: Sandbox, channel: str) -> str:
    """The longest rule 2.14 result: Full Frontal Strike against Evade rolls twice."""
    who = sb.people()
    cmdr = who["morgan"]
    sb.slash(cmdr, "stats set", channel, member=who["ann"], str=5, agi=3)
    sb.slash(cmdr, "stats set", channel, member=who["bob"], str=4, agi=2)
    duel = sb.slash(cmdr, "duel start", channel, a=who["ann"], b=who["bob"])["reply"]["content"]
    duel_id = str(duel.split("Duel #")[1].split()[0])
    for round_no in range(1, 4):
        opened = sb.slash(cmdr, "round open", channel, duel=duel_id)["reply"]["content"]
        if f"Round {round_no}" not in opened:
            break  # the duel has ended
        _move(sb, channel, who["ann"], duel_id, "ffs")
        _move(sb, channel, who["bob"], duel_id, "evade")
        sb.slash(cmdr, "round close", channel, duel=duel_id)
        _wait_results(sb, channel, duel_id, round_no)
    return duel_id


def _by_this_axe(sb: Sandbox, channel: str) -> str:
    """A champion's allotments against a hero's: many dice, a long log."""
    who = sb.people()
    cmdr = who["morgan"]
    duel_id = _start(sb, channel, "by-this-axe", {
        "ann": "character=champion armor_save=5 wounds=2", "bob": "character=hero wounds=2",
    }, "forfeit=parry-first")
    for round_no in range(1, 4):
        opened = sb.slash(cmdr, "round open", channel, duel=duel_id)["reply"]["content"]
        if f"Round {round_no}" not in opened:
            break  # the duel has ended
        _move(sb, channel, who["ann"], duel_id, "a6 p4 t1")
        _move(sb, channel, who["bob"], duel_id, "2/2/0")
        sb.slash(cmdr, "round close", channel, duel=duel_id)
        _wait_results(sb, channel, duel_id, round_no)
    return duel_id


#: FoEQ: (what the prompt asks, the answer). Ann cannot lose a check nor the Shot
#: (tests/discord/test_foeq_duel.py), so every phase is reached whatever the dice.
FOEQ_ANN = (
    "initiative=2 spell_attack=40 arcana=40 hp_max=20 hit_dice=3 spell_slots=2,1 "
    "schools=illusion"
)
FOEQ_BOB = "spell_attack=-20 deception=-20 hp_max=12 hit_dice=2"
FOEQ_ANSWERS = (
    ("Setup: choose your true stake", {"a": "pride quick level 1", "b": "death quick cantrip"}),
    ("First Declaration", {"a": "sage", "b": "bluff"}),
    ("Second Declaration", {"a": "sage", "b": "bluff"}),
    ("you may change your Style", {"a": "keep", "b": "keep"}),
    ("Strategic Twist", {"a": "reroll trick 1", "b": "reroll trick 1"}),
    ("The Score", {"a": "illusion", "b": "illusion"}),
)


def _dm_texts(sb: Sandbox, user: str) -> list[str]:
    messages = sb.ok("GET", f"/api/people/{user}/dms")["messages"]
    return [str(m.get("content")) + str(m.get("embeds")) for m in messages]


def _prompts(sb: Sandbox, users: dict[str, str], asked: str) -> dict[str, str] | None:
    """Side -> the prompt asking for this step, among each duellist's newest DMs."""
    found = {s: t for s, u in users.items() for t in _dm_texts(sb, u)[-3:] if asked in t}
    return found or None


def _foeq(sb: Sandbox, channel: str) -> str:
    """Every step of a FoEQ duel, each awaited duellist answering the prompt it was sent."""
    who = sb.people()
    cmdr = who["morgan"]
    duel_id = _start(sb, channel, "foeq-spell-duel", {"ann": FOEQ_ANN, "bob": FOEQ_BOB},
                     "public_stake=pride challenger=a")
    sb.slash(cmdr, "round open", channel, duel=duel_id)
    users = {"a": who["ann"], "b": who["bob"]}
    for step in range(1, 20):
        try:
            prompts = wait_until(
                partial(_prompts, sb, users, f"step {step}: your choice"), 8,
                f"FoEQ step {step}'s prompts",
            )
        except TimeoutError:
            break  # the duel has ended: no step is asked for
        for side, prompt in prompts.items():
            answer = next(a[side] for words, a in FOEQ_ANSWERS if words in prompt)
            _move(sb, channel, users[side], duel_id, answer)
        _wait_results(sb, channel, duel_id, step)
    assert step > 6, "the FoEQ duel ended before its Shot and Score"
    return duel_id


#: The page's message element of the message id given as the script's first argument.
MESSAGE = "`#messages .message[data-message-id='${arguments[0]}']`"


def _heights(web: Any, message_ids: list[str]) -> dict[str, float]:
    return {
        mid: float(web.execute_script(
            f"const m = document.querySelector({MESSAGE});"
            "if (!m) return -1; m.scrollIntoView({block: 'start'});"
            "return m.getBoundingClientRect().height", mid))
        for mid in message_ids
    }


def _shot(web: Any, message_id: str, name: str) -> None:
    """The whole message, on a phone as wide as 390 px and tall enough to show all of it."""
    emulate(web, (PHONE[0], 2000))
    try:
        rect = web.execute_script(
            f"const m = document.querySelector({MESSAGE});"
            "m.scrollIntoView({block: 'start'}); const r = m.getBoundingClientRect();"
            "return [r.x, r.y, r.width, r.height]", message_id)
        clip = dict(zip(("x", "y", "width", "height"), rect, strict=True), scale=1)
        data = web.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "clip": clip})
        path = artifacts_dir() / f"sandbox-result-{name}-390.png"
        path.write_bytes(base64.b64decode(data["data"]))
    finally:
        emulate(web, PHONE)


def _kind(message: dict[str, Any]) -> str:
    embeds = message.get("embeds") or [{}]
    title = str(embeds[0].get("title") or "")
    if "is open" in title:
        return "opening"
    if "your move" in title or "your choice" in title:
        return "prompt"
    if RESULT_TITLE.match(title):
        return "result"
    return "card" if " vs " in title else "other"


def _other_posts(web: Any, sb: Sandbox, channel: str) -> dict[str, list[int]]:
    """Heights of the cards and openings in the channel and the prompts in Ann's DMs; a
    screenshot of the tallest of each kind."""
    seen: dict[str, dict[str, float]] = {}
    ann = sb.people()["ann"]
    views = (
        (f"#channel-list a[data-channel-id='{channel}']", _channel(sb, channel)),
        (f"#dm-list a[data-dm-user-id='{ann}']",
         list(sb.ok("GET", f"/api/people/{ann}/dms")["messages"])),
    )
    for link, messages in views:
        open_view(web, link)
        for message in messages:
            kind = _kind(message)
            if kind in ("card", "opening", "prompt"):
                seen.setdefault(kind, {}).update(_heights(web, [str(message["id"])]))
    for kind, heights in seen.items():
        tallest = max(heights, key=heights.__getitem__)
        if kind == "prompt":
            open_view(web, views[1][0])
        else:
            open_view(web, views[0][0])
        _shot(web, tallest, kind)
    return {kind: sorted(round(h) for h in hs.values()) for kind, hs in seen.items()}


def test_results_fit_a_phone(tmp_path: Path, sandbox_browser: Any) -> None:
    web = sandbox_browser
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        channel = sb.world()["duel_channel_id"]
        duels = {
            "rule-2.14": (_rule_2_14(sb, channel), RULE_2_14_MAX_PX),
            "by-this-axe": (_by_this_axe(sb, channel), STEP_MAX_PX),
            "foeq-spell-duel": (_foeq(sb, channel), STEP_MAX_PX),
        }
        emulate(web, PHONE)
        try:
            web.get(sb.url)
            wait(web, lambda: web.execute_script("return document.body.dataset.ready") == "1")
            open_view(web, f"#channel-list a[data-channel-id='{channel}']")
            measured: dict[str, dict[str, float]] = {}
            for ruleset, (duel_id, _) in duels.items():
                ids = [str(m["id"]) for m in _results(sb, channel, duel_id)]
                assert ids, f"no {ruleset} result in the channel"
                wait(web, lambda ids=ids: min(_heights(web, ids).values()) > 0)
                measured[ruleset] = _heights(web, ids)
                tallest = max(measured[ruleset], key=measured[ruleset].__getitem__)
                _shot(web, tallest, ruleset)
            report = {r: sorted(round(h) for h in hs.values()) for r, hs in measured.items()}
            print("result heights at 390 px:", report)
            for ruleset, (_, limit) in duels.items():
                assert max(measured[ruleset].values()) <= limit, (ruleset, limit, report)
            others = _other_posts(web, sb, channel)
            print("other heights at 390 px:", others)
        finally:
            web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
