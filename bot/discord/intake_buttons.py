"""Persistent move buttons: a DynamicItem whose custom_id carries duel, round and move, so a
button sent days ago still works after a restart.

A click is dispatched straight from its custom_id (:func:`move_click`, one match of the
template; the intake cog listens for component interactions), not through discord.py's
dynamic-item dispatch, which rebuilds a View of every component of the clicked message and
a new item for each click (issue 27: the per-click work the echo bot does not do); the
buttons' view is never registered with discord.py (bot/discord/workers/dm_posts.py stops it
before sending), so a click is taken once. The template is the one the buttons are made
with, so what is sent is what is read back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
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
_CUSTOM_ID = re.compile(TEMPLATE)


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


@dataclass(frozen=True, slots=True)
class MoveClick:
    """A click on a move button, read from its custom_id."""

    duel_id: int
    round_no: int
    move: str

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


def move_click(interaction: discord.Interaction[Any]) -> MoveClick | None:
    """The move button clicked in ``interaction`` (None: not a click on a move button)."""
    if interaction.type is not discord.InteractionType.component:
        return None
    data: Mapping[str, Any] = interaction.data or {}
    custom_id = data.get("custom_id")
    if data.get("component_type") != discord.ComponentType.button.value or not isinstance(
        custom_id, str
    ):
        return None
    return click_of_custom_id(custom_id)


def click_of_custom_id(custom_id: str) -> MoveClick | None:
    """A move button's custom_id read back (None: not one of ours)."""
    match = _CUSTOM_ID.fullmatch(custom_id)
    if match is None:
        return None
    return MoveClick(int(match["duel_id"]), int(match["round_no"]), match["move"])
