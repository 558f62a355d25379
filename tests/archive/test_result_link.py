"""Issue 15: with `[archive] base_url` configured, the round result posted in Discord points to
the duel's archive page (`{guild_id}` in the base URL stands for the server); without it, no
link appears. Through the real discord.py client and the fake Discord."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.config import ArchiveSettings
from bot.db.engine import Database
from bot.discord.client import create_bot
from bot.presentation.discord_posts import ARCHIVE_LINK_TITLE
from bot.services.container import Services
from tests.discord.harness import World, bot_settings, populate
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord, run_bot


async def _result_embed(fake: FakeDiscord, database: Database, base_url: str | None) -> Any:
    people = populate(fake)
    settings = replace(bot_settings(fake), archive=ArchiveSettings(base_url=base_url))
    services = Services.create(database, settings.duels)
    bot = create_bot(services, settings)
    async with run_bot(bot, fake):
        w = World(fake=fake, bot=bot, services=services, **people)
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await w.slash(w.ann, "move", duel=duel_id, move="evade")
        await w.slash(w.bob, "move", duel=duel_id, move="evade")
        await w.slash(w.commander, "round", "close", duel=duel_id)
        posts = await fake.wait_for_messages(w.channel_id, 3, timeout=15)
        return duel_id, w.guild.id, posts[-1].embeds[0]


async def test_the_result_links_to_the_archive_page(
    fake_discord: FakeDiscord, database: Database
) -> None:
    duel_id, guild_id, embed = await _result_embed(
        fake_discord, database, "https://duels.example.org/{guild_id}/"
    )
    fields = {f["name"]: f["value"] for f in embed.get("fields", [])}
    assert fields[ARCHIVE_LINK_TITLE] == (
        f"https://duels.example.org/{guild_id}/duel-{duel_id}.html"
    )


async def test_no_base_url_no_link(fake_discord: FakeDiscord, database: Database) -> None:
    _, _, embed = await _result_embed(fake_discord, database, None)
    assert ARCHIVE_LINK_TITLE not in {f["name"] for f in embed.get("fields", [])}
