"""Admin commands: /config. Every change is audited by the settings service."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.checks import MANAGE_SERVER, admin_only, require_guild
from bot.discord.client import DuelBot, services_of
from bot.discord.forum import bot_member, forum_refusal
from bot.discord.generated import house_rule_alias_command, house_rule_aliases
from bot.discord.languages import locale_of
from bot.discord.ruleset_choices import offer_rulesets, ruleset_choices
from bot.i18n.catalogs import available_languages
from bot.i18n.choice import language_name, server_language
from bot.i18n.context import _
from bot.presentation.discord_replies import LATER_DUELS_ONLY, settings_embed
from bot.presentation.discord_text import safe
from bot.rules import registry
from bot.rules.capabilities import HouseRules, capability
from bot.services.deadlines import parse_duration
from bot.services.errors import InvalidInput
from bot.services.views import window_text


def role_manager(role: discord.Role) -> str | None:
    """Who, other than the server's admins, decides who has ``role`` (None: nobody): the
    settings service refuses such a role for the commander and admin roles."""
    tags = role.tags
    # Each completes "That role cannot be the commander role: it is managed by {manager}".
    if role.is_bot_managed():
        # Translators: {manager} in "That role cannot be the commander role: it is managed
        # by {manager}, ..." (German: after "von"); so are the other role managers below.
        return _("a bot (it is that bot's own role)")
    if role.is_premium_subscriber():
        return _("Discord (it is the Server Booster role)")
    if role.is_integration():
        return _("an integration (such as Twitch or YouTube subscribers)")
    if tags is not None and tags.is_available_for_purchase():
        return _("a role subscription (members buy it)")
    if tags is not None and tags.is_guild_connection():
        return _("Discord's linked roles (members get it by connecting an account)")
    if role.managed:
        return _("an integration")
    return None


# /config language's choices: every language with a catalog, by its own name.
LANGUAGE_CHOICES = [
    app_commands.Choice(name=language_name(code), value=code) for code in available_languages()
]

# The duel systems that have house rules (/config house-rule's choices).
HOUSE_RULE_RULESETS = ruleset_choices(
    r
    for r in registry.all_rulesets()
    if (house := capability(r, HouseRules)) is not None and house.house_rules()
)


class Admin(commands.Cog):
    config = app_commands.Group(
        name="config",
        description="Server settings for duels (admins)",
        guild_only=True,
        default_permissions=MANAGE_SERVER,
    )

    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        # A house rule's own /config subcommand (``HouseRule.server_alias``).
        for rules, rule in house_rule_aliases():
            self.config.add_command(house_rule_alias_command(rules, rule, self._alias_default))

    async def _alias_default(
        self, interaction: discord.Interaction[DuelBot], ruleset_id: str, key: str, value: str
    ) -> str:
        return await self._set_house_rule(interaction, ruleset_id, key, value)

    @config.command(name="show", description="Show this server's duel settings")
    @admin_only()
    async def show(self, interaction: discord.Interaction[DuelBot]) -> None:
        settings = await services_of(self.bot).settings.get(await require_guild(interaction))
        embed = settings_embed(settings, locale_of(interaction.guild_locale))
        await interaction.followup.send(embed=embed, ephemeral=True)

    @config.command(
        name="change-of-choice",
        description="Allow duellists to change a submitted move before the round closes",
    )
    @app_commands.describe(enabled="True: moves may be changed until the close")
    @admin_only()
    async def change_of_choice(
        self, interaction: discord.Interaction[DuelBot], enabled: bool
    ) -> None:
        settings = await services_of(self.bot).settings.set_change_of_choice(
            await require_guild(interaction), interaction.user.id, enabled
        )
        state = (
            _(
                "Change of choice is now on: a duellist may change a move by sending another "
                "before the round ends."
            )
            if settings.change_of_choice
            else _(
                "Change of choice is now off: once a duellist has made a choice, it cannot "
                "change for that round."
            )
        )
        await interaction.followup.send(f"{state}\n{_(LATER_DUELS_ONLY)}", ephemeral=True)

    @config.command(name="commander-role", description="The role whose members are commanders")
    @app_commands.describe(role="Commander role")
    @admin_only()
    async def commander_role(
        self, interaction: discord.Interaction[DuelBot], role: discord.Role
    ) -> None:
        await services_of(self.bot).settings.set_commander_role(
            await require_guild(interaction),
            interaction.user.id,
            role.id,
            managed_by=role_manager(role),
        )
        await interaction.followup.send(
            _(
                "Commander role set to {role}. Commanders start duels and open and close "
                "rounds. (In Server Settings > Integrations you can also show them the "
                "commander commands, which Discord shows to Manage Server by default.)",
                role=role.mention,
            ),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @config.command(name="admin-role", description="The role whose members are duel admins")
    @app_commands.describe(role="Admin role")
    @admin_only()
    async def admin_role(
        self, interaction: discord.Interaction[DuelBot], role: discord.Role
    ) -> None:
        await services_of(self.bot).settings.set_admin_role(
            await require_guild(interaction),
            interaction.user.id,
            role.id,
            managed_by=role_manager(role),
        )
        await interaction.followup.send(
            _("Admin role set to {role}.", role=role.mention),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @config.command(
        name="missing-move",
        description="What happens to a duellist who sent no move by the close",
    )
    @app_commands.describe(policy="none: no move is made; forfeit: the other duellist wins")
    @admin_only()
    async def missing_move(
        self, interaction: discord.Interaction[DuelBot], policy: Literal["none", "forfeit"]
    ) -> None:
        await services_of(self.bot).settings.set_missing_move(
            await require_guild(interaction), interaction.user.id, policy
        )
        text = (
            _("Missing move policy is now `{policy}`: the other duellist wins.", policy=policy)
            if policy == "forfeit"
            else _("Missing move policy is now `{policy}`: no move is made.", policy=policy)
        )
        await interaction.followup.send(f"{text}\n{_(LATER_DUELS_ONLY)}", ephemeral=True)

    @config.command(
        name="house-rule",
        description="The default of a duel system's house rule in this server's new duels",
    )
    @app_commands.describe(
        ruleset="The duel system",
        key="The house rule (see /config show)",
        value="Its value for new duels; leave out for the house rule's own default",
    )
    @offer_rulesets(HOUSE_RULE_RULESETS)
    @admin_only()
    async def house_rule(
        self,
        interaction: discord.Interaction[DuelBot],
        ruleset: str,
        key: app_commands.Range[str, 1, 60],
        value: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        text = await self._set_house_rule(interaction, ruleset, key, value)
        await interaction.followup.send(f"{text}\n{_(LATER_DUELS_ONLY)}", ephemeral=True)

    async def _set_house_rule(
        self,
        interaction: discord.Interaction[DuelBot],
        ruleset_id: str,
        key: str,
        value: str | None,
    ) -> str:
        """Set the server's default and say what new duels now start with."""
        view = await services_of(self.bot).settings.set_house_rule_default(
            await require_guild(interaction), interaction.user.id, ruleset_id, key, value
        )
        rules = registry.get(ruleset_id)
        house = capability(rules, HouseRules)  # the service refused a ruleset without
        spelt = key.strip().casefold().replace("_", "-")
        rule = next(r for r in (house.house_rules() if house else ()) if r.key == spelt)
        chosen = view.house_rule_defaults.get(rules.id, {}).get(rule.key, rule.default)
        return _(
            "New {ruleset} duels start with `{key}={value}` unless /duel start gives it "
            "({help}; allowed: {allowed}).",
            ruleset=safe(rules.title),
            key=rule.key,
            value=chosen,
            help=safe(rule.help),
            allowed=rule.allowed_text(),
        )

    @config.command(
        name="undo-window",
        description="How long after its close a round's result may be undone",
    )
    @app_commands.describe(
        window="e.g. 24h, 2d, 90m; 0m turns undo off; leave out for the bot's default"
    )
    @admin_only()
    async def undo_window(
        self,
        interaction: discord.Interaction[DuelBot],
        window: app_commands.Range[str, 1, 30] | None = None,
    ) -> None:
        guild_id = await require_guild(interaction)
        wanted = None if window is None else parse_duration(window)
        settings = await services_of(self.bot).settings.set_undo_window(
            guild_id, interaction.user.id, wanted
        )
        shown = settings.undo_window
        text = (
            _("Undo is now off: no round's result can be undone.")
            if not shown
            else _(
                "A round's result can now be undone for {window} after its close, and only "
                "until the next round of its duel opens.",
                window=window_text(shown),
            )
        )
        sentences = [text]
        if settings.undo_window_is_default:
            sentences.append(_("(This is the bot's default.)"))
        sentences.append(_("This applies to every duel of this server at once."))
        await interaction.followup.send(" ".join(sentences), ephemeral=True)

    @config.command(
        name="duel-forum",
        description="The forum channel where each new duel gets its own post",
    )
    @app_commands.describe(
        channel="A forum channel; leave out to stop using a forum (duels stay where started)"
    )
    @admin_only()
    async def duel_forum(
        self,
        interaction: discord.Interaction[DuelBot],
        channel: app_commands.AppCommandChannel | app_commands.AppCommandThread | None = None,
    ) -> None:
        guild_id = await require_guild(interaction)
        settings = services_of(self.bot).settings
        if channel is None:
            await settings.set_duel_forum(guild_id, interaction.user.id, None)
            await interaction.followup.send(
                _(
                    "No duel forum: from now on a duel stays in the channel where "
                    "`/duel start` is run (duels already in the forum keep their posts)."
                ),
                ephemeral=True,
            )
            return
        target: object = channel
        guild = interaction.guild
        if guild is not None:
            target = guild.get_channel_or_thread(channel.id) or channel
        if isinstance(target, app_commands.AppCommandChannel | app_commands.AppCommandThread):
            try:  # not in this process's cache: ask Discord
                target = await channel.fetch()
            except discord.HTTPException:
                target = channel
        me = await bot_member(guild, self.bot) if guild is not None else None
        refusal = forum_refusal(target, me)
        if refusal is not None:
            raise InvalidInput(refusal)
        await settings.set_duel_forum(guild_id, interaction.user.id, channel.id)
        await interaction.followup.send(
            _(
                "Duel forum set to {channel}: from now on `/duel start` in any channel of "
                "this server opens a post for the duel there, and every post of that duel "
                'goes to it. Tags named "open" and "ended" (if the forum has them) mark '
                "running and finished duels. `/duel start` inside a thread or a forum post "
                "keeps the duel there.",
                channel=channel.mention,
            ),
            ephemeral=True,
        )

    @config.command(
        name="language",
        description="The language of this server's public posts (duel cards, results)",
    )
    @app_commands.describe(
        language="Leave out to follow the server's primary language (Server Settings)"
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @admin_only()
    async def language_setting(
        self, interaction: discord.Interaction[DuelBot], language: str | None = None
    ) -> None:
        settings = await services_of(self.bot).settings.set_language(
            await require_guild(interaction), interaction.user.id, language
        )
        await interaction.followup.send(
            language_reply(settings.language, locale_of(interaction.guild_locale)),
            ephemeral=True,
        )


def language_reply(chosen: str | None, guild_locale: str | None) -> str:
    """What /config language answers (in the current language: the admin's own)."""
    posts_in = language_name(server_language(chosen, guild_locale))
    if chosen is None:
        return _(
            "Duels started from now on (their cards, rounds, results and exports) follow this "
            "server's primary language as Discord reports it: {language} at the moment. A "
            "running duel keeps its language. Replies only one member sees stay in that "
            "member's own Discord language.",
            language=posts_in,
        )
    return _(
        "Duels started from now on (their cards, rounds, results and exports) are in "
        "{language}. A running duel keeps its language. Replies only one member sees stay "
        "in that member's own Discord language.",
        language=posts_in,
    )


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Admin(bot))
