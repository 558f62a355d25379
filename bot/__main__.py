"""``python -m bot`` and ``duelbot run``: config -> logging -> migrations -> engine ->
services -> bot.start(token). The token comes from $DISCORD_TOKEN only, never from a file."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys

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


def run_bot(config_path: str | None) -> int:
    """Run the bot until SIGTERM/SIGINT; 0 on a clean stop, 2 on a usage error."""
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
    try:
        return asyncio.run(serve(settings, token))
    except KeyboardInterrupt:
        return EXIT_OK


async def serve(settings: Settings, token: str) -> int:
    import discord

    from bot.db import migrate
    from bot.db.engine import make_database
    from bot.discord.client import create_bot
    from bot.services import Services

    try:
        await migrate.upgrade(settings)
    except Exception as exc:
        log.error("Could not apply database migrations: %s", exc)
        return EXIT_FAILED

    db = make_database(settings.database.url, echo=settings.database.echo)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        services = Services.create(db, settings.duels)
        bot = create_bot(services, settings)
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
                log.error("Discord refused the token in DISCORD_TOKEN")
                return EXIT_FAILED
            except discord.PrivilegedIntentsRequired as exc:
                log.error("Discord refused the gateway intents: %s", exc)
                return EXIT_FAILED
            except Exception:
                log.exception("The bot stopped on an error")
                return EXIT_FAILED
            if not stop.is_set():
                log.error("The Discord connection ended unexpectedly")
                return EXIT_FAILED
        return EXIT_OK
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await db.dispose()


def main() -> int:
    try:
        from bot.cli import main as cli_main
    except ImportError:
        return run_bot(None)
    return int(cli_main() or 0)


if __name__ == "__main__":
    raise SystemExit(main())
