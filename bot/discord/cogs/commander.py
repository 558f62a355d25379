"""Commander commands: /stats, /duel, /round. Parse, call one service, render.

Every command answers Discord first (it allows 3 s; a commander command in its check,
bot/discord/checks.py) and then follows up ephemerally; public posts (duel cards, round
openings, results) go through the outbox, on behalf of the commander.
"""

from __future__ import annotations

import asyncio
import io
from datetime import UTC, datetime
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.challenge_options import challenge_description, with_step_options
from bot.discord.checks import MANAGE_SERVER, answer_privately, commander_only, require_guild
from bot.discord.client import DuelBot, services_of
from bot.discord.flood import refuse_over_budget
from bot.discord.forum import duel_home
from bot.discord.generated import stats_set_command
from bot.discord.languages import guild_locale
from bot.discord.ruleset_choices import offer_rulesets, ruleset_choices
from bot.discord.sheet_input import parse_sheet_fields
from bot.discord.translator import built
from bot.exports.formats import export_duel, export_html
from bot.i18n.context import _
from bot.presentation.discord_replies import (
    challenge_reply,
    duel_embed,
    duel_list_text,
    history_text,
    profile_text,
    round_closed_text,
    round_opened_text,
    round_status_text,
    undone_reply,
)
from bot.presentation.discord_text import safe
from bot.rules import registry
from bot.services.deadlines import parse_deadline
from bot.services.errors import InvalidInput
from bot.services.profiles import stats_ruleset
from bot.services.scope import DUEL_NUMBER_MAX, DUEL_NUMBER_MIN, DuelScope
from bot.services.views import MemberRef

LIST_LIMIT = 50  # duels /duel list fetches (newest first); what does not fit is counted


class DuelNumber(app_commands.Transformer[DuelBot]):
    """A duel number option. Its registered range keeps Discord's clients within our ids;
    any other integer still reaches the service, which answers it as an unknown duel (a
    range error here would answer differently from "no such duel")."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return DUEL_NUMBER_MIN

    @property
    def max_value(self) -> int:
        return DUEL_NUMBER_MAX

    async def transform(self, interaction: discord.Interaction[DuelBot], value: Any) -> int:
        return int(value)


DuelId = app_commands.Transform[int, DuelNumber]


ALL_RULESETS = ruleset_choices(r for r in registry.all_rulesets() if r.playable)
# Every ruleset has a sheet (one kept in the stats columns too: /sheet and /stats agree).
SHEET_RULESETS = ruleset_choices(registry.all_rulesets())


# A USER option resolves to a Member when the payload carries the member, else to a User:
# accept both so a sparse payload (a proxy, a stand-in) still works.
AnyMember = discord.Member | discord.User


def member_ref(member: AnyMember) -> MemberRef:
    return MemberRef(member.id, member.display_name)


def duellist_ref(member: AnyMember) -> MemberRef:
    """A member who may duel, or have stats and sheets: a member of this server who is not
    a bot (this one included). Discord resolves a user who is not a member as a User."""
    name = safe(member.display_name)
    if member.bot:
        raise InvalidInput(
            _(
                "{name} is a bot: bots cannot duel or have stats or sheets. "
                "Pick a member of this server who is not a bot.",
                name=name,
            )
        )
    if not isinstance(member, discord.Member):
        raise InvalidInput(
            _(
                "{name} is not a member of this server: only its members can duel or have "
                "stats or sheets here.",
                name=name,
            )
        )
    return member_ref(member)


async def duel_autocomplete(
    interaction: discord.Interaction[DuelBot], current: str
) -> list[app_commands.Choice[int]]:
    """The duels the caller may name: this server's, or in a DM their own."""
    scope = DuelScope.of_caller(interaction.user.id, interaction.guild_id)
    return await _duel_choices(interaction, scope, current)


async def own_duel_autocomplete(
    interaction: discord.Interaction[DuelBot], current: str
) -> list[app_commands.Choice[int]]:
    """The caller's own live duels (of this server, when used in one): for /move."""
    scope = DuelScope.of_duellist(interaction.user.id, interaction.guild_id)
    return await _duel_choices(interaction, scope, current)


async def _duel_choices(
    interaction: discord.Interaction[DuelBot], scope: DuelScope, current: str
) -> list[app_commands.Choice[int]]:
    duels = await services_of(interaction.client).duels.duels_in_scope(scope)
    wanted = current.strip().lstrip("#").casefold()
    choices = []
    for d in duels:
        label = _("#{duel} {a} vs {b}", duel=d.id, a=d.a.name, b=d.b.name)
        if not wanted or wanted in label.casefold():
            choices.append(app_commands.Choice(name=label[:100], value=d.id))
    return choices[:25]


class Commander(commands.Cog):
    stats = app_commands.Group(
        name="stats",
        description="Duellist statistics (commanders)",
        guild_only=True,
        default_permissions=MANAGE_SERVER,
    )
    sheet = app_commands.Group(
        name="sheet",
        description="Duellist sheets for the other duel systems (commanders)",
        guild_only=True,
        default_permissions=MANAGE_SERVER,
    )
    duel = app_commands.Group(name="duel", description="Duels in this server", guild_only=True)
    round = app_commands.Group(
        name="round",
        description="Open, close and check rounds (commanders)",
        guild_only=True,
        default_permissions=MANAGE_SERVER,
    )

    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        # `/stats set member <field>...`: built from the quick sheet the ruleset declares.
        self.stats.add_command(stats_set_command(stats_ruleset(), duellist_ref, profile_text))

    # -- /stats -------------------------------------------------------------------------

    @stats.command(name="show", description="Show a member's duel statistics")
    @app_commands.describe(member="The duellist")
    @commander_only()
    async def stats_show(
        self, interaction: discord.Interaction[DuelBot], member: AnyMember
    ) -> None:
        guild_id = await require_guild(interaction)
        profile = await services_of(self.bot).profiles.get_stats(guild_id, member_ref(member))
        await interaction.followup.send(profile_text(profile), ephemeral=True)

    # -- /sheet -------------------------------------------------------------------------

    @sheet.command(name="set", description="Set fields of a member's sheet for a duel system")
    @app_commands.describe(
        member="The duellist",
        ruleset="The duel system",
        fields="field=value pairs (e.g. character=hero armor_save=5) or a JSON object",
    )
    @offer_rulesets(SHEET_RULESETS)
    @commander_only()
    async def sheet_set(
        self,
        interaction: discord.Interaction[DuelBot],
        member: AnyMember,
        ruleset: str,
        fields: app_commands.Range[str, 1, 1000],
    ) -> None:
        guild_id = await require_guild(interaction)
        profile = await services_of(self.bot).profiles.set_sheet(
            guild_id,
            interaction.user.id,
            duellist_ref(member),
            ruleset,
            parse_sheet_fields(fields),
        )
        await interaction.followup.send(
            _("Sheet saved: {profile}.", profile=profile_text(profile)), ephemeral=True
        )

    @sheet.command(name="show", description="Show a member's sheet for a duel system")
    @app_commands.describe(member="The duellist", ruleset="The duel system")
    @offer_rulesets(SHEET_RULESETS)
    @commander_only()
    async def sheet_show(
        self, interaction: discord.Interaction[DuelBot], member: AnyMember, ruleset: str
    ) -> None:
        guild_id = await require_guild(interaction)
        sheet = await services_of(self.bot).profiles.get_sheet(
            guild_id, member_ref(member), ruleset
        )
        shown = ", ".join(f"{k}={safe(str(v), 60)}" for k, v in sorted(sheet.items()))
        title = safe(registry.get(ruleset).title, 60)
        await interaction.followup.send(
            f"**{safe(member.display_name)}** ({title}): {shown}", ephemeral=True
        )

    # -- /duel --------------------------------------------------------------------------

    @duel.command(name="start", description="Start a duel between two members (commanders)")
    @app_commands.describe(
        a="Duellist A (named first)",
        b="Duellist B",
        ruleset="Duel system (default: the configured one)",
        params="Per-duel settings and house rules, key=value pairs (e.g. flight=after-blows)",
    )
    @offer_rulesets(ALL_RULESETS)
    @commander_only()
    async def duel_start(
        self,
        interaction: discord.Interaction[DuelBot],
        a: AnyMember,
        b: AnyMember,
        ruleset: str | None = None,
        params: app_commands.Range[str, 1, 500] | None = None,
    ) -> None:
        guild_id = await require_guild(interaction)
        services = services_of(self.bot)
        # A thread keeps the duel; else the server's duel forum, if any (bot/discord/forum.py).
        home = duel_home(
            interaction.channel,
            interaction.channel_id or 0,
            interaction.guild,
            await services.settings.get(guild_id),
            thread_per_duel=self.bot.settings.duels.thread_per_duel,
        )
        view = await services.duels.start_duel(
            # The duel's language: the server's (/config language, else this locale).
            guild_locale=guild_locale(interaction),
            guild_id=guild_id,
            channel_id=home.channel_id,
            thread_id=home.thread_id,
            actor_id=interaction.user.id,
            a=duellist_ref(a),
            b=duellist_ref(b),
            ruleset=ruleset,
            params=parse_sheet_fields(params) if params else None,
        )
        started = _(
            "Duel #{duel} started: {a} vs {b}. Open the first round with "
            "`/round open duel:{duel}`.",
            duel=view.id,
            a=safe(view.a.name),
            b=safe(view.b.name),
        )
        await interaction.followup.send(started + home.note, ephemeral=True)

    # The options are the signature with_step_options gives the callback.
    @duel.command(name="challenge", description=built(challenge_description))
    @app_commands.describe(
        challenger="The member who issues the challenge",
        challenged="The member who is challenged",
    )
    @commander_only()
    @with_step_options
    async def duel_challenge(
        self,
        interaction: discord.Interaction[DuelBot],
        challenger: AnyMember,
        challenged: AnyMember,
        **inputs: Any,
    ) -> None:
        """The pre-duel challenge of the rulesets declaring one: its options are the steps'
        declared inputs (bot/discord/challenge_options.py)."""
        guild_id = await require_guild(interaction)
        ruleset = inputs.pop("ruleset", None)
        duels = services_of(self.bot).duels
        outcome = await duels.challenge(
            guild_locale=guild_locale(interaction),
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            actor_id=interaction.user.id,
            challenger=duellist_ref(challenger),
            challenged=duellist_ref(challenged),
            inputs=inputs,
            ruleset=ruleset,
        )
        await interaction.followup.send(challenge_reply(outcome), ephemeral=True)

    @duel.command(name="list", description="List the live duels in this server")
    @app_commands.describe(include_ended="Also list duels that have ended")
    async def duel_list(
        self, interaction: discord.Interaction[DuelBot], include_ended: bool = False
    ) -> None:
        await answer_privately(interaction)
        # One more than is listed: whether older duels exist beyond those fetched.
        duels = await services_of(self.bot).duels.list_duels(
            await require_guild(interaction), include_ended=include_ended, limit=LIST_LIMIT + 1
        )
        text = duel_list_text(duels[:LIST_LIMIT], complete=len(duels) <= LIST_LIMIT)
        await interaction.followup.send(text, ephemeral=True)

    @duel.command(name="status", description="Show a duel's state")
    @app_commands.describe(duel="Duel number")
    @app_commands.autocomplete(duel=duel_autocomplete)
    async def duel_status(self, interaction: discord.Interaction[DuelBot], duel: DuelId) -> None:
        await answer_privately(interaction)
        view = await services_of(self.bot).duels.get_duel(duel, await require_guild(interaction))
        await interaction.followup.send(embed=duel_embed(view), ephemeral=True)

    @duel.command(name="history", description="Show every round of a duel")
    @app_commands.describe(duel="Duel number")
    @app_commands.autocomplete(duel=duel_autocomplete)
    async def duel_history(self, interaction: discord.Interaction[DuelBot], duel: DuelId) -> None:
        await answer_privately(interaction)
        history = await services_of(self.bot).duels.history(duel, await require_guild(interaction))
        await interaction.followup.send(history_text(history), ephemeral=True)

    @duel.command(name="end", description="End a duel early (commanders)")
    @app_commands.describe(duel="Duel number", reason="Why the duel ends (shown in the post)")
    @app_commands.autocomplete(duel=duel_autocomplete)
    @commander_only()
    async def duel_end(
        self,
        interaction: discord.Interaction[DuelBot],
        duel: DuelId,
        reason: app_commands.Range[str, 1, 300],
    ) -> None:
        guild_id = await require_guild(interaction)
        view = await services_of(self.bot).duels.end_duel(
            duel_id=duel,
            guild_id=guild_id,
            actor_id=interaction.user.id,
            reason=reason,
        )
        await interaction.followup.send(
            _("Duel #{duel} has been ended.", duel=view.id), ephemeral=True
        )

    @duel.command(
        name="export",
        description="Export a duel as Markdown, BBCode, JSON or a verifiable HTML page",
    )
    @app_commands.describe(duel="Duel number", format="File format")
    @app_commands.autocomplete(duel=duel_autocomplete)
    async def duel_export(
        self,
        interaction: discord.Interaction[DuelBot],
        duel: DuelId,
        format: Literal["markdown", "bbcode", "json", "html"],
    ) -> None:
        # Expensive (about 0.1 s of CPU for a 300-round duel): a per-member budget first,
        # refused before any work.
        if await refuse_over_budget(interaction, self.bot.expensive, "exports"):
            return
        await answer_privately(interaction)
        # The export read model: what /duel history shows plus, per round, the state before
        # it and the choices (public parts only), so the JSON can be re-adjudicated.
        history = await services_of(self.bot).exports.duel_export(
            duel, await require_guild(interaction)
        )
        # Rendered in a worker thread once the data is read (plain frozen views), so the
        # event loop keeps answering moves and commands meanwhile. html: the archive page
        # (issue 15), which verifies every roll in the browser.
        if format == "html":
            text = await asyncio.to_thread(export_html, history)
        else:
            text = await asyncio.to_thread(export_duel, history, format)
        extension = {"markdown": "md", "bbcode": "txt", "json": "json", "html": "html"}[format]
        file = discord.File(io.BytesIO(text.encode()), filename=f"duel-{duel}.{extension}")
        await interaction.followup.send(
            _("Duel #{duel} exported as {format}.", duel=duel, format=format),
            file=file,
            ephemeral=True,
        )

    # -- /round -------------------------------------------------------------------------

    @round.command(name="open", description="Open the next round of a duel (commanders)")
    @app_commands.describe(
        duel="Duel number",
        deadline="When the round closes: 36h, 2d, 1d 12h, or 2026-12-01 18:00 UTC",
    )
    @app_commands.autocomplete(duel=duel_autocomplete)
    @commander_only()
    async def round_open(
        self,
        interaction: discord.Interaction[DuelBot],
        duel: DuelId,
        deadline: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        guild_id = await require_guild(interaction)
        when = None if deadline is None else parse_deadline(deadline, datetime.now(UTC))
        opened = await services_of(self.bot).duels.open_round(
            duel_id=duel,
            guild_id=guild_id,
            actor_id=interaction.user.id,
            deadline=when,
        )
        await interaction.followup.send(round_opened_text(opened), ephemeral=True)

    @round.command(name="close", description="Close the open round and post the result")
    @app_commands.describe(duel="Duel number")
    @app_commands.autocomplete(duel=duel_autocomplete)
    @commander_only()
    async def round_close(self, interaction: discord.Interaction[DuelBot], duel: DuelId) -> None:
        guild_id = await require_guild(interaction)
        closed = await services_of(self.bot).duels.close_round(
            duel_id=duel,
            guild_id=guild_id,
            actor_id=interaction.user.id,
        )
        await interaction.followup.send(round_closed_text(closed), ephemeral=True)

    @round.command(name="status", description="Who has sent a move (never what)")
    @app_commands.describe(duel="Duel number")
    @app_commands.autocomplete(duel=duel_autocomplete)
    @commander_only()
    async def round_status(self, interaction: discord.Interaction[DuelBot], duel: DuelId) -> None:
        guild_id = await require_guild(interaction)
        status = await services_of(self.bot).duels.round_status(duel, guild_id)
        await interaction.followup.send(round_status_text(status), ephemeral=True)

    @round.command(name="undo", description="Undo the latest round of a duel (soon after it)")
    @app_commands.describe(
        duel="Duel number",
        reason="Why the result is voided (posted in the duel's channel and kept in its history)",
        round="The round you mean to undo (must be the duel's latest; checked if given)",
    )
    @app_commands.autocomplete(duel=duel_autocomplete)
    @commander_only()
    async def round_undo(
        self,
        interaction: discord.Interaction[DuelBot],
        duel: DuelId,
        reason: app_commands.Range[str, 1, 300],
        round: app_commands.Range[int, DUEL_NUMBER_MIN, DUEL_NUMBER_MAX] | None = None,
    ) -> None:
        guild_id = await require_guild(interaction)
        view = await services_of(self.bot).duels.undo_round(
            duel_id=duel,
            guild_id=guild_id,
            actor_id=interaction.user.id,
            reason=reason,
            round_no=round,
        )
        await interaction.followup.send(undone_reply(view), ephemeral=True)


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Commander(bot))
