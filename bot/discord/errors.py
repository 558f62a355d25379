"""The central error handler: every refusal and failure answers the user ephemerally.
Loaded as an extension (bot/discord/client.py COGS), which installs it on the bot's tree.

Service errors carry structured fields and no command syntax; ``render_domain_error`` adds
what the user can do next in Discord's words (slash commands, the DM syntax)."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.checks import CheckCrashed, Refused
from bot.discord.client import DuelBot
from bot.i18n.context import _
from bot.i18n.translate import N_
from bot.rules.errors import RulesError
from bot.services.errors import DomainError, NextStep, Unavailable
from bot.services.profiles import stats_ruleset

log = logging.getLogger(__name__)

UNAVAILABLE = N_(
    "The duel database is unavailable right now, so nothing was recorded. "
    "Please try again in a minute."
)
UNEXPECTED = N_(
    "Something went wrong on duelbot's side; the error was logged. Please try again."
)


# What the user can do next, in Discord's words; the fields come from the error (and
# ``stats_fields``: the quick sheet's options as /stats set takes them).
NEXT_STEP_HINTS: dict[NextStep, str] = {
    NextStep.CLOSE_ROUND: N_("`/round close duel:{duel_id}` closes it."),
    NextStep.LIST_DUELS: N_("`/duel list` shows this server's duels."),
    NextStep.LIST_OWN_ROUNDS: N_("Send `duels` here to see your open rounds."),
    NextStep.SET_SHEET: N_(
        "A commander sets it with `/sheet set member:<member> ruleset:{ruleset} fields:...`."
    ),
    NextStep.SET_STATS: N_(
        "A commander sets them with `/stats set member:<member> {stats_fields}`."
    ),
    NextStep.USE_SHEET: N_("Use `/sheet`."),
    NextStep.NAME_THE_DUEL: N_("Put the duel number first, for example `#{duel_id} evade`."),
    NextStep.ODDS_OFFLINE: N_(
        "`duelbot odds --ruleset {ruleset} --help` computes the odds of chosen moves exactly."
    ),
}


def stats_fields() -> str:
    """The quick sheet's options as typed after /stats set: ``str:<number> agi:<number>``."""
    return " ".join(f"{name}:<number>" for name in stats_ruleset().quick_sheet_fields)


#: A value Discord could not turn into an option's type, per type; else TRANSFORM_OTHER.
TRANSFORM_REFUSALS: dict[discord.AppCommandOptionType, str] = {
    discord.AppCommandOptionType.string: N_("{value} is not a valid text here."),
    discord.AppCommandOptionType.integer: N_("{value} is not a valid whole number here."),
    discord.AppCommandOptionType.number: N_("{value} is not a valid number here."),
    discord.AppCommandOptionType.boolean: N_("{value} is not a valid yes or no here."),
    discord.AppCommandOptionType.user: N_("{value} is not a valid member here."),
    discord.AppCommandOptionType.channel: N_("{value} is not a valid channel here."),
    discord.AppCommandOptionType.role: N_("{value} is not a valid role here."),
}
TRANSFORM_OTHER = N_("{value} is not a valid value here.")


def render_domain_error(error: DomainError) -> str:
    """A service error as the member reads it: its message, then the Discord hint, in the
    current language (the message was written in it where the error was raised)."""
    if isinstance(error, Unavailable):
        return _(UNAVAILABLE)
    if error.next_step is None:
        return error.message
    hint = _(
        NEXT_STEP_HINTS[error.next_step],
        duel_id=error.duel_id,
        ruleset=error.ruleset,
        stats_fields=stats_fields(),
    )
    return f"{error.message} {hint}"


def user_message(error: BaseException) -> str | None:
    """The text to show for an expected error, or None for a bug."""
    if isinstance(
        error, (app_commands.CommandInvokeError, commands.CommandInvokeError, CheckCrashed)
    ):
        error = error.original
    if isinstance(error, DomainError):
        return render_domain_error(error)
    if isinstance(error, (Refused, RulesError)):
        return error.message
    if isinstance(error, app_commands.NoPrivateMessage):
        return _("This command works in a server, not in direct messages.")
    if isinstance(error, app_commands.CommandOnCooldown):
        return _("Slow down: try again in {seconds:.0f} s.", seconds=error.retry_after)
    if isinstance(error, app_commands.TransformerError):
        refusal = TRANSFORM_REFUSALS.get(error.type, TRANSFORM_OTHER)
        return _(refusal, value=repr(error.value))
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or _("You are not allowed to use this command.")
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
        message = _(UNEXPECTED)
    await reply_ephemeral(interaction, message)


def install_error_handler(bot: DuelBot) -> None:
    bot.tree.error(on_app_command_error)


async def setup(bot: DuelBot) -> None:
    install_error_handler(bot)
