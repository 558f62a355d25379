"""The central error handler: every refusal and failure answers the user ephemerally.
Loaded as an extension (bot/discord/client.py COGS), which installs it on the bot's tree."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.db.engine import DatabaseUnavailable
from bot.discord.checks import CheckCrashed, Refused
from bot.discord.client import DuelBot
from bot.rules.errors import RulesError
from bot.services.errors import DomainError

log = logging.getLogger(__name__)

UNAVAILABLE = (
    "The duel database is unavailable right now, so nothing was recorded. "
    "Please try again in a minute."
)
UNEXPECTED = "Something went wrong on duelbot's side; the error was logged. Please try again."


def user_message(error: BaseException) -> str | None:
    """The text to show for an expected error, or None for a bug."""
    if isinstance(
        error, (app_commands.CommandInvokeError, commands.CommandInvokeError, CheckCrashed)
    ):
        error = error.original
    if isinstance(error, (DomainError, Refused, RulesError)):
        return error.message
    if isinstance(error, DatabaseUnavailable):
        return UNAVAILABLE
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command works in a server, not in direct messages."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.TransformerError):
        return f"{error.value!r} is not a valid {error.type.name.lower()} here."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You are not allowed to use this command."
    return None


async def reply_ephemeral(interaction: discord.Interaction[DuelBot], text: str) -> None:
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("Could not deliver an error message for interaction %s", interaction.id)


async def on_app_command_error(
    interaction: discord.Interaction[DuelBot], error: app_commands.AppCommandError
) -> None:
    message = user_message(error)
    if message is None:
        command = interaction.command.qualified_name if interaction.command else "?"
        log.error("Unexpected error in /%s", command, exc_info=error)
        message = UNEXPECTED
    await reply_ephemeral(interaction, message)


def install_error_handler(bot: DuelBot) -> None:
    bot.tree.error(on_app_command_error)


async def setup(bot: DuelBot) -> None:
    install_error_handler(bot)
