"""The bot: loads cogs, registers persistent buttons, syncs commands, runs the workers."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
import yarl
from discord.ext import commands

from bot.config import Settings
from bot.discord.pacing import PacingTrace
from bot.services import Services

log = logging.getLogger(__name__)

COGS = (
    "bot.discord.cogs.commander",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.intake",
    "bot.discord.cogs.odds",
    "bot.discord.cogs.workers",
    "bot.discord.cogs.ladder",  # after commander: /duel record joins its /duel group
)


def intents() -> discord.Intents:
    """The least the bot needs: guilds (channels, roles, threads) and DMs for move intake.
    No members intent (members are fetched on demand) and no message_content: DM text
    reaches bots without it."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    chosen.dm_messages = True
    return chosen


def point_at(api_base_url: str, gateway_url: str) -> None:
    """Route REST and the gateway through the configured URLs (proxies, or a test stand-in).
    Must run before the client is created."""
    discord.http.Route.BASE = api_base_url.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


# No @everyone/role pings from anything the bot posts; user mentions only where we put them.
ALLOWED_MENTIONS = discord.AllowedMentions(
    everyone=False, roles=False, users=True, replied_user=False
)


def _base_kwargs(settings: Settings) -> dict[str, Any]:
    return {
        "command_prefix": commands.when_mentioned,
        "intents": intents(),
        "allowed_mentions": ALLOWED_MENTIONS,
        "help_command": None,
        "max_messages": 200,
        "chunk_guilds_at_startup": False,
        "member_cache_flags": discord.MemberCacheFlags.none(),
        # Global REST pacing, counted when each request is sent (bot/discord/pacing.py).
        "http_trace": PacingTrace(),
    }


async def _setup(bot: Any) -> None:
    from bot.discord.errors import install_error_handler
    from bot.discord.intake_buttons import MoveButton

    install_error_handler(bot)
    bot.add_dynamic_items(MoveButton)
    for cog in COGS:
        await bot.load_extension(cog)
    settings: Settings = bot.settings
    if settings.discord.sync_commands:
        try:
            if settings.discord.sync_guild_ids:
                for guild_id in settings.discord.sync_guild_ids:
                    guild = discord.Object(guild_id)
                    bot.tree.copy_global_to(guild=guild)
                    await bot.tree.sync(guild=guild)
            else:
                await bot.tree.sync()
        except discord.HTTPException:
            log.exception("Slash command sync failed; commands already registered still work")


class _DuelBotParts:
    """What both bot classes carry: the services, the settings and the workers' wake-ups."""

    def _attach(self, services: Services, settings: Settings) -> None:
        self.services = services
        self.settings = settings
        self.outbox_wakeup = asyncio.Event()
        self.scheduler_wakeup = asyncio.Event()
        # The unit of work wakes the poster after any commit that queued a post.
        services.outbox.on_written(self.outbox_wakeup.set)

    async def setup_hook(self) -> None:
        await _setup(self)


class DuelBot(_DuelBotParts, commands.Bot):
    def __init__(self, services: Services, settings: Settings) -> None:
        super().__init__(**_base_kwargs(settings))
        self._attach(services, settings)


class ShardedDuelBot(_DuelBotParts, commands.AutoShardedBot):
    def __init__(self, services: Services, settings: Settings) -> None:
        kwargs = _base_kwargs(settings)
        kwargs["shard_count"] = settings.discord.shard_count
        if settings.discord.shard_ids:
            kwargs["shard_ids"] = list(settings.discord.shard_ids)
        super().__init__(**kwargs)
        self._attach(services, settings)


def create_bot(services: Services, settings: Settings) -> DuelBot | ShardedDuelBot:
    point_at(settings.discord.api_base_url, settings.discord.gateway_url)
    if settings.discord.shard_count is not None:
        return ShardedDuelBot(services, settings)
    return DuelBot(services, settings)


def services_of(client: discord.Client) -> Services:
    return client.services  # type: ignore[attr-defined, no-any-return]


def settings_of(client: discord.Client) -> Settings:
    return client.settings  # type: ignore[attr-defined, no-any-return]


def wake_outbox(client: discord.Client) -> None:
    event = getattr(client, "outbox_wakeup", None)
    if event is not None:
        event.set()
