"""``python -m bot`` and ``duelbot run``: config -> logging -> migrations -> engine ->
services -> bot.start(token). The token comes from $DISCORD_TOKEN only, never from a file."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import Any

from bot.config import ConfigError, Settings, load_settings

log = logging.getLogger("bot")

NO_TOKEN = (
    "duelbot: set DISCORD_TOKEN to the bot token (from the Discord developer portal); "
    "it is never read from files."
)
QUIET_AT_DEBUG = (
    "discord.gateway",
    "discord.http",
    "discord.webhook",
    "discord.state",
    "aiosqlite",
    "asyncpg",
)
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


#: Start-up chatter that says nothing to whoever runs the bot: alembic's plugin set-up and
#: per-migration lines (we log one line with the revision instead).
QUIET_BELOW_WARNING = ("alembic",)
#: Retry delays (seconds) while Discord cannot be reached at start; the last one repeats.
RETRY_DELAYS = (5.0, 10.0, 20.0, 40.0, 60.0)


class _StartupNoise(logging.Filter):
    """discord.py's start-up lines that our own say better, and its warnings that PyNaCl and
    davey (voice) are missing: this bot never speaks."""

    NOISE = (
        "voice will NOT be supported",
        "logging in using static token",
        "has connected to Gateway",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(phrase in message for phrase in self.NOISE)


class _OneLineReconnects(logging.Filter):
    """discord.py logs each gateway reconnect with a traceback; one line says enough."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith("Attempting a reconnect"):
            exc = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({_reason(exc) if exc else 'unknown error'})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


def configure_logging(level: str) -> None:
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise ConfigError(f"[logging] level {level!r} is not a logging level.")
    logging.basicConfig(
        level=numeric,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # Secrecy: these libraries' DEBUG lines carry payloads (gateway events with DM text and
    # button custom_ids, REST bodies with receipts, SQL rows): never below INFO.
    for name in QUIET_AT_DEBUG:
        logging.getLogger(name).setLevel(max(numeric, logging.INFO))
    for name in QUIET_BELOW_WARNING:
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
    for name in ("discord.client", "discord.shard", "discord.gateway"):
        logger = logging.getLogger(name)
        for kind in (_StartupNoise, _OneLineReconnects):
            if not any(isinstance(f, kind) for f in logger.filters):
                logger.addFilter(kind())


def run_bot(config_path: str | None) -> int:
    """Run the bot until SIGTERM/SIGINT; 0 on a clean stop, 2 on a usage error (bad config,
    no token, a token or intents Discord refuses), 1 when the database cannot be used."""
    try:
        settings = load_settings(config_path)
    except ConfigError as exc:
        print(f"duelbot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return EXIT_USAGE
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


def safe_url(url: str) -> str:
    """A database URL fit for a log line: the password hidden."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(an unreadable database URL)"


def _reason(exc: BaseException) -> str:
    """One line on why: the exception's own words, without its traceback."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


async def prepare_database(settings: Settings) -> bool:
    """Bring the database to the head revision and say so in one line; False (one line on
    why) when it cannot be reached or migrated."""
    from bot.db import migrate

    where = safe_url(settings.database.url)
    try:
        before = await migrate.current_revision(settings)
        await migrate.upgrade(settings)
        after = await migrate.current_revision(settings)
    except Exception as exc:
        message = _reason(exc)
        if "Can't locate revision" in message:
            log.error(
                "Database %s is at a revision this duelbot does not know (a newer duelbot "
                "migrated it?): %s. Run the newer duelbot, or restore a backup.", where, message
            )
        else:
            log.error("Database %s cannot be used: %s", where, message)
        return False
    if before == after:
        log.info("Database %s at revision %s (up to date)", where, after)
    else:
        log.info("Database %s at revision %s (upgraded from %s)", where, after,
                 before or "an empty database")
    return True


def _shards_text(settings: Settings) -> str:
    count, ids = settings.discord.shard_count, settings.discord.shard_ids
    if count is None:
        return "one connection (no sharding)"
    return f"{count} shard(s)" + (f", this process runs {list(ids)}" if ids else "")


class _Retry(Exception):
    """Discord could not be reached at start; try again after a delay."""


async def serve(settings: Settings, token: str) -> int:
    from bot.db.engine import make_database

    if not await prepare_database(settings):
        return EXIT_FAILED
    log.info(
        "Discord at %s (gateway %s), %s",
        settings.discord.api_base_url, settings.discord.gateway_url, _shards_text(settings),
    )
    db = make_database(settings.database.url, echo=settings.database.echo)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        attempt = 0
        while True:
            try:
                return await _run_client(settings, token, db, stop)
            except _Retry as exc:
                delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
                attempt += 1
                log.warning("Discord cannot be reached: %s; retrying in %.0f s", exc, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=delay)
                if stop.is_set():
                    log.info("Stopped before Discord could be reached")
                    return EXIT_OK
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await db.dispose()


async def _run_client(settings: Settings, token: str, db: Any, stop: asyncio.Event) -> int:
    """One client from login to close: the exit status, or _Retry when Discord could not be
    reached before the bot was ever ready."""
    import aiohttp
    import discord

    from bot.discord.client import create_bot
    from bot.services.container import Services

    services = Services.create(db, settings.duels)
    bot = create_bot(services, settings)

    async def connected() -> None:
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
                      _reason(exc))
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
                raise _Retry(f"{settings.discord.api_base_url}: {_reason(exc)}") from None
            log.error("The Discord connection failed: %s", _reason(exc))
            return EXIT_FAILED
        except Exception:
            log.exception("The bot stopped on an error")
            return EXIT_FAILED
        if not stop.is_set():
            log.error("The Discord connection ended unexpectedly")
            return EXIT_FAILED
    return EXIT_OK


def main() -> int:
    try:
        from bot.cli import main as cli_main
    except ImportError:
        return run_bot(None)
    return int(cli_main() or 0)


if __name__ == "__main__":
    raise SystemExit(main())
