"""A duelbot wired to the fake Discord and a migrated test database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from bot.config import DiscordSettings, DuelSettings, LimitSettings, Settings, WorkerSettings
from bot.db.engine import Database
from bot.discord.client import DuelBot, ShardedDuelBot, create_bot
from bot.services.container import Services
from tests.fakediscord import MANAGE_GUILD, FakeDiscord, run_bot
from tests.fakediscord.models import FakeGuild, FakeUser


def bot_settings(
    fake: FakeDiscord, *, limits: LimitSettings | None = None, **duels: Any
) -> Settings:
    return Settings(
        discord=DiscordSettings(api_base_url=fake.api_base_url, gateway_url=fake.gateway_url),
        duels=replace(DuelSettings(), **duels),
        workers=WorkerSettings(outbox_poll_seconds=0.05, scheduler_poll_seconds=0.1),
        limits=limits or LimitSettings(),
    )


@dataclass
class World:
    """A guild with a commander (Manage Server), a role-only commander, two duellists and an
    outsider, plus the bot, its services and the fake."""

    fake: FakeDiscord
    bot: DuelBot | ShardedDuelBot
    services: Services
    guild: FakeGuild
    channel_id: int
    commander: FakeUser
    role_commander: FakeUser
    commander_role_id: int
    ann: FakeUser
    bob: FakeUser
    outsider: FakeUser

    async def slash(
        self,
        user: FakeUser,
        name: str,
        sub: str | None = None,
        group: str | None = None,
        guild: bool = True,
        **options: Any,
    ) -> Any:
        handle = await self.fake.invoke_slash(
            self.guild.id if guild else None,
            self.channel_id if guild else None,
            user.id,
            name,
            subcommand=sub,
            group=group,
            options=options,
        )
        return await handle.reply()


async def forum_duellists(w: World, forum_id: int) -> None:
    """The server's duel forum set to ``forum_id``, and Ann's and Bob's stats set."""
    await w.slash(w.commander, "config", "duel-forum", channel=forum_id)
    await w.slash(w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
    await w.slash(w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)


def populate(fake: FakeDiscord) -> dict[str, Any]:
    guild = fake.add_guild("Duel Hall")
    channel_id = guild.channel_ids[0]
    referee = fake.add_role(guild.id, "Referee", permissions=MANAGE_GUILD)
    commander_role = fake.add_role(guild.id, "DDA Commander", permissions=0)
    commander = fake.add_member(guild.id, "cmdr", roles=[referee]).user
    role_commander = fake.add_member(guild.id, "rolecmdr", roles=[commander_role]).user
    ann = fake.add_member(guild.id, "ann").user
    bob = fake.add_member(guild.id, "bob").user
    outsider = fake.add_member(guild.id, "outsider").user
    return {
        "guild": guild,
        "channel_id": channel_id,
        "commander": commander,
        "role_commander": role_commander,
        "commander_role_id": commander_role.id,
        "ann": ann,
        "bob": bob,
        "outsider": outsider,
    }


@asynccontextmanager
async def running_world(
    fake: FakeDiscord,
    database: Database,
    people: dict[str, Any] | None = None,
    *,
    limits: LimitSettings | None = None,
    **duels: Any,
) -> AsyncIterator[World]:
    people = people or populate(fake)
    settings = bot_settings(fake, limits=limits, **duels)
    services = Services.create(database, settings.duels)
    bot = create_bot(services, settings)
    async with run_bot(bot, fake):
        yield World(fake=fake, bot=bot, services=services, **people)
