"""A whole FoEQ spell duel through the real discord.py client and the fake Discord: sheets
by /sheet set, /duel start with the ruleset and its params, one /round open, then every step
by DM (typed, or by button) to the awaited duellist only, each step opening the next;
private notes by DM only; stored, exported as JSON, every roll re-derivable from the
revealed seeds (bot.rules.dice.derive_roll)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import select

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import Duel
from bot.presentation.discord_result import short_hex
from bot.rules.dice import derive_roll
from bot.rules.foeq.tables import RULESET_ID as FOEQ
from tests.discord.harness import World, running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage

# Ann cannot lose a Sage Advice check nor the Shot (see tests/services/test_foeq_flow.py):
# every phase is reached whatever the dice.
ANN = "initiative=2 spell_attack=40 arcana=40 hp_max=20 hit_dice=3 spell_slots=2,1 schools=illusion"
BOB = "spell_attack=-20 deception=-20 hp_max=12 hit_dice=2"

#: (what the prompt says, what the duellist answers: a canonical id to click when it is a
#: button, else text to type)
PROMPTS = {
    "setup": "Setup: choose your true stake, style and slot",
    "stare_first": "First Declaration",
    "stare_second": "Second Declaration",
    "stare_style": "you may change your Style",
    "shot_twist": "Strategic Twist",
    "score_choice": "The Score",
}


def choice(state: dict[str, Any], side: str) -> tuple[str, str]:
    """(canonical id, text) of what the side chooses now."""
    phase = state["phase"]
    if phase == "setup":
        if side == "a":
            return "stake=pride;style=quick;slot=1", "pride quick level 1"
        return "stake=death;style=quick;slot=0", "death quick cantrip"
    if phase in ("stare_first", "stare_second"):
        return ("sage_advice", "sage") if side == "a" else ("bluff", "bluff")
    if phase == "stare_style":
        if state["stare_round"] == 1:
            return "style=overwhelming", "change to overwhelming"
        return "keep", "keep"
    if phase == "shot_twist":
        return "reroll:trick:1", "reroll trick 1"
    if phase == "score_choice":
        return "illusion", "illusion"
    raise AssertionError(phase)


async def wait_dm(
    fake: FakeDiscord, user_id: int, wanted: Callable[[FakeMessage], bool], after: int = 0
) -> FakeMessage:
    for _ in range(300):
        for message in fake.dms_to(user_id)[after:]:
            if wanted(message):
                return message
        await asyncio.sleep(0.05)
    raise AssertionError(f"no such DM to {user_id}: {[all_text(m) for m in fake.dms_to(user_id)]}")


def titled(text: str) -> Callable[[FakeMessage], bool]:
    return lambda message: text in all_text(message)


async def duel_state(database: Database, duel_id: int) -> tuple[str, dict[str, Any]]:
    async with database.transaction() as s:
        duel = (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()
        return duel.status, dict(duel.state)


async def test_a_whole_foeq_duel_through_discord(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    # The test plays every step at machine speed, far above the per-user move limit.
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member, fields in ((w.ann, ANN), (w.bob, BOB)):
            reply = await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset=FOEQ, fields=fields
            )
            assert "Sheet saved" in reply.content and FOEQ in reply.content
        reply = await w.slash(
            w.commander,
            "duel",
            "start",
            a=w.ann.id,
            b=w.bob.id,
            ruleset=FOEQ,
            params="public_stake=pride challenger=a",
        )
        assert "Duel #" in reply.content, reply.content
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        reply = await w.slash(w.commander, "round", "open", duel=duel_id)
        assert "Step 1" in reply.content

        clicked = await play(w, database, duel_id)
        assert clicked > 0  # some steps by button, the others typed

        status, state = await duel_state(database, duel_id)
        assert status == "ended" and state["winner"] == "a"
        history = await w.services.duels.history(duel_id)
        final = history.rounds[-1]
        assert final.result is not None and final.seed is not None
        # The channel: a post per step; no secret before the last result, and no private
        # note ever.
        posts = await fake.wait_for_messages(w.channel_id, 1 + 2 * len(history.rounds), 15)
        notes = [m for m in fake.dms_to(w.ann.id) if "for your eyes only" in all_text(m)]
        assert any("Your secret choices" in all_text(m) for m in notes)
        assert any("current Style: Quick" in all_text(m) for m in notes)
        bob_notes = [m for m in fake.dms_to(w.bob.id) if "for your eyes only" in all_text(m)]
        assert any("true stake Death" in all_text(m) for m in bob_notes)
        for post in posts:
            text = all_text(post)
            assert "for your eyes only" not in text and "Your secret choices" not in text
            assert "current Style:" not in text
            if short_hex(final.seed) not in text:
                assert "death" not in text.lower(), text  # Bob's true stake stays secret
        last_post = all_text(posts[-1])
        assert short_hex(final.seed) in last_post and "dishonourable" in last_post

        # Stored and exported; every roll re-derives from its round's revealed seed.
        exported = await w.slash(w.commander, "duel", "export", duel=duel_id, format="json")
        assert exported.files
        data = json.loads(exported.files[0].data)
        assert data["ruleset"] == FOEQ and data["status"] == "ended"
        assert len(data["rounds"]) == len(history.rounds) >= 7
        rolls = 0
        for rnd in data["rounds"]:
            assert rnd["status"] == "closed" and rnd["seed"] and rnd["result"]
            for roll in rnd["result"]["rolls"]:
                assert roll["label"].startswith(f"duel:{duel_id}:round:{rnd['number']}:roll:")
                assert roll["value"] == derive_roll(
                    bytes.fromhex(rnd["seed"]), roll["label"], roll["sides"]
                )
                rolls += 1
        assert rolls > 10

        # The sheets were written back: Ann expended her level 1 slot.
        shown = await w.slash(w.commander, "sheet", "show", member=w.ann.id, ruleset=FOEQ)
        assert "spell_slots=[1, 1, 0" in shown.content.replace("\\", ""), shown.content


async def play(w: World, database: Database, duel_id: int) -> int:
    """Every step by the awaited duellists (a button when the choice has one, else typed);
    the other duellist is refused once. Returns how many choices were clicked."""
    fake = w.fake
    users = {"a": w.ann.id, "b": w.bob.id}
    refused = False
    clicked = 0
    for step in range(1, 20):
        status, state = await duel_state(database, duel_id)
        if status != "live":
            return clicked
        awaiting = state["awaiting"]
        phase = state["phase"]
        for side in awaiting:
            user = users[side]
            prompt = await wait_dm(fake, user, titled(f"step {step}: your choice"))
            assert PROMPTS[phase] in all_text(prompt), all_text(prompt)
        if len(awaiting) == 1 and not refused:
            # the other duellist is refused, and nothing is stored
            other = "b" if awaiting[0] == "a" else "a"
            seen = len(fake.dms_to(users[other]))
            await fake.send_dm(users[other], f"#{duel_id} {choice(state, other)[1]}")
            answer = await wait_dm(fake, users[other], lambda m: True, after=seen)
            assert "not your turn" in answer.content, answer.content
            refused = True
        for side in awaiting:
            user = users[side]
            prompt = await wait_dm(fake, user, titled(f"step {step}: your choice"))
            move_id, text = choice(state, side)
            custom_id = f"duelbot:move:{duel_id}:{step}:{move_id}"
            if custom_id in prompt.custom_ids():
                handle = await fake.click_button(user, prompt, custom_id)
                receipt = await handle.reply()
                clicked += 1
            else:
                seen = len(fake.dms_to(user))
                await fake.send_dm(user, text)
                receipt = await wait_dm(fake, user, lambda m: True, after=seen)
            assert "received" in receipt.content, receipt.content
    raise AssertionError("the duel did not end in 19 steps")
