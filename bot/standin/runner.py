"""Pointing discord.py at the fake, and running a bot against it cleanly."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

import discord
import discord.gateway
import discord.http
import yarl

from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)


@contextlib.contextmanager
def patch_discord(fake: FakeDiscord) -> Iterator[FakeDiscord]:
    """Point discord.py's REST base and default gateway at ``fake``; restore on exit.
    Enter it before creating the client."""
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield fake
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


@contextlib.asynccontextmanager
async def run_bot(
    bot: ClientT,
    fake: FakeDiscord,
    *,
    ready_timeout: float = 10.0,
    fast_ready: bool = True,
) -> AsyncIterator[ClientT]:
    """Start ``bot`` (login, setup_hook, gateway) against ``fake``; yield once it is ready;
    close it and await its task on exit, so no task or session is left pending.

    fast_ready shortens discord.py's guild_ready_timeout (2 s of waiting for more
    GUILD_CREATEs before on_ready) to 0.05 s; or pass guild_ready_timeout= to the client.
    """
    if fake.api_base_url != discord.http.Route.BASE:
        raise RuntimeError(
            "fakediscord: enter patch_discord(fake) (or use the fake_discord fixture) first"
        )
    if fast_ready:
        state = bot._connection
        state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)
    task = asyncio.create_task(bot.start(fake.token), name="fakediscord-bot")
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ready_timeout
        while not bot.is_ready():
            if task.done():
                task.result()  # raises the start() failure
                raise RuntimeError("fakediscord: bot.start() returned before the bot was ready")
            if loop.time() > deadline:
                raise TimeoutError(f"fakediscord: bot not ready after {ready_timeout}s")
            await asyncio.sleep(0.005)
        yield bot
    finally:
        await bot.close()
        try:
            await asyncio.wait_for(task, timeout=10)
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
