"""``duelbot sync-commands``: register the slash commands with Discord once, then exit.

For a bot run as several processes: run this once per release (e.g. from the deploy
script) and set ``[discord] sync_commands = false`` on every process; or leave
``sync_commands`` on and only the process holding shard 0 syncs at start
(bot/discord/client.py ``syncs_commands``). Either way the command routes, which Discord
rate-limits hard, see one sync instead of one per process.

It logs in over REST only (no gateway), loads the same extensions ``duelbot run`` does to
build the very same command tree, syncs it globally (or to ``[discord] sync_guild_ids``)
and closes. It needs no database connection: the commands are built without data.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys

import aiohttp
import discord

from bot.bootstrap import Settings, open_services, settings_and_token
from bot.discord.client import DuelBot, create_bot
from bot.services.container import Services

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


async def sync_tree(bot: DuelBot) -> str:
    """Sync the tree as the settings say; what was done, in one line. Raises on failure
    (unlike DuelBot.sync_commands at start, which logs and goes on)."""
    guild_ids = bot.settings.discord.sync_guild_ids
    if guild_ids:
        counts = []
        for guild_id in guild_ids:
            guild = discord.Object(guild_id)
            bot.tree.copy_global_to(guild=guild)
            counts.append(len(await bot.tree.sync(guild=guild)))
        return (
            f"Synced {counts[0]} commands to server(s) "
            + ", ".join(str(g) for g in guild_ids)
            + " (sync_guild_ids)."
        )
    synced = await bot.tree.sync()
    return f"Synced {len(synced)} commands globally (they reach every server within minutes)."


async def sync_commands(settings: Settings, token: str) -> int:
    # The database is never connected to: services are only constructed.
    async with open_services(settings) as services:
        return await _sync_with(services, settings, token)


async def _sync_with(services: Services, settings: Settings, token: str) -> int:
    quiet = dataclasses.replace(
        settings, discord=dataclasses.replace(settings.discord, sync_commands=False)
    )
    bot = create_bot(services, quiet)
    try:
        await bot.login(token)  # runs setup_hook: the extensions, hence the tree; no sync
        print(await sync_tree(bot))
        return EXIT_OK
    except discord.LoginFailure:
        print(
            "duelbot: Discord refused the token in DISCORD_TOKEN (401 Unauthorized).",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except discord.HTTPException as exc:
        print(
            f"duelbot: Discord refused the command sync: HTTP {exc.status} "
            f"(code {exc.code}) {exc.text}".rstrip(),
            file=sys.stderr,
        )
        return EXIT_FAILED
    except (aiohttp.ClientError, OSError) as exc:
        print(
            f"duelbot: cannot reach Discord at {settings.discord.api_base_url}: {exc}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    finally:
        await bot.close()


def main(config_path: str | None) -> int:
    loaded = settings_and_token(config_path)
    if loaded is None:
        return EXIT_USAGE
    return asyncio.run(sync_commands(*loaded))


__all__ = ["main", "sync_commands", "sync_tree"]
