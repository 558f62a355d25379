"""The fake Discord speaks languages as Discord does (issue 28): every interaction carries
the member's client language as ``locale`` and the server's primary language as
``guild_locale``; a test sets each user's (``add_user(..., locale=)``,
``add_member(..., locale=)``, ``set_user_locale``) and each guild's (``add_guild(...,
locale=)``, ``set_guild_locale``), and a value Discord never sends is refused."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, run_bot
from tests.fakediscord.pytest_plugin import fake_discord  # noqa: F401  (fixture)


class LocaleBot(commands.Bot):
    """Answers every command and button with the languages discord.py read."""

    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix="!", intents=intents)
        self.guild_updates: list[str] = []

        @app_commands.command(name="where", description="Which languages")
        async def where(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(discord.ui.Button(label="Again", custom_id="again"))
            await interaction.response.send_message(describe(interaction), view=view)

        self.tree.add_command(where)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.send_message(describe(interaction), ephemeral=True)

    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        self.guild_updates.append(after.preferred_locale.value)


def describe(interaction: discord.Interaction[Any]) -> str:
    guild_locale = interaction.guild_locale.value if interaction.guild_locale else None
    return f"locale={interaction.locale.value} guild_locale={guild_locale}"


async def test_each_user_and_each_guild_has_a_language(fake_discord: FakeDiscord) -> None:  # noqa: F811
    fake = fake_discord
    hall = fake.add_guild("Duellhalle", locale="de")
    ann = fake.add_member(hall.id, "ann", locale="de").user
    eve = fake.add_member(hall.id, "eve").user  # English by default, as a new fake user
    assert (ann.locale, eve.locale, hall.locale) == ("de", "en-US", "de")
    async with run_bot(LocaleBot(), fake) as bot:
        answers = {}
        for user in (ann, eve):
            handle = await fake.invoke_slash(hall.id, None, user.id, "where")
            answers[user.username] = (await handle.reply()).content
            assert handle.payload["locale"] == user.locale
            assert handle.payload["guild_locale"] == "de"
        assert answers == {
            "ann": "locale=de guild_locale=de",
            "eve": "locale=en-US guild_locale=de",
        }
        # The call may still name a locale (a member on another device), for that one only.
        handle = await fake.invoke_slash(hall.id, None, ann.id, "where", locale="fr")
        assert (await handle.reply()).content == "locale=fr guild_locale=de"

        # Eve switches her client to German; an admin makes the server's language French.
        fake.set_user_locale(eve, "de")
        fake.set_guild_locale(hall.id, "fr")
        handle = await fake.invoke_slash(hall.id, None, eve.id, "where")
        post = await handle.reply()
        assert post.content == "locale=de guild_locale=fr"
        guild = bot.get_guild(hall.id)
        assert guild is not None and guild.preferred_locale is discord.Locale.french
        assert bot.guild_updates == ["fr"]

        # A button press carries the presser's locale too; a DM has no guild_locale.
        [message] = fake.messages_in(hall.channel_ids[0])[-1:]
        handle = await fake.click_button(ann.id, message, "again")
        assert (await handle.reply()).content == "locale=de guild_locale=fr"
        handle = await fake.invoke_slash(None, None, ann.id, "where")
        assert (await handle.reply()).content == "locale=de guild_locale=None"
        assert "guild_locale" not in handle.payload


def test_a_value_discord_never_sends_is_refused() -> None:
    fake = FakeDiscord()
    with pytest.raises(ValueError, match="no Discord locale"):
        fake.add_user("ann", locale="de-DE")
    with pytest.raises(ValueError, match="no Discord locale"):
        fake.add_guild("Hall", locale="german")
    ann = fake.add_user("ann")
    with pytest.raises(ValueError, match="no Discord locale"):
        fake.set_user_locale(ann, "en")  # Discord has en-US and en-GB only
    assert ann.locale == "en-US"
