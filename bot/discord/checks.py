"""The one place that maps Discord roles and permissions to commander and admin.

Admins: Manage Server, or the configured admin role. Commanders: admins, or the configured
commander role (rule 2.14 lets "the DDA Commander or Admin" administer). Slash command groups
also carry default_permissions (Manage Server) as Discord-side defaults; this module is what
is enforced at run time.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord.client import services_of
from bot.services.views import SettingsView


class Refused(app_commands.CheckFailure):
    """A permission refusal; the message says what is needed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _role_ids(member: discord.Member) -> set[int]:
    # Raw ids from the interaction payload, so a role missing from the cache still counts.
    return {int(r) for r in getattr(member, "_roles", [])} | {r.id for r in member.roles}


def has_manage_server(interaction: discord.Interaction) -> bool:
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def is_admin(interaction: discord.Interaction, settings: SettingsView) -> bool:
    member = interaction.user
    if has_manage_server(interaction):
        return True
    return (
        isinstance(member, discord.Member)
        and settings.admin_role_id is not None
        and settings.admin_role_id in _role_ids(member)
    )


def is_commander(interaction: discord.Interaction, settings: SettingsView) -> bool:
    member = interaction.user
    if is_admin(interaction, settings):
        return True
    return (
        isinstance(member, discord.Member)
        and settings.commander_role_id is not None
        and settings.commander_role_id in _role_ids(member)
    )


def _role_text(role_id: int | None, fallback: str) -> str:
    return f"the <@&{role_id}> role" if role_id is not None else fallback


async def require_guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise Refused("This command works in a server, not in direct messages.")
    return interaction.guild_id


async def require_commander(interaction: discord.Interaction) -> SettingsView:
    guild_id = await require_guild(interaction)
    if has_manage_server(interaction):  # no database read needed
        return await services_of(interaction.client).settings.get(guild_id)
    settings = await services_of(interaction.client).settings.get(guild_id)
    if not is_commander(interaction, settings):
        raise Refused(
            "Only a commander can do this: you need "
            + _role_text(settings.commander_role_id, "the commander role (none is set yet)")
            + ", "
            + _role_text(settings.admin_role_id, "the admin role")
            + " or the Manage Server permission."
        )
    return settings


async def require_admin(interaction: discord.Interaction) -> SettingsView:
    guild_id = await require_guild(interaction)
    settings = await services_of(interaction.client).settings.get(guild_id)
    if not is_admin(interaction, settings):
        raise Refused(
            "Only an admin can change the server's duel settings: you need the Manage Server "
            "permission or "
            + _role_text(settings.admin_role_id, "the admin role (none is set)")
            + "."
        )
    return settings
