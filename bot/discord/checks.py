"""The one place that maps Discord roles and permissions to commander and admin.

Admins: Manage Server, or the configured admin role. Commanders: admins, or the configured
commander role (rule 2.14 lets "the DDA Commander or Admin" administer).

The cogs use the decorators, which pair Discord's default (who sees the command: Manage
Server) with the check that decides at run time::

    @round.command(name="close")
    @commander_only()
    async def round_close(self, interaction: discord.Interaction[DuelBot], ...) -> None:

Why the check defers: Discord drops an interaction that is not answered within 3 seconds,
and the check reads the server's settings from the database (the commander role), which
can be slow. So the check's first step is the ephemeral "thinking" answer; the command body
then answers with a followup, and a refusal reaches the caller as an ephemeral followup
(errors.py). app_commands checks run before the options are converted and before the
body, so this keeps "answer first, then check" for every checked command. A default
permission is only a default (a server can change it), and Discord applies it to top-level
commands only: a group's default is set on the group; the check is what is enforced.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.discord.client import DuelBot
from bot.i18n.context import _
from bot.services.views import SettingsView

log = logging.getLogger(__name__)

T = TypeVar("T")
MANAGE_SERVER = discord.Permissions(manage_guild=True)


class Refused(app_commands.CheckFailure):
    """A permission refusal; the message says what is needed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CheckCrashed(app_commands.CheckFailure):
    """A check that could not decide (e.g. the database is unavailable). discord.py hands
    only AppCommandErrors raised by checks to the error handler, which answers for
    ``original``."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


async def answer_privately(interaction: discord.Interaction[DuelBot]) -> None:
    """Answer Discord at once (ephemeral "thinking"); the command follows up."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


def has_manage_server(interaction: discord.Interaction[DuelBot]) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


async def holds_role(interaction: discord.Interaction[DuelBot], role_id: int | None) -> bool:
    """Whether the caller has the role. Member.roles lists only roles in the bot's cache,
    so a role the cache does not know (the server not cached yet, a role event not seen)
    is looked up on Discord: the server with its roles, then the member."""
    member = interaction.user
    if role_id is None or not isinstance(member, discord.Member):
        return False
    if member.get_role(role_id) is not None:
        return True
    if member.guild.get_role(role_id) is not None:
        return False  # the cache knows the role, and the member does not have it
    try:
        guild = await interaction.client.fetch_guild(member.guild.id)
        fresh = await guild.fetch_member(member.id)
    except discord.HTTPException as exc:
        log.warning(
            "Cannot look up the roles of user %s in server %s (HTTP %s)",
            member.id,
            member.guild.id,
            exc.status,
        )
        return False
    return fresh.get_role(role_id) is not None


async def is_admin(interaction: discord.Interaction[DuelBot], settings: SettingsView) -> bool:
    return has_manage_server(interaction) or await holds_role(interaction, settings.admin_role_id)


async def is_commander(interaction: discord.Interaction[DuelBot], settings: SettingsView) -> bool:
    return await is_admin(interaction, settings) or await holds_role(
        interaction, settings.commander_role_id
    )


async def require_guild(interaction: discord.Interaction[DuelBot]) -> int:
    if interaction.guild_id is None:
        raise Refused(_("This command works in a server, not in direct messages."))
    return interaction.guild_id


def commander_refusal(settings: SettingsView) -> str:
    """Why a member who is no commander is refused: which roles would do, as set."""
    commander, admin = settings.commander_role_id, settings.admin_role_id
    if commander is not None and admin is not None:
        return _(
            "Only a commander can do this: you need the <@&{commander_role}> role, the "
            "<@&{admin_role}> role or the Manage Server permission.",
            commander_role=commander,
            admin_role=admin,
        )
    if commander is not None:
        return _(
            "Only a commander can do this: you need the <@&{commander_role}> role, the admin "
            "role or the Manage Server permission.",
            commander_role=commander,
        )
    if admin is not None:
        return _(
            "Only a commander can do this: you need the commander role (none is set yet), "
            "the <@&{admin_role}> role or the Manage Server permission.",
            admin_role=admin,
        )
    return _(
        "Only a commander can do this: you need the commander role (none is set yet), the "
        "admin role or the Manage Server permission."
    )


def admin_refusal(settings: SettingsView) -> str:
    """Why a member who is no admin is refused."""
    if settings.admin_role_id is not None:
        return _(
            "Only an admin can change the server's duel settings: you need the Manage Server "
            "permission or the <@&{admin_role}> role.",
            admin_role=settings.admin_role_id,
        )
    return _(
        "Only an admin can change the server's duel settings: you need the Manage Server "
        "permission or the admin role (none is set)."
    )


async def require_commander(interaction: discord.Interaction[DuelBot]) -> SettingsView:
    guild_id = await require_guild(interaction)
    settings = await interaction.client.services.settings.get(guild_id)
    if not await is_commander(interaction, settings):
        raise Refused(commander_refusal(settings))
    return settings


async def require_admin(interaction: discord.Interaction[DuelBot]) -> SettingsView:
    guild_id = await require_guild(interaction)
    settings = await interaction.client.services.settings.get(guild_id)
    if not await is_admin(interaction, settings):
        raise Refused(admin_refusal(settings))
    return settings


def _answered_then(
    require: Callable[[discord.Interaction[DuelBot]], Awaitable[SettingsView]],
) -> Callable[[discord.Interaction[DuelBot]], Coroutine[Any, Any, bool]]:
    """A check predicate: answer Discord, then ``require`` (which raises Refused)."""

    async def predicate(interaction: discord.Interaction[DuelBot]) -> bool:
        await answer_privately(interaction)
        try:
            await require(interaction)
        except app_commands.AppCommandError:
            raise
        except Exception as exc:
            raise CheckCrashed(exc) from exc
        return True

    return predicate


def _default_and_check(
    require: Callable[[discord.Interaction[DuelBot]], Awaitable[SettingsView]],
) -> Callable[[T], T]:
    check = app_commands.check(_answered_then(require))
    default = app_commands.default_permissions(MANAGE_SERVER)

    def decorator(command: T) -> T:
        return check(default(command))

    return decorator


def commander_only() -> Callable[[T], T]:
    """Commanders only (the commander role, the admin role or Manage Server); shown by
    default to Manage Server. The check answers Discord first (see the module doc)."""
    return _default_and_check(require_commander)


def admin_only() -> Callable[[T], T]:
    """Admins only (the admin role or Manage Server); shown by default to Manage Server.
    The check answers Discord first (see the module doc)."""
    return _default_and_check(require_admin)
