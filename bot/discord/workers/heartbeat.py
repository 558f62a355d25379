"""The heartbeat: while the gateway is connected, touch the heartbeat file every 30 s
(bot/discord/health.py; ``duelbot health`` and the Docker HEALTHCHECK read it)."""

from __future__ import annotations

import asyncio
import logging

from discord.ext import commands

from bot.discord import health
from bot.discord.client import DuelBot
from bot.discord.workers.loops import stop_worker

log = logging.getLogger(__name__)


class Heartbeat(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self._connected = False
        self._task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="duelbot-heartbeat")

    async def cog_unload(self) -> None:
        task, self._task = self._task, None
        await stop_worker(task)

    @commands.Cog.listener()
    async def on_connect(self) -> None:
        self._connected = True

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        self._connected = True
        self.beat()

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        self._connected = True

    @commands.Cog.listener()
    async def on_disconnect(self) -> None:
        self._connected = False

    def beat(self) -> None:
        if not self._connected or self.bot.is_closed():
            return
        try:
            health.beat()
        except OSError as exc:
            log.warning("Could not write the heartbeat file: %s", exc)

    async def _loop(self) -> None:
        while True:
            self.beat()
            await asyncio.sleep(health.INTERVAL_SECONDS)


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Heartbeat(bot))
