"""A whole duel through the real discord.py client against the fake Discord, on SQLite and
PostgreSQL: stats, start, open, DM buttons and text, close, result post."""

from __future__ import annotations

import json
import logging

import pytest

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.presentation.discord_result import short_hex
from bot.rules.dice import commitment as commit_of
from bot.rules.dice import derive_roll
from tests.discord.harness import World, running_world
from tests.fakediscord import FakeDiscord

MOVE_IDS = ("full_frontal_strike", "side_swipe", "lock_attempt", "evade", "retreat")


def all_text(message: object) -> str:
    """Everything a message shows: content, embeds and components."""
    return json.dumps(
        {
            "content": getattr(message, "content", ""),
            "embeds": getattr(message, "embeds", []),
            "components": getattr(message, "components", []),
        }
    )


async def setup_duel(w: World) -> int:
    reply = await w.slash(w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
    assert "STR 5" in reply.content and reply.ephemeral
    reply = await w.slash(w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)
    assert "AGI 2" in reply.content
    reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
    assert reply.ephemeral and "Duel #" in reply.content
    duel_id = int(reply.content.split("Duel #")[1].split()[0])
    await w.fake.wait_for_messages(w.channel_id, 1, timeout=15)
    return duel_id


async def test_whole_duel_end_to_end(
    fake_discord: FakeDiscord, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake = fake_discord
    async with running_world(fake, database) as w:
        names = {c["name"] for c in fake.commands()}
        assert {"stats", "duel", "round", "config", "move", "odds"} <= names
        duel_id = await setup_duel(w)
        card = fake.messages_in(w.channel_id)[-1]
        assert f"Duel #{duel_id}" in all_text(card)

        reply = await w.slash(w.commander, "round", "open", duel=duel_id, deadline="36h")
        assert "Round 1" in reply.content and reply.ephemeral
        dms_ann = await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        dms_bob = await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        prompt = dms_ann[-1]
        ids = prompt.custom_ids()
        assert {f"duelbot:move:{duel_id}:1:{m}" for m in MOVE_IDS} == set(ids)
        assert "<t:" in all_text(prompt) and ":R>" in all_text(prompt)
        assert dms_bob[-1].custom_ids()
        open_posts = await fake.wait_for_messages(w.channel_id, 2, timeout=15)
        rnd = await w.services.duels.round_status(duel_id)
        assert rnd.duel.open_round is not None
        assert rnd.duel.open_round.commitment in all_text(open_posts[-1])

        caplog.clear()  # the command sync legitimately lists every move id
        # Ann clicks Evade; Bob types "ffs".
        handle = await fake.click_button(w.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        receipt = await handle.reply()
        assert "Evade" in receipt.content and f"duel #{duel_id}" in receipt.content
        await fake.send_dm(w.bob.id, "FFS")
        bob_dms = await fake.wait_for_dms(w.bob.id, 2, timeout=15)
        assert "Full Frontal Strike" in bob_dms[-1].content

        status = await w.slash(w.commander, "round", "status", duel=duel_id)
        assert "has sent a move" in status.content
        for move in ("Evade", "Full Frontal Strike", "evade", "full_frontal_strike"):
            assert move not in status.content

        # Before the close: no channel post and no log line carries a move.
        for msg in fake.messages_in(w.channel_id):
            text = all_text(msg).lower()
            assert "evade" not in text and "full frontal" not in text
        for record in caplog.records:
            # Our own log lines at every level; everything else from INFO up (library DEBUG
            # output is silenced by bot.logs.configure_logging in production).
            if not record.name.startswith("bot") and record.levelno < logging.INFO:
                continue
            text = record.getMessage().lower()
            assert "full_frontal_strike" not in text and "evade" not in text

        closed = await w.slash(w.commander, "round", "close", duel=duel_id)
        assert "closed" in closed.content
        posts = await fake.wait_for_messages(w.channel_id, 3, timeout=15)
        result_post = all_text(posts[-1])
        assert "Evade" in result_post and "Full Frontal Strike" in result_post
        history = await w.services.duels.history(duel_id)
        record = history.rounds[0]
        # The post shows the seed and commitment shortened; /duel history in full.
        assert record.seed is not None and short_hex(record.seed) in result_post
        assert short_hex(record.commitment) in result_post
        listed = await w.slash(w.commander, "duel", "history", duel=duel_id)
        assert record.seed in listed.content and record.commitment in listed.content
        assert commit_of(record.seed) == record.commitment
        assert record.result is not None
        for roll in record.result.rolls:
            expected = derive_roll(bytes.fromhex(record.seed), roll.label, roll.sides)
            assert roll.value == expected
            assert f"DICE{roll.sides}" in result_post.replace(" ", "")
        # Posted on behalf of the commander (webhook with the commander's name, or an embed
        # naming them).
        assert posts[-1].webhook_id is not None or "on behalf of" in result_post.lower()


async def test_variant_off_refuses_change_and_on_allows_it(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    # Ann changes her move more often than the flood limit lets a person (tested elsewhere).
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        await fake.send_dm(w.ann.id, "evade")
        await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        await fake.send_dm(w.ann.id, "side swipe")
        dms = await fake.wait_for_dms(w.ann.id, 3, timeout=15)
        assert "already locked in Evade" in dms[-1].content

        reply = await w.slash(w.commander, "config", "change-of-choice", enabled=True)
        assert "now on" in reply.content and "duels started afterwards" in reply.content
        # The running duel keeps the rule it started with (issue 10)...
        await fake.send_dm(w.ann.id, "side swipe")
        dms = await fake.wait_for_dms(w.ann.id, 4, timeout=15)
        assert "already locked in Evade" in dms[-1].content

        # ...a duel started now allows the change.
        await w.slash(w.commander, "duel", "end", duel=duel_id, reason="restart")
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.ann.id, 5, timeout=15)
        await fake.send_dm(w.ann.id, "evade")
        await fake.wait_for_dms(w.ann.id, 6, timeout=15)
        await fake.send_dm(w.ann.id, "side swipe")
        dms = await fake.wait_for_dms(w.ann.id, 7, timeout=15)
        assert "changed from **Evade** to **Side Swipe**" in dms[-1].content

        # /move in the server works too, ephemerally, and changes the move again.
        reply = await w.slash(w.ann, "move", duel=duel_id, move="lock_attempt")
        assert reply.ephemeral and "Lock Attempt" in reply.content


async def test_refusals_change_nothing(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        duel_id = await setup_duel(w)
        # An outsider cannot open a round, set stats or change config.
        for args in (
            ("round", "open", {"duel": duel_id}),
            ("stats", "set", {"member": w.ann.id, "str": 1, "agi": 1}),
            ("duel", "end", {"duel": duel_id, "reason": "no"}),
        ):
            reply = await w.slash(w.outsider, args[0], args[1], **args[2])
            assert reply.ephemeral and "commander" in reply.content.lower()
        reply = await w.slash(w.outsider, "config", "change-of-choice", enabled=True)
        assert reply.ephemeral and "Manage Server" in reply.content
        settings = await w.services.settings.get(w.guild.id)
        assert settings.change_of_choice is False

        # The role commander is refused until the role is configured, then allowed.
        reply = await w.slash(w.role_commander, "round", "open", duel=duel_id)
        assert "commander" in reply.content.lower()
        await w.slash(w.commander, "config", "commander-role", role=w.commander_role_id)
        reply = await w.slash(w.role_commander, "round", "open", duel=duel_id, deadline="2d")
        assert "Round 1" in reply.content

        # Bad deadline, unknown duel, a stranger's move: clear errors.
        reply = await w.slash(w.commander, "round", "open", duel=999999)
        assert "no duel #999999" in reply.content.lower()
        reply = await w.slash(w.outsider, "move", duel=duel_id, move="evade")
        unknown = await w.slash(w.outsider, "move", duel=999999, move="evade")
        # Not their duel: answered exactly as a number that names no duel (issue 10).
        assert reply.content == unknown.content.replace("999999", str(duel_id))
        assert f"You have no duel #{duel_id} in this server" in reply.content
        await fake.send_dm(w.ann.id, "dance")
        dms = await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        assert "not a move" in dms[-1].content and "evade" in dms[-1].content
        status = await w.services.duels.round_status(duel_id)
        assert status.submitted == {"a": False, "b": False}


async def test_bad_deadline_is_explained(fake_discord: FakeDiscord, database: Database) -> None:
    async with running_world(fake_discord, database) as w:
        duel_id = await setup_duel(w)
        reply = await w.slash(w.commander, "round", "open", duel=duel_id, deadline="soonish")
        assert "not a deadline" in reply.content and "36h" in reply.content
        status = await w.services.duels.round_status(duel_id)
        assert status.is_open is False


@pytest.mark.parametrize("status", [404, 405])
async def test_result_still_posted_where_webhooks_do_not_exist(
    fake_discord: FakeDiscord, database: Database, status: int
) -> None:
    """A REST proxy or stand-in without webhook routes: posts go out as the bot."""
    fake = fake_discord
    fake.fail_next("POST", "/channels/*/webhooks", status=status, times=None)
    async with running_world(fake, database) as w:
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        await fake.send_dm(w.ann.id, "retreat")
        await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        await w.slash(w.commander, "round", "close", duel=duel_id)
        posts = await fake.wait_for_messages(w.channel_id, 3, timeout=15)
        assert "Retreat" in all_text(posts[-1])
        assert posts[-1].webhook_id is None and "on behalf of" in all_text(posts[-1]).lower()
