"""/odds: the exact odds table for a duel's stats (ephemeral)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.checks import answer_privately
from bot.discord.client import DuelBot, services_of
from bot.discord.cogs.commander import DuelId, duel_autocomplete
from bot.i18n.context import _
from bot.presentation.discord_posts import fighter_text
from bot.presentation.discord_replies import duel_title, odds_text
from bot.rules import registry
from bot.services.errors import InvalidInput
from bot.services.scope import DuelScope
from bot.services.views import DuelView


class Odds(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot

    @app_commands.command(name="odds", description="Exact odds of every move pair in a duel")
    @app_commands.describe(duel="Duel number (default: your own live duel)")
    @app_commands.autocomplete(duel=duel_autocomplete)
    async def odds(
        self, interaction: discord.Interaction[DuelBot], duel: DuelId | None = None
    ) -> None:
        await answer_privately(interaction)
        view = await self._pick(interaction, duel)
        odds = await services_of(self.bot).duels.odds(
            view.id, DuelScope.of_caller(interaction.user.id, interaction.guild_id)
        )
        rules = registry.get_or_none(view.ruleset)
        fighters = _(
            "A: {a}; B: {b}. A's move is named first.",
            a=fighter_text(rules, view.a.sheet),
            b=fighter_text(rules, view.b.sheet),
        )
        embed = discord.Embed(
            title=_("Odds for {duel}", duel=duel_title(view))[:256],
            description=f"{fighters}\n{odds_text(odds)}"[:4096],
        )
        await interaction.followup.send(embed=embed, ephemeral=True)

    async def _pick(self, interaction: discord.Interaction[DuelBot], duel: int | None) -> DuelView:
        """The named duel if the caller may see it (this server's; in a DM, their own),
        else the caller's one live duel (of this server, in a server)."""
        duels = services_of(self.bot).duels
        user_id, guild_id = interaction.user.id, interaction.guild_id
        if duel is not None:
            return await duels.get_duel(duel, scope=DuelScope.of_caller(user_id, guild_id))
        mine = await duels.duels_in_scope(DuelScope.of_duellist(user_id, guild_id))
        if len(mine) != 1:
            raise InvalidInput(
                _("Name the duel: `/odds duel:<number>` (`/duel list` shows the duels).")
                if guild_id is not None
                else _("Name the duel: `/odds duel:<number>`.")
            )
        return mine[0]


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Odds(bot))
