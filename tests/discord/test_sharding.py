"""Two bot processes (here two clients with their own engines) share one database as shards
0 and 1 of 2: the guild's commands reach shard 1, DMs reach shard 0, both run the outbox and
the scheduler, and every post still goes out exactly once. Both are configured to sync the
slash commands; only the one holding shard 0 does."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

import discord

from bot.discord.client import create_bot
from bot.services.container import Services
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


async def test_dms_and_dm_buttons_reach_only_the_process_holding_shard_0(
    fake_discord: FakeDiscord, make_db: Any
) -> None:
    """Discord sends DMs, and the interactions of buttons in DMs, to shard 0 only (the
    stand-in does the same): a bot run as several processes must run shard 0 somewhere, and
    that process takes every DM move (docs/discord.md, "Several processes")."""
    fake = fake_discord
    fake.shard_count = 2
    people = populate(fake)
    guild, channel = people["guild"], people["channel_id"]
    cmdr, ann, bob = people["commander"], people["ann"], people["bob"]
    base = bot_settings(fake)
    seen: dict[int, list[str]] = {0: [], 1: []}
    async with AsyncExitStack() as stack:
        bots = []
        for shard in (0, 1):
            settings = replace(
                base, discord=replace(base.discord, shard_count=2, shard_ids=(shard,))
            )
            bot = create_bot(Services.create(make_db(), settings.duels), settings)

            def recorder(shard: int) -> Any:
                async def dm_seen(message: discord.Message) -> None:
                    if message.guild is None and message.author.id != fake.bot_user.id:
                        seen[shard].append("dm")

                async def interaction_seen(interaction: discord.Interaction[Any]) -> None:
                    kind = "dm-button" if interaction.guild_id is None else "guild"
                    seen[shard].append(kind)

                return dm_seen, interaction_seen

            on_message, on_interaction = recorder(shard)
            bot.add_listener(on_message, "on_message")
            bot.add_listener(on_interaction, "on_interaction")
            bots.append(await stack.enter_async_context(run_bot(bot, fake)))

        async def slash(user: Any, name: str, sub: str, **options: Any) -> str:
            handle = await fake.invoke_slash(
                guild.id, channel, user.id, name, subcommand=sub, options=options
            )
            return (await handle.reply()).content

        await slash(cmdr, "stats", "set", member=ann.id, str=5, agi=3)
        await slash(cmdr, "stats", "set", member=bob.id, str=4, agi=2)
        duel_id = int(
            (await slash(cmdr, "duel", "start", a=ann.id, b=bob.id)).split("Duel #")[1].split()[0]
        )
        await slash(cmdr, "round", "open", duel=duel_id)
        prompt = (await fake.wait_for_dms(ann.id, 1, timeout=15))[-1]
        handle = await fake.click_button(ann.id, prompt, f"duelbot:move:{duel_id}:1:evade")
        assert "Evade" in (await handle.reply()).content
        await fake.wait_for_dms(bob.id, 1, timeout=15)
        await fake.send_dm(bob.id, "evade")
        await fake.wait_for_dms(bob.id, 2, timeout=15)
        status = await bots[0].services.duels.round_status(duel_id)
        assert status.submitted == {"a": True, "b": True}
    owner = (guild.id >> 22) % 2
    # The guild's commands went to the shard that holds the guild; every DM and DM button
    # to shard 0, none to shard 1.
    assert "guild" in seen[owner] and "guild" not in seen[1 - owner]
    assert {"dm", "dm-button"} <= set(seen[0])
    assert not {"dm", "dm-button"} & set(seen[1])


async def test_a_process_without_the_server_posts_in_threads_through_the_webhook(
    fake_discord: FakeDiscord, make_db: Any
) -> None:
    """The outbox is shared: a post may be taken by a process that does not hold the
    server's shard (so has not cached its channels). It still posts in the duel's thread
    through the channel's webhook, on behalf of the commander, not as the bot."""
    fake = fake_discord
    fake.shard_count = 2
    people = populate(fake)
    guild, channel = people["guild"], people["channel_id"]
    cmdr, ann, bob = people["commander"], people["ann"], people["bob"]
    owner = (guild.id >> 22) % 2
    base = bot_settings(fake, thread_per_duel=True)
    async with AsyncExitStack() as stack:
        bots = []
        for shard in (0, 1):
            settings = replace(
                base, discord=replace(base.discord, shard_count=2, shard_ids=(shard,))
            )
            bot = create_bot(Services.create(make_db(), settings.duels), settings)
            bots.append(await stack.enter_async_context(run_bot(bot, fake)))
        await bots[owner].remove_cog("Poster")  # only the other process posts
        assert bots[1 - owner].get_guild(guild.id) is None

        async def slash(user: Any, name: str, sub: str, **options: Any) -> str:
            handle = await fake.invoke_slash(
                guild.id, channel, user.id, name, subcommand=sub, options=options
            )
            return (await handle.reply()).content

        await slash(cmdr, "stats", "set", member=ann.id, str=5, agi=3)
        await slash(cmdr, "stats", "set", member=bob.id, str=4, agi=2)
        duel_id = int(
            (await slash(cmdr, "duel", "start", a=ann.id, b=bob.id)).split("Duel #")[1].split()[0]
        )
        card = (await fake.wait_for_messages(channel, 1, timeout=15))[0]
        for _ in range(300):
            if (await bots[0].services.duels.get_duel(duel_id)).thread_id is not None:
                break
            await asyncio.sleep(0.05)
        thread_id = (await bots[0].services.duels.get_duel(duel_id)).thread_id
        assert thread_id == card.id
        await slash(cmdr, "round", "open", duel=duel_id)
        opening = (await fake.wait_for_messages(thread_id, 1, timeout=15))[-1]
    assert card.webhook_id is not None
    assert opening.webhook_id == card.webhook_id  # the channel's webhook, in its thread
    assert opening.username == "cmdr"
