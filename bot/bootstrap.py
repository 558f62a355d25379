"""Start-up, written once (issue 25): settings, logging, the database and every service.

`duelbot run` (bot/cli/run.py), `duelbot sandbox`, `duelbot sync-commands` and each
subcommand that reads the database (export, archive, verify --duel, ratings rebuild) start
here. Nothing else wires the application: package ``__init__`` files hold no wiring.
The Discord client itself is built by the command that runs it (bot/cli/run.py).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.config import ConfigError, Settings, load_settings
from bot.db import migrate
from bot.db.engine import make_database
from bot.services.container import Services

log = logging.getLogger("bot")

QUIET_AT_DEBUG = (
    "discord.gateway",
    "discord.http",
    "discord.webhook",
    "discord.state",
    "aiosqlite",
    "asyncpg",
)

#: Start-up chatter that says nothing to whoever runs the bot: alembic's plugin set-up and
#: per-migration lines (we log one line with the revision instead).
QUIET_BELOW_WARNING = ("alembic",)


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
            record.msg = f"{record.getMessage()} ({reason(exc) if exc else 'unknown error'})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


NO_TOKEN = (
    "duelbot: set DISCORD_TOKEN to the bot token (from the Discord developer portal); "
    "it is never read from files."
)


def settings_and_token(config_path: str | None) -> tuple[Settings, str] | None:
    """The settings and the bot token, for the commands that talk to Discord (`run`,
    `sync-commands`); None, after one line on stderr, when the config is bad or
    DISCORD_TOKEN is not set (the caller exits 2)."""
    try:
        settings = load_settings(config_path)
    except ConfigError as exc:
        print(f"duelbot: {exc}", file=sys.stderr)
        return None
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return None
    return settings, token


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


def safe_url(url: str) -> str:
    """A database URL fit for a log line: the password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(an unreadable database URL)"


def reason(exc: BaseException) -> str:
    """One line on why: the exception's own words, without its traceback."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


async def prepare_database(settings: Settings) -> bool:
    """Bring the database to the head revision and say so in one line; False (one line on
    why) when it cannot be reached or migrated."""
    where = safe_url(settings.database.url)
    try:
        before = await migrate.current_revision(settings)
        await migrate.upgrade(settings)
        after = await migrate.current_revision(settings)
    except Exception as exc:
        message = reason(exc)
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




@asynccontextmanager
async def open_services(settings: Settings, *, echo: bool = False) -> AsyncIterator[Services]:
    """Every service over the configured database, disposed on the way out. The engine
    connects lazily: nothing is opened until a service runs a query. ``echo``: SQL logging
    ([database] echo), which only the running bot honours."""
    db = make_database(settings.database.url, echo=echo)
    try:
        yield Services.create(db, settings.duels)
    finally:
        await db.dispose()


__all__ = [
    "ConfigError",
    "Settings",
    "configure_logging",
    "load_settings",
    "open_services",
    "prepare_database",
    "reason",
    "safe_url",
]
