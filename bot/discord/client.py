"""The bot: its typed parts (services, settings, wake-ups, limits), the extensions it loads,
and the command sync.

Every command and callback takes ``discord.Interaction[DuelBot]``, so ``interaction.client``
is typed. This module imports nothing else of the Discord layer but the limits it owns
(pacing, flood) and its command tree's translator: the error handler, the persistent
buttons and the cogs are extensions, loaded by name, and each imports this module at its
top.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.config import DiscordSettings, Settings
from bot.discord.flood import UserRateLimiter
from bot.discord.languages import MemberLanguages, answering
from bot.discord.pacing import GlobalPacer, PacingTrace, shared_pacer
from bot.discord.translator import CatalogTranslator
from bot.services.container import Services

log = logging.getLogger(__name__)

# The extensions setup_hook loads, in order: the error handler first; the ladder after the
# commander cog (its /duel record joins the commander cog's /duel group).
COGS = (
    "bot.discord.errors",
    "bot.discord.cogs.commander",
    "bot.discord.cogs.admin",
    "bot.discord.cogs.intake",
    "bot.discord.cogs.odds",
    "bot.discord.workers.poster",
    "bot.discord.workers.scheduler",
    "bot.discord.workers.heartbeat",
    "bot.discord.cogs.ladder",
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


def syncs_commands(settings: DiscordSettings) -> bool:
    """Whether this process registers the slash commands with Discord: the one that holds
    shard 0 (a process without sharding holds every shard). Several processes of one bot
    would otherwise each sync the same tree at every start, and Discord rate-limits the
    command routes hard (``duelbot`` processes of shards 1.. leave it to shard 0's)."""
    if not settings.sync_commands:
        return False
    return not settings.shard_ids or 0 in settings.shard_ids


def _base_kwargs(settings: Settings, trace: PacingTrace) -> dict[str, Any]:
    return {
        "command_prefix": commands.when_mentioned,
        "intents": intents(),
        "allowed_mentions": ALLOWED_MENTIONS,
        "help_command": None,
        "max_messages": 200,
        "chunk_guilds_at_startup": False,
        "member_cache_flags": discord.MemberCacheFlags.none(),
        # Global REST pacing, counted when each request is sent (bot/discord/pacing.py).
        "http_trace": trace,
        # Every slash command answers in the member's language (DuelTree).
        "tree_cls": DuelTree,
    }


class DuelTree(app_commands.CommandTree["DuelBot"]):
    """The command tree, answering each slash command and autocomplete in the member's own
    Discord language (bot/discord/languages.py).

    discord.py runs an application command interaction (its checks, its command or its
    autocomplete, and the error handler) in a task of its own, created in
    ``_from_interaction``: the language scope is opened around that creation, so the task
    starts with it (a task copies its context when it is created) and nothing else does;
    the gateway's own context is left as it was. (The public ``interaction_check`` runs
    inside that task, where a scope could only be set, never closed.)"""

    def _from_interaction(self, interaction: discord.Interaction[DuelBot]) -> None:
        with answering(interaction, self.client.member_languages):
            super()._from_interaction(interaction)


class DuelBot(commands.Bot):
    """The bot and what the Discord layer reads from it: the services, the settings, the
    workers' wake-ups, the per-user flood limiter and the global REST pacer."""

    def __init__(self, services: Services, settings: Settings, **options: Any) -> None:
        # This process's share of the bot's REST budget; behind a REST proxy, the proxy's.
        self.pacing = PacingTrace(shared_pacer(settings.discord.rest_share))
        self.pacing.enabled = not settings.discord.rest_proxy
        super().__init__(**_base_kwargs(settings, self.pacing), **options)
        self.services = services
        self.settings = settings
        # The language each member last used, told to the services when it changes.
        self.member_languages = MemberLanguages(services)
        # Set by the intake cog when it loads: what a DM is handed to.
        self.message_intake: Callable[[discord.Message], Awaitable[None]] | None = None
        self.outbox_wakeup = asyncio.Event()
        self.scheduler_wakeup = asyncio.Event()
        # The unit of work wakes the poster after any commit that queued a post.
        services.outbox.on_written(self.outbox_wakeup.set)
        limits = settings.limits
        self.flood = UserRateLimiter(
            limits.dm_burst, limits.dm_window_seconds, limits.dm_tracked_users
        )
        # Expensive answers (/duel export, /leaderboard) have a budget of their own, so an
        # export flood neither starves the loop nor eats the member's move allowance.
        self.expensive = UserRateLimiter(
            limits.export_burst, limits.export_window_seconds, limits.dm_tracked_users
        )

    @property
    def pacer(self) -> GlobalPacer:
        return self.pacing.pacer

    def wake_outbox(self) -> None:
        """New outbox rows are committed: the poster looks now instead of at its next poll."""
        self.outbox_wakeup.set()

    async def on_message(self, message: discord.Message, /) -> None:
        """A DM goes to the intake (cogs/intake.py); nothing else. duelbot has no prefix
        commands: commands.Bot's default built a command context for every message only to
        find no command in it, and a listener of the intake's own would be a second task
        per message (issue 27: per-event work off the hot path)."""
        if message.guild is None and self.message_intake is not None:
            await self.message_intake(message)

    async def setup_hook(self) -> None:
        # Known once logged in: the bot's own webhooks are exempt from the global limit.
        self.pacing.application_id = self.application_id
        # Before any sync: the tree is registered with its texts in every catalog language
        # (`duelbot sync-commands` runs this hook too).
        await self.tree.set_translator(CatalogTranslator())
        for extension in COGS:
            await self.load_extension(extension)
        if syncs_commands(self.settings.discord):
            await self.sync_commands()

    async def sync_commands(self) -> None:
        guild_ids = self.settings.discord.sync_guild_ids
        try:
            if guild_ids:
                for guild_id in guild_ids:
                    guild = discord.Object(guild_id)
                    self.tree.copy_global_to(guild=guild)
                    await self.tree.sync(guild=guild)
            else:
                await self.tree.sync()
        except discord.HTTPException:
            log.exception("Slash command sync failed; commands already registered still work")


class ShardedDuelBot(DuelBot, commands.AutoShardedBot):
    """The same bot on an AutoShardedClient: the shards it holds come from the settings."""

    def __init__(self, services: Services, settings: Settings) -> None:
        options: dict[str, Any] = {"shard_count": settings.discord.shard_count}
        if settings.discord.shard_ids:
            options["shard_ids"] = list(settings.discord.shard_ids)
        super().__init__(services, settings, **options)


def create_bot(services: Services, settings: Settings) -> DuelBot:
    point_at(settings.discord.api_base_url, settings.discord.gateway_url)
    if settings.discord.shard_count is not None:
        return ShardedDuelBot(services, settings)
    return DuelBot(services, settings)


def services_of(client: DuelBot) -> Services:
    return client.services


def settings_of(client: DuelBot) -> Settings:
    return client.settings


def wake_outbox(client: DuelBot) -> None:
    client.wake_outbox()
