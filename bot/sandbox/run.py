"""`duelbot sandbox`: start the stand-in and its rehearsal server, serve the page, and run the
bot exactly as `duelbot run` does (bot.cli.run.serve), only pointed at the stand-in."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from aiohttp import web

from bot.bootstrap import configure_logging, reason, safe_url
from bot.cli.run import serve
from bot.config import (
    ConfigError,
    DatabaseSettings,
    DiscordSettings,
    Settings,
    WorkerSettings,
)

#: The stand-in accepts this token and no other (it is no secret: nothing real behind it).
SANDBOX_TOKEN = "sandbox-token-not-a-secret"
HOST = "127.0.0.1"
EXIT_OK = 0
EXIT_USAGE = 2


def sandbox_settings(api_base_url: str, gateway_url: str, database_url: str) -> Settings:
    """The settings of a rehearsal: the stand-in's endpoints, the given database, and
    workers that poll often so the page updates at once. config.toml and DUELBOT_* are not
    read, so a sandbox never touches a real database by accident."""
    return replace(
        Settings(),
        database=DatabaseSettings(url=database_url),
        discord=DiscordSettings(api_base_url=api_base_url, gateway_url=gateway_url),
        workers=WorkerSettings(outbox_poll_seconds=0.2, scheduler_poll_seconds=1.0),
    )


def main(args: argparse.Namespace) -> int:
    """Run until Ctrl-C or SIGTERM: 0 on a clean stop, 2 when the port is taken."""
    try:
        configure_logging(os.environ.get("DUELBOT_LOG_LEVEL") or "INFO")
    except ConfigError as exc:
        print(f"duelbot sandbox: DUELBOT_LOG_LEVEL: {exc}", file=sys.stderr)
        return EXIT_USAGE
    workdir = Path(tempfile.mkdtemp(prefix="duelbot-sandbox-"))
    database_url = args.database or f"sqlite+aiosqlite:///{workdir / 'sandbox.db'}"
    os.environ.setdefault("DUELBOT_HEARTBEAT_FILE", str(workdir / "heartbeat"))
    try:
        return asyncio.run(_sandbox(args.port, database_url, keep=args.database is not None))
    except KeyboardInterrupt:  # Ctrl-C before the bot's own signal handlers were in place
        return EXIT_OK
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


async def _sandbox(port: int, database_url: str, *, keep: bool) -> int:
    from bot.sandbox.api import SandboxApi
    from bot.sandbox.world import populate
    from bot.standin import FakeDiscord

    # Never the password: stdout and logs end up in terminals, CI logs and bug reports.
    where = safe_url(database_url) if keep else "a temporary SQLite file, deleted on exit"
    if keep and (refused := await _refuse_occupied(database_url, where)) is not None:
        print(refused, file=sys.stderr)
        return EXIT_USAGE
    fake = FakeDiscord(token=SANDBOX_TOKEN, bot_name="DuelBot")
    await fake.start()
    runner: web.AppRunner | None = None
    api: SandboxApi | None = None
    try:
        api = SandboxApi(fake, populate(fake))
        # A page still open in a browser holds a long-poll: stop without waiting for it.
        runner = web.AppRunner(api.app(), access_log=None, handle_signals=False,
                               shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, HOST, port)
        try:
            await site.start()
        except OSError as exc:
            print(
                f"duelbot sandbox: cannot listen on {HOST}:{port} ({exc.strerror or exc}); "
                f"choose a free one: make sandbox PORT={port + 1} (or duelbot sandbox --port "
                f"{port + 1}; --port 0 picks one)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        bound = _bound_port(site) or port
        api.guard.listening_on(bound)
        print(f"duelbot sandbox: open http://{HOST}:{bound} (Ctrl-C stops it)", flush=True)
        print(f"duelbot sandbox: database: {where}", flush=True)
        settings = sandbox_settings(fake.api_base_url, fake.gateway_url, database_url)
        return await serve(settings, fake.token)
    finally:
        if api is not None:
            api.closing.set()
        if runner is not None:
            await runner.cleanup()
        await fake.stop()


async def _refuse_occupied(database_url: str, where: str) -> str | None:
    """One line when ``--database`` cannot be used: it holds rows already (another server's,
    e.g. a live bot's database: the sandbox's workers would act on them) or cannot be read.
    Read only; it runs before anything (a migration included) touches the database."""
    from bot.sandbox.database import existing_rows, refusal

    try:
        found = await existing_rows(database_url)
    except Exception as exc:
        return f"duelbot sandbox: --database {where} cannot be read: {reason(exc)}"
    return None if found is None else refusal(where, found)


def _bound_port(site: web.TCPSite) -> int | None:
    server = site._server
    sockets = getattr(server, "sockets", None) or []
    return int(sockets[0].getsockname()[1]) if sockets else None
