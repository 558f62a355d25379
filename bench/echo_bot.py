"""The baseline bot of bench.discord_bench: discord.py with no database and no logic.

It answers a DM with "ok" (or, for "prompt", with a message carrying one button), and a
button click with a deferred ephemeral answer plus a followup, as duelbot does. What it
costs is the floor that discord.py, aiohttp and the fake impose on every figure.

    DISCORD_TOKEN=... DUELBOT_DISCORD_API_BASE_URL=... DUELBOT_DISCORD_GATEWAY_URL=... \\
        python -m bench.echo_bot
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl


class EchoBot(discord.Client):
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot:
            return
        if message.content == "prompt":
            view = discord.ui.View(timeout=None)
            view.add_item(discord.ui.Button(label="Go", custom_id=f"echo:{message.author.id}"))
            await message.channel.send("pick", view=view)
            return
        await message.channel.send("ok")

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type != discord.InteractionType.component:
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send("ok", ephemeral=True)


async def main() -> None:
    discord.http.Route.BASE = os.environ["DUELBOT_DISCORD_API_BASE_URL"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        os.environ["DUELBOT_DISCORD_GATEWAY_URL"]
    )
    intents = discord.Intents.none()
    intents.guilds = True
    intents.dm_messages = True
    client = EchoBot(intents=intents, max_messages=200)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with client:
        runner = asyncio.create_task(client.start(os.environ["DISCORD_TOKEN"]))
        await stop.wait()
        await client.close()
        await runner


if __name__ == "__main__":
    asyncio.run(main())
