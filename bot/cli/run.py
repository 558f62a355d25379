"""`duelbot run` (and ``python -m bot``): config -> logging -> migrations -> services ->
bot.start(token), the start-up of bot/bootstrap.py. The token comes from $DISCORD_TOKEN
only, never from a file. `duelbot sandbox` runs ``serve`` against the local stand-in."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys

import aiohttp
import discord

from bot.bootstrap import (
    ConfigError,
    Settings,
    configure_logging,
    open_services,
    prepare_database,
    reason,
    settings_and_token,
)
from bot.discord.client import create_bot
from bot.services.container import Services

log = logging.getLogger("bot")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


#: Retry delays (seconds) while Discord cannot be reached at start; the last one repeats.
RETRY_DELAYS = (5.0, 10.0, 20.0, 40.0, 60.0)



def run_bot(config_path: str | None) -> int:
    """Run the bot until SIGTERM/SIGINT; 0 on a clean stop, 2 on a usage error (bad config,
    no token, a token or intents Discord refuses), 1 when the database cannot be used."""
    loaded = settings_and_token(config_path)
    if loaded is None:
        return EXIT_USAGE
    settings, token = loaded
    try:
        configure_logging(settings.log_level)
    except ConfigError as exc:
        print(f"duelbot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    profile = os.environ.get("DUELBOT_PROFILE", "").strip()
    if profile:  # cProfile the whole run into this file (benchmarks: docs/benchmarks.md)
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
        try:
            return asyncio.run(serve(settings, token))
        except KeyboardInterrupt:
            return EXIT_OK
        finally:
            profiler.disable()
            profiler.dump_stats(profile)
    try:
        return asyncio.run(serve(settings, token))
    except KeyboardInterrupt:
        return EXIT_OK


def _shards_text(settings: Settings) -> str:
    count, ids = settings.discord.shard_count, settings.discord.shard_ids
    if count is None:
        return "one connection (no sharding)"
    return f"{count} shard(s)" + (f", this process runs {list(ids)}" if ids else "")


_heap_frozen = False


def freeze_start_up_heap() -> None:
    """Once, when the bot is first ready: collect, then move every object that exists into
    the collector's permanent generation (``gc.freeze``). The start-up heap (modules, the
    ORM's metadata, catalogs, the guild cache: about 170,000 objects) is then never walked
    again; without it each full collection walked all of it, with the event loop stopped
    (one took 108 ms under the cost bench, issue 27: docs/benchmarks.md)."""
    global _heap_frozen
    if _heap_frozen:
        return
    _heap_frozen = True
    gc.collect()
    gc.freeze()


class _Retry(Exception):
    """Discord could not be reached at start; try again after a delay."""


async def serve(settings: Settings, token: str) -> int:
    if not await prepare_database(settings):
        return EXIT_FAILED
    log.info(
        "Discord at %s (gateway %s), %s",
        settings.discord.api_base_url, settings.discord.gateway_url, _shards_text(settings),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        async with open_services(settings, echo=settings.database.echo) as services:
            return await _reconnecting(settings, token, services, stop)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _reconnecting(
    settings: Settings, token: str, services: Services, stop: asyncio.Event
) -> int:
    """Start the client, again after a delay while Discord cannot be reached at start."""
    attempt = 0
    while True:
        try:
            return await _run_client(settings, token, services, stop)
        except _Retry as exc:
            delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
            attempt += 1
            log.warning("Discord cannot be reached: %s; retrying in %.0f s", exc, delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=delay)
            if stop.is_set():
                log.info("Stopped before Discord could be reached")
                return EXIT_OK


async def _run_client(
    settings: Settings, token: str, services: Services, stop: asyncio.Event
) -> int:
    """One client from login to close: the exit status, or _Retry when Discord could not be
    reached before the bot was ever ready."""
    bot = create_bot(services, settings)

    async def connected() -> None:
        freeze_start_up_heap()
        user = bot.user
        log.info(
            "Connected to Discord as %s (id %s), %d server(s)",
            user, getattr(user, "id", "?"), len(bot.guilds),
        )

    bot.add_listener(connected, "on_ready")
    async with bot:
        runner = asyncio.create_task(bot.start(token), name="duelbot-client")
        stopper = asyncio.create_task(stop.wait(), name="duelbot-stop")
        await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set():
            log.info("Stopping: closing the Discord connection")
            await bot.close()
        stopper.cancel()
        try:
            await runner
        except discord.LoginFailure:
            log.error(
                "Discord refused the token in DISCORD_TOKEN (401 Unauthorized): copy the bot "
                "token again from the developer portal (Bot > Reset Token)"
            )
            return EXIT_USAGE
        except discord.PrivilegedIntentsRequired:
            log.error(
                "Discord refused the gateway intents the bot asks for (close code 4014): "
                "enable them for the application in the developer portal (Bot > Privileged "
                "Gateway Intents)"
            )
            return EXIT_USAGE
        except discord.ConnectionClosed as exc:
            if exc.code == 4004:
                log.error("Discord refused the token in DISCORD_TOKEN (gateway close 4004)")
                return EXIT_USAGE
            log.error("Discord closed the gateway connection (code %s): %s", exc.code,
                      reason(exc))
            return EXIT_FAILED
        except (
            aiohttp.ClientError,
            OSError,
            TimeoutError,
            discord.GatewayNotFound,
            discord.DiscordServerError,
        ) as exc:
            if stop.is_set():
                return EXIT_OK
            if bot.user is None or not bot.is_ready():
                raise _Retry(f"{settings.discord.api_base_url}: {reason(exc)}") from None
            log.error("The Discord connection failed: %s", reason(exc))
            return EXIT_FAILED
        except Exception:
            log.exception("The bot stopped on an error")
            return EXIT_FAILED
        if not stop.is_set():
            log.error("The Discord connection ended unexpectedly")
            return EXIT_FAILED
    return EXIT_OK

