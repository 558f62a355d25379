"""The subcommands that run or look after the bot: `run`, `sync-commands`, `sandbox`,
`db upgrade`, `ratings rebuild` and `health`. Each is implemented in its own module,
imported only when it runs (``_lazy``): the others never load discord.py or the database
driver."""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.common import InputError, _finish, _lazy
from bot.config import ConfigError, load_settings


def cmd_run(args: argparse.Namespace) -> int:
    run_bot = _lazy("bot.cli.run", "run_bot", "run")
    return _finish(run_bot(args.config))


def cmd_sync_commands(args: argparse.Namespace) -> int:
    sync = _lazy("bot.cli.sync_commands", "main", "sync-commands")
    return _finish(sync(args.config))


def cmd_sandbox(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be 0..65535 (0: any free port), not {args.port}")
    return _finish(_lazy("bot.sandbox.run", "main", "sandbox")(args))


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    upgrade = _lazy("bot.db.migrate", "upgrade", "db upgrade")
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    return _finish(upgrade(settings))


def cmd_ratings_rebuild(args: argparse.Namespace) -> int:
    return _finish(_lazy("bot.cli.ratings", "rebuild", "ratings rebuild")(args))


def cmd_health(args: argparse.Namespace) -> int:
    check = _lazy("bot.discord.health", "check", "health")
    return _finish(check())



def add_parsers(sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    """`run`, `sync-commands`, `sandbox` and `db upgrade` (`health` comes last in the help:
    ``add_health_parser``)."""
    run = sub.add_parser("run", help="run the Discord bot")
    run.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    run.set_defaults(func=cmd_run)

    sync = sub.add_parser(
        "sync-commands",
        help="register the slash commands with Discord once, then exit",
        description="Register the slash commands with Discord once (globally, or to\n"
        "[discord] sync_guild_ids) and exit: for a bot run as several processes, run it\n"
        "once per release and set [discord] sync_commands = false on every process (or let\n"
        "only the process that holds shard 0 sync at start). Needs DISCORD_TOKEN.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sync.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    sync.set_defaults(func=cmd_sync_commands)

    sandbox = sub.add_parser(
        "sandbox",
        help="the real bot against a local stand-in for Discord, played in the browser",
        description="Start a local Discord stand-in with one server (a commander, an admin "
        "and three duellists), run the bot against it as `duelbot run` does, and serve a page "
        "at http://127.0.0.1:PORT to act as any of them (docs/sandbox.md). No token, no "
        "Discord account; config.toml is not read.",
    )
    sandbox.add_argument("--port", type=int, default=8080, help="the page's port (default 8080)")
    sandbox.add_argument(
        "--database",
        metavar="URL",
        default=None,
        help="database URL (default: a temporary SQLite file, deleted on exit)",
    )
    sandbox.set_defaults(func=cmd_sandbox)

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="COMMAND", parser_class=parser_class)
    db_sub.required = True
    upgrade = db_sub.add_parser("upgrade", help="apply database migrations")
    upgrade.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    upgrade.set_defaults(func=cmd_db_upgrade)


def add_ratings_parser(sub: Any, parser_class: type[argparse.ArgumentParser]) -> None:
    """`ratings rebuild` (bot/cli/ratings.py)."""
    ratings = sub.add_parser("ratings", help="the ladders: records and ratings")
    ratings_sub = ratings.add_subparsers(
        dest="ratings_command", metavar="COMMAND", parser_class=parser_class
    )
    ratings_sub.required = True
    rebuild = ratings_sub.add_parser(
        "rebuild",
        help="recompute every ladder from the ended duels (docs/ladder.md)",
        description="Replay each ladder (server and ruleset) from its ended duels and store "
        "it; --check only compares (exit 1 when a stored value differs).",
    )
    rebuild.add_argument("--guild", type=int, default=None, help="only this server's ladders")
    rebuild.add_argument("--check", action="store_true", help="compare only, write nothing")
    rebuild.add_argument("--config", metavar="FILE", default=None, help="config TOML file")
    rebuild.set_defaults(func=cmd_ratings_rebuild)


def add_health_parser(sub: Any) -> None:
    health = sub.add_parser("health", help="check that the bot is healthy")
    health.set_defaults(func=cmd_health)
