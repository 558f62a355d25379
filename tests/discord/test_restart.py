"""A restart mid-round: buttons sent before the restart still work, and the deadline still
closes the round (state lives in the database, not in memory)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.db.engine import Database
from tests.discord.harness import populate, running_world
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord


async def test_buttons_and_deadline_survive_a_restart(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = populate(fake)
    async with running_world(fake, database, people) as w:
        duel_id = await setup_duel(w)
        # Long enough for the prompts and the restart on a loaded machine (the click must come
        # before the deadline).
        deadline = datetime.now(UTC) + timedelta(seconds=8)
        await w.services.duels.open_round(
            duel_id=duel_id, guild_id=w.guild.id, actor_id=w.commander.id, deadline=deadline
        )
        w.bot.outbox_wakeup.set()  # type: ignore[union-attr]
        prompt = (await fake.wait_for_dms(w.ann.id, 1, timeout=15))[-1]
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
    # The first bot is gone. A new process (here: a new client) starts on the same database.
    async with running_world(fake, database, people) as w2:
        click = await fake.click_button(w2.ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        assert "Evade" in (await click.reply()).content
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        while True:
            history = await w2.services.duels.history(duel_id)
            if history.rounds[0].status == "closed":
                break
            assert loop.time() < end, "the deadline did not close the round"
            await asyncio.sleep(0.1)
        record = history.rounds[0]
        assert record.close_reason == "deadline"
        assert record.result is not None
        assert (record.result.choices.a, record.result.choices.b) == ("evade", None)
        for _ in range(50):
            results = [
                m for m in fake.messages_in(w2.channel_id) if "Evade" in str(m.embeds) + m.content
            ]
            if results:
                break
            await asyncio.sleep(0.1)
        assert len(results) == 1
