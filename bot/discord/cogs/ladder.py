"""The ladder (issue 17): ``/leaderboard [ruleset] [page]`` and ``/duel record member
[ruleset]``, for anyone, in a server only (each server sees its own ladder). Both answer
ephemerally, like /duel status and /duel history: anyone may ask, and a channel should not
fill with leaderboards. The page buttons are persistent (their custom_id carries the ruleset
and the page; the server is the one the click comes from), so an old page still turns after
a restart; a click re-renders the message it is on.

``/duel record`` joins the ``duel`` group of the commander cog when this cog loads (so that
cog stays as it is); the commander cog must be loaded first (bot/discord/client.py COGS).
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.checks import answer_privately, require_guild
from bot.discord.client import DuelBot, services_of
from bot.discord.cogs.commander import ALL_RULESETS, AnyMember
from bot.discord.errors import reply_ephemeral, user_message
from bot.discord.flood import refuse_over_budget
from bot.discord.languages import answering
from bot.discord.ruleset_choices import offer_rulesets
from bot.i18n.context import _, _p
from bot.presentation.discord_ladder import leaderboard_embed, record_embed
from bot.services.errors import InvalidInput
from bot.services.ladder_views import LeaderboardPage
from bot.services.views import MemberRef

# Pages are numbered from 1; a larger number than any ladder can have is refused by Discord's
# client (and by the service, which counts the pages first).
PAGE_MAX = 1_000_000
# Ruleset ids are short lowercase words; a page of up to 7 digits (the "previous" button of
# page 1 points at page 0, shown disabled).
TEMPLATE = r"duelbot:lb:(?P<ruleset>[a-z0-9][a-z0-9.\-]{0,31}):(?P<page>[0-9]{1,7})"


class LeaderboardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Turns a leaderboard message to ``page`` of ``ruleset`` (in the server clicked in)."""

    def __init__(
        self, ruleset: str, page: int, label: str | None = None, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or _p("leaderboard button", "Page"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"duelbot:lb:{ruleset}:{page}",
                disabled=disabled,
            )
        )
        self.ruleset = ruleset
        self.page = page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> LeaderboardButton:
        return cls(match["ruleset"], int(match["page"]), getattr(item, "label", None))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py types an item's callback for any client; this bot's clicks are DuelBot's.
        # The item's own task (discord.py's dispatch): answered in the member's language.
        with answering(interaction, interaction.client.member_languages):
            await self.clicked(interaction)

    async def clicked(self, interaction: discord.Interaction[DuelBot]) -> None:
        # A page is a ranked read: within the member's budget of expensive answers.
        if await refuse_over_budget(interaction, interaction.client.expensive, "leaderboards"):
            return
        try:
            guild_id = await require_guild(interaction)
            page = await services_of(interaction.client).ratings.leaderboard(
                guild_id, self.ruleset, self.page, clamp=True
            )
        except Exception as exc:  # every expected error has a user message
            message = user_message(exc)
            if message is None:
                raise
            await reply_ephemeral(interaction, message)
            return
        await interaction.response.edit_message(
            embed=leaderboard_embed(page), view=leaderboard_view(page)
        )


def leaderboard_view(page: LeaderboardPage) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LeaderboardButton(
            page.ruleset,
            page.page - 1,
            _p("leaderboard button", "Previous"),
            disabled=page.page <= 1,
        )
    )
    view.add_item(
        LeaderboardButton(
            page.ruleset,
            page.page + 1,
            _p("leaderboard button", "Next"),
            disabled=page.page >= page.pages,
        )
    )
    return view


@app_commands.command(name="record", description="A member's duel record and rating here")
@app_commands.describe(member="The member", ruleset="Duel system (default: every one)")
@offer_rulesets(ALL_RULESETS)
async def duel_record(
    interaction: discord.Interaction[DuelBot], member: AnyMember, ruleset: str | None = None
) -> None:
    await answer_privately(interaction)
    guild_id = await require_guild(interaction)
    # A Member is in the server now: their name is the one to remember. A User (they left)
    # is shown by the last name the ladder knows.
    records = await services_of(interaction.client).ratings.record(
        guild_id,
        MemberRef(member.id, member.display_name),
        ruleset,
        seen=isinstance(member, discord.Member),
    )
    await interaction.followup.send(embed=record_embed(records), ephemeral=True)


class Ladder(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(LeaderboardButton)
        duel = self.bot.tree.get_command("duel")
        if not isinstance(duel, app_commands.Group):
            raise RuntimeError(
                "the ladder cog needs the commander cog (its /duel group) first"  # i18n: not shown
            )
        duel.add_command(duel_record, override=True)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(LeaderboardButton)
        duel = self.bot.tree.get_command("duel")
        if isinstance(duel, app_commands.Group):
            duel.remove_command(duel_record.name)

    @app_commands.command(name="leaderboard", description="The server's duel ladder")
    @app_commands.describe(
        ruleset="Duel system (default: the one /duel start uses by default)",
        page="Page (10 members a page)",
    )
    @offer_rulesets(ALL_RULESETS)
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[DuelBot],
        ruleset: str | None = None,
        page: app_commands.Range[int, 1, PAGE_MAX] = 1,
    ) -> None:
        if await refuse_over_budget(interaction, self.bot.expensive, "leaderboards"):
            return
        await answer_privately(interaction)
        guild_id = await require_guild(interaction)
        if not 1 <= page <= PAGE_MAX:  # a client that ignores the registered range
            raise InvalidInput(
                _("Page {page} does not exist: pages are numbered from 1.", page=page)
            )
        shown = await services_of(self.bot).ratings.leaderboard(guild_id, ruleset, page)
        await interaction.followup.send(
            embed=leaderboard_embed(shown), view=leaderboard_view(shown), ephemeral=True
        )


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Ladder(bot))
