"""What a By This Axe and a FoEQ player now read (issue 24, "Why"), through the real
discord.py client and the fake Discord: each ruleset's own words in every post, DM, receipt,
reply and export; By This Axe's forfeit choice is a step of its round, named alike in the
post and the DM, closing by itself; a side it did not ask shows its allotment; FoEQ's moves
are acknowledged for a step; no "Locked in combat", no outcome code, no settings code; the
`/round open` reply promises move buttons only to whose prompt has them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.config import LimitSettings
from bot.db.engine import Database
from tests.discord.harness import World, running_world
from tests.discord.test_foeq_duel import ANN, BOB, choice, duel_state, titled, wait_dm
from tests.discord.test_house_rules import duel_number, exports, start
from tests.fakediscord import FakeDiscord
from tests.presentation.words_check import assert_speaks_its_own

BTA = "by-this-axe"
FOEQ = "foeq-spell-duel"


def text_of(message: Any) -> str:
    """What a message shows a person: its content and each embed's title, description,
    fields and footer (the same text the Discord client renders)."""
    parts = [getattr(message, "content", "") or ""]
    for embed in getattr(message, "embeds", []) or []:
        parts += [str(embed.get("title", "")), str(embed.get("description", ""))]
        for f in embed.get("fields", []):
            parts += [str(f.get("name", "")), str(f.get("value", ""))]
        parts.append(str((embed.get("footer") or {}).get("text", "")))
    return "\n".join(parts)


def everything_shown(w: World) -> dict[str, str]:
    """Every channel post and DM of the world, by where it was shown."""
    texts = {f"post {i}": text_of(m) for i, m in enumerate(w.fake.messages_in(w.channel_id))}
    for user in (w.ann, w.bob):
        for i, m in enumerate(w.fake.dms_to(user.id)):
            texts[f"DM {user.id} {i}"] = text_of(m)
    return texts


async def wait_for(w: World, found: Any, what: str) -> Any:
    for _ in range(300):
        value = found()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"never saw {what}: {list(everything_shown(w).values())[-4:]}")


async def test_by_this_axe_forfeit_choice_in_its_own_words(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member in (w.ann, w.bob):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=BTA,
                          fields="character=champion armor_save=2 wounds=20")
        duel_id = duel_number(await start(w, BTA, "forfeit=victim-chooses"))
        users = {"a": w.ann.id, "b": w.bob.id}
        replies: dict[str, str] = {}
        halted: dict[str, Any] | None = None
        for combat_round in range(1, 13):  # a trick works 1 time in 3 for each side
            seen = {u: len(fake.dms_to(u)) for u in users.values()}
            opened = await w.slash(w.commander, "round", "open", duel=duel_id)
            replies[f"/round open {combat_round}"] = opened.content
            # A champion has too many allotments for buttons: none are promised.
            assert "buttons" not in opened.content, opened.content
            assert "to answer with the allotment as text" in opened.content, opened.content
            for user in users.values():
                await fake.wait_for_dms(user, seen[user] + 1, timeout=15)
                await fake.send_dm(user, "a5 p6 t1")
                await fake.wait_for_dms(user, seen[user] + 2, timeout=15)
            closed = await w.slash(w.commander, "round", "close", duel=duel_id)
            replies[f"/round close {combat_round}"] = closed.content
            _, state = await duel_state(database, duel_id)
            if state.get("pending"):
                halted = state
                break
        assert halted is not None, "no dirty trick worked in 12 rounds"
        label = f"round {combat_round}, forfeit choice"
        victims = halted["pending"]["victims"]
        # The step's post and each victim's DM name it alike: a step of its round.
        post = await wait_for(
            w,
            lambda: [m for m in fake.messages_in(w.channel_id) if f"{label} is open" in text_of(m)],
            "the forfeit choice's post",
        )
        shown = text_of(post[-1])
        assert f"Duel #{duel_id}, {label} is open" in shown, shown
        assert "the step closes by itself" in shown and "commander closes" not in shown, shown
        for side in victims:
            prompt = await wait_for(
                w,
                lambda side=side: [
                    m for m in fake.dms_to(users[side]) if f"{label}: your choice" in text_of(m)
                ],
                "the victim's prompt",
            )
            assert "commander closes" not in text_of(prompt[-1]), text_of(prompt[-1])
        for side in victims:
            before = len(fake.dms_to(users[side]))
            await fake.send_dm(users[side], f"#{duel_id} attack")
            receipt = (await fake.wait_for_dms(users[side], before + 1, timeout=15))[-1]
            assert f"Choice received: **Forfeit 2 attack dice** for duel #{duel_id}, {label}" in (
                receipt.content
            ), receipt.content
            assert "commander closes" not in receipt.content, receipt.content
        # The step's result: a side it did not ask shows the allotment it made.
        result = await wait_for(
            w,
            lambda: [
                m for m in fake.messages_in(w.channel_id)
                if f"Duel #{duel_id}, {label}: " in text_of(m)
            ],
            "the forfeit choice's result",
        )
        shown = text_of(result[-1])
        assert "no allotment" not in shown, shown
        for side in ("a", "b"):
            if side not in victims:
                assert "Attack 5, Parry 6, Trick 1 (allotted before the forfeit choice)" in (
                    shown
                ), shown
        status_reply = text_of(await w.slash(w.commander, "duel", "status", duel=duel_id))
        files = await exports(w, duel_id)
        assert f"## {label[0].upper()}{label[1:]}" in files["markdown"], files["markdown"]
        texts = {
            **everything_shown(w),
            **replies,
            "/duel status": status_reply,
            "markdown": files["markdown"],
            "bbcode": files["bbcode"],
        }
        assert_speaks_its_own(texts, BTA)


async def play_typed(w: World, database: Database, duel_id: int) -> None:
    """Every FoEQ step answered by DM text (so every receipt is a DM), until the end."""
    users = {"a": w.ann.id, "b": w.bob.id}
    for step in range(1, 20):
        status, state = await duel_state(database, duel_id)
        if status != "live":
            return
        for side in state["awaiting"]:
            await wait_dm(w.fake, users[side], titled(f"step {step}: your choice"))
        for side in state["awaiting"]:
            seen = len(w.fake.dms_to(users[side]))
            await w.fake.send_dm(users[side], f"#{duel_id} {choice(state, side)[1]}")
            receipt = await wait_dm(w.fake, users[side], lambda m: True, after=seen)
            assert "received" in receipt.content, receipt.content
    raise AssertionError("the duel did not end in 19 steps")


async def test_foeq_in_its_own_words(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member, fields in ((w.ann, ANN), (w.bob, BOB)):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=FOEQ,
                          fields=fields)
        duel_id = duel_number(await start(w, FOEQ, "public_stake=pride challenger=a"))
        card = text_of((await fake.wait_for_messages(w.channel_id, 1, timeout=15))[0])
        assert "Public stake: pride; Challenger: duellist A" in card, card
        assert "public_stake" not in card and "\\_" not in card, card
        opened = (await w.slash(w.commander, "round", "open", duel=duel_id)).content
        assert opened.startswith(f"Step 1 of duel #{duel_id} is open"), opened
        # Ann has too many setups for buttons (her spell slots): she is not promised any.
        assert "ann is being sent a prompt by DM, to answer with the declaration as text" in (
            opened
        ), opened
        assert "bob is being sent their declaration buttons by DM" in opened, opened
        assert "Both duellists are being sent their move buttons" not in opened, opened
        await play_typed(w, database, duel_id)
        texts = everything_shown(w)
        receipts = [t for t in texts.values() if t.startswith("Declaration received")]
        assert receipts and all(f"for duel #{duel_id}, step " in r for r in receipts), receipts
        assert any("the step has closed" in r for r in receipts), receipts
        for text in texts.values():
            assert "a commander closes" not in text, text
            assert "Locked in combat" not in text, text
        steps = [t for t in texts.values() if f"Duel #{duel_id}, step " in t and " is open" in t]
        assert len(steps) >= 7 and all("closes by itself" in t for t in steps), steps[:2]
        status_reply = text_of(await w.slash(w.commander, "duel", "status", duel=duel_id))
        files = await exports(w, duel_id)
        assert "## Step 1\n" in files["markdown"], files["markdown"][:800]
        document = json.loads(files["json"])
        assert document["end_reason"].startswith("step "), document["end_reason"]
        assert document["end_reason"].endswith(": ann wins the duel"), document["end_reason"]
        assert_speaks_its_own(
            {
                **texts,
                "/round open": opened,
                "/duel status": status_reply,
                "markdown": files["markdown"],
                "bbcode": files["bbcode"],
                "end reason": document["end_reason"],
            },
            FOEQ,
        )
