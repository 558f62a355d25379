"""Persistent move buttons: a DynamicItem whose custom_id carries duel, round and move, so a
button sent days ago still works after a restart (registered with add_dynamic_items)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.discord import flood
from bot.discord.client import DuelBot, services_of
from bot.discord.errors import reply_ephemeral, user_message
from bot.presentation.discord_posts import button_label
from bot.presentation.discord_replies import receipt_text

# Move ids: rule 2.14's words, and multi-step ids such as FoEQ's
# ``stake=death;style=quick;slot=0`` or ``reroll:trick:1`` (custom ids stay under 100). A
# duel number of any length matches: the services answer one out of range as unknown.
TEMPLATE = (
    r"duelbot:move:(?P<duel_id>[0-9]{1,24}):(?P<round_no>[0-9]{1,6}):"
    r"(?P<move>[a-z0-9_=;:]{1,48})"
)


class MoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    def __init__(self, duel_id: int, round_no: int, move: str, label: str | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=button_label(label or move.replace("_", " ").title()),
                style=discord.ButtonStyle.primary,
                custom_id=f"duelbot:move:{duel_id}:{round_no}:{move}",
            )
        )
        self.duel_id = duel_id
        self.round_no = round_no
        self.move = move

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> MoveButton:
        label = getattr(item, "label", None)
        return cls(int(match["duel_id"]), int(match["round_no"]), match["move"], label)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py types an item's callback for any client; this bot's clicks are DuelBot's.
        await self.clicked(interaction)

    async def clicked(self, interaction: discord.Interaction[DuelBot]) -> None:
        if await flood.refuse_interaction(interaction, interaction.client.flood):
            return
        # Answer first: the database may be busy, Discord gives us 3 seconds.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            receipt = await services_of(interaction.client).duels.submit_move(
                user_id=interaction.user.id,
                move=self.move,
                via="dm_button",
                duel_id=self.duel_id,
                round_no=self.round_no,
                guild_id=interaction.guild_id,
            )
        except Exception as exc:  # every expected error has a user message
            message = user_message(exc)
            if message is None:
                raise
            await reply_ephemeral(interaction, message)
            return
        await interaction.followup.send(receipt_text(receipt), ephemeral=True)
