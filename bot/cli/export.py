"""`duelbot export` (a stored duel as Markdown, BBCode, JSON or its archive page) and
`duelbot archive` (a static site of a server's duels), from the bot's database."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from bot.archive.site import write_archive
from bot.cli.common import EXIT_OK, InputError, _with_services
from bot.exports.formats import EXPORT_FORMATS, duel_json, export_duel, export_html
from bot.services.ladder_views import LadderSection
from bot.services.views import DuelHistory

if TYPE_CHECKING:
    from bot.services.container import Services


def _stored_duel(args: argparse.Namespace) -> DuelHistory:
    """The duel's export read model from the bot's database (`--duel N`)."""
    return _with_services(args, lambda s: s.exports.duel_export(args.duel))


def cmd_export(args: argparse.Namespace) -> int:
    history = _stored_duel(args)
    text = export_html(history) if args.format == "html" else export_duel(history, args.format)
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return EXIT_OK


def _guild_exports(
    args: argparse.Namespace,
) -> tuple[int, list[DuelHistory], list[LadderSection]]:
    """One server's duels and ladders from the bot's database (`--guild ID`, or the only
    server)."""

    async def fetch(services: Services) -> tuple[int, list[DuelHistory], list[LadderSection]]:
        guilds = [args.guild] if args.guild is not None else await services.exports.guild_ids()
        if len(guilds) != 1:
            known = ", ".join(str(g) for g in guilds)
            raise InputError(
                f"give --guild ID: the database holds the duels of several servers ({known})"
                if guilds
                else "the database holds no duels yet"
            )
        histories = await services.exports.guild_exports(guilds[0])
        if not histories:
            raise InputError(f"server {guilds[0]} has no duels in this database")
        return guilds[0], histories, await services.ratings.whole_ladders(guilds[0])

    return _with_services(args, fetch)


#: Discord ids are stored as signed 64-bit integers (BIGINT); nothing larger can name a server.
_MAX_DISCORD_ID = 2**63 - 1


def _guild_id(text: str) -> int:
    """``--guild``: a Discord server id. Checked here, before any query: a number beyond 64
    bits would overflow the SQLite and PostgreSQL drivers (a traceback, issue 23)."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or not 1 <= value <= _MAX_DISCORD_ID:
        shown = text if len(text) <= 30 else text[:30] + "…"
        raise argparse.ArgumentTypeError(
            f"a server id is a whole number from 1 to {_MAX_DISCORD_ID}, not {shown!r}"
        )
    return value


def cmd_archive(args: argparse.Namespace) -> int:
    guild_id, histories, ladders = _guild_exports(args)
    try:
        written = write_archive(
            args.dir,
            [duel_json(h) for h in histories],
            title=f"Duels of server {guild_id}",
            ladders=ladders,
        )
    except OSError as exc:
        raise InputError(f"cannot write the archive to {args.dir}: {exc.strerror or exc}") from None
    print(
        f"{len(histories)} duel page(s), {written[0]} and a ladder page written "
        f"(server {guild_id})"
    )
    return EXIT_OK



def add_parsers(sub: Any) -> None:
    """`export` and `archive`."""
    exp = sub.add_parser(
        "export",
        help="export a stored duel as Markdown, BBCode or JSON (what /duel export does)",
        description="Export a duel from the bot's database (config file or "
        "DUELBOT_DATABASE_URL), as /duel export does in Discord. The JSON is the versioned "
        "format of docs/export-format.md, which `duelbot verify FILE` checks.",
    )
    exp.add_argument("--duel", type=int, required=True, metavar="N", help="the duel number")
    exp.add_argument(
        "--format",
        choices=(*EXPORT_FORMATS, "html"),
        default="json",
        help="default: json; html is the archive page that verifies every roll in a browser",
    )
    exp.add_argument(
        "--output", metavar="FILE", default=None, help="write to FILE (default: stdout)"
    )
    exp.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    exp.set_defaults(func=cmd_export)

    arc = sub.add_parser(
        "archive",
        help="write a static site of a server's duels: an index and one verifying page each",
        description="Write DIR/index.html and one self-contained page per duel of a server "
        "(docs/archive.md), from the bot's database. Open rounds stay sealed.",
    )
    arc.add_argument("dir", metavar="DIR", help="the folder to write (created if missing)")
    arc.add_argument(
        "--guild",
        type=_guild_id,
        default=None,
        metavar="ID",
        help="the server (needed when several)",
    )
    arc.add_argument("--config", metavar="FILE", default=None, help="config TOML (database)")
    arc.set_defaults(func=cmd_archive)
