"""Two bot processes (here two clients with their own engines) share one database as shards
0 and 1 of 2: the guild's commands reach shard 1, DMs reach shard 0, both run the outbox and
the scheduler, and every post still goes out exactly once. Both are configured to sync the
slash commands; only the one holding shard 0 does."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

from bot.discord.client import create_bot
from bot.services import Services
from tests.discord.harness import bot_settings, populate
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord, run_bot


async def test_two_shard_processes_share_one_database(
    fake_discord: FakeDiscord, make_db: Any
) -> None:
    fake = fake_discord
    fake.shard_count = 2
    people = populate(fake)
    guild, channel = people["guild"], people["channel_id"]
    cmdr, ann, bob = people["commander"], people["ann"], people["bob"]
    base = bot_settings(fake)
    bots = []
    async with AsyncExitStack() as stack:
        for shard in (0, 1):
            settings = replace(
                base,
                discord=replace(
                    base.discord, shard_count=2, shard_ids=(shard,), sync_commands=True
                ),
            )
            bot = create_bot(Services.create(make_db(), settings.duels), settings)
            bots.append(await stack.enter_async_context(run_bot(bot, fake)))
        # The command tree is registered once, by shard 0's process.
        assert len(fake.requests_to("PUT", f"/applications/{fake.application_id}/commands")) == 1
        owner = (guild.id >> 22) % 2
        assert bots[owner].get_guild(guild.id) is not None
        assert bots[1 - owner].get_guild(guild.id) is None

        async def slash(user: Any, name: str, sub: str, **options: Any) -> str:
            handle = await fake.invoke_slash(
                guild.id, channel, user.id, name, subcommand=sub, options=options
            )
            return (await handle.reply()).content

        await slash(cmdr, "stats", "set", member=ann.id, str=5, agi=3)
        await slash(cmdr, "stats", "set", member=bob.id, str=4, agi=2)
        started = await slash(cmdr, "duel", "start", a=ann.id, b=bob.id)
        duel_id = int(started.split("Duel #")[1].split()[0])
        for round_no in (1, 2):
            assert f"Round {round_no}" in await slash(cmdr, "round", "open", duel=duel_id)
            await fake.wait_for_dms(ann.id, 2 * round_no - 1, timeout=15)
            await fake.send_dm(ann.id, "lock")  # DMs reach shard 0
            await fake.wait_for_dms(ann.id, 2 * round_no, timeout=15)
            assert "closed" in await slash(cmdr, "round", "close", duel=duel_id)
        await asyncio.sleep(1.0)  # both outbox workers have had their chances
        posts = fake.messages_in(channel)
        # start card + (open + result) x 2, each exactly once
        assert len(posts) == 5, [all_text(p)[:80] for p in posts]
        assert len(fake.dms_to(bob.id)) == 2  # one prompt per round, never twice
