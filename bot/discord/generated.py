"""Slash commands built from what a ruleset declares, so that no cog names a ruleset's
concepts: `/stats set` from the quick sheet fields (``Ruleset.quick_sheet_fields``, their
names, limits and help from ``sheet_fields``), and a `/config` alias per house rule that
declares one (``HouseRule.server_alias``, a yes/no house rule's own `/config` name).

The callbacks are closures with a built signature: discord.py reads a command's options
from ``inspect.signature`` (which honours ``__signature__``) and calls the callback with
one keyword argument per option.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

import discord
from babel.lists import format_list
from discord import app_commands

from bot.discord.checks import admin_only, commander_only, require_guild
from bot.discord.client import DuelBot, services_of
from bot.discord.translator import built
from bot.i18n.context import _, current_language
from bot.presentation.discord_replies import LATER_DUELS_ONLY
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import HouseRules, capability
from bot.rules.params import HouseRule
from bot.services.views import MemberRef, ProfileView

# As the commander cog's (which imports this module): a USER option resolves to either.
AnyMember = discord.Member | discord.User
#: How `/stats set` shows the saved profile (discord_replies.profile_text).
StatsReply = Callable[[ProfileView], str]


def _set_signature(func: Callable[..., Any], parameters: list[inspect.Parameter]) -> None:
    """Give ``func`` the signature discord.py reads its options from (``inspect.signature``
    takes a function's ``__signature__`` before its code)."""
    func.__dict__["__signature__"] = inspect.Signature(parameters)


def _option_of(rules: Ruleset, name: str) -> inspect.Parameter:
    """The typed option of quick field ``name``: a whole number within its limits."""
    field = next((f for f in rules.sheet_fields if f.name == name), None)
    if field is None or field.kind != "int":
        raise TypeError(
            f"{rules.id}: quick sheet field {name!r} is not an int sheet field"  # i18n: not shown
        )
    low = field.minimum if field.minimum is not None else -(2**31)
    high = field.maximum if field.maximum is not None else 2**31 - 1
    annotation: Any = app_commands.Range[int, low, high]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)


def stats_set_command(
    rules: Ruleset,
    member_of: Callable[[AnyMember], MemberRef],
    reply: StatsReply,
) -> app_commands.Command[Any, ..., None]:
    """`/stats set member <quick field>...`: the quick fields of ``rules``, in order."""
    names = rules.quick_sheet_fields

    async def stats_set(
        interaction: discord.Interaction[DuelBot], member: AnyMember, **values: int
    ) -> None:
        guild_id = await require_guild(interaction)
        profile = await services_of(interaction.client).profiles.set_stats(
            guild_id, interaction.user.id, member_of(member), *(values[n] for n in names)
        )
        await interaction.followup.send(
            _("Stats saved: {profile}.", profile=reply(profile)), ephemeral=True
        )

    first = inspect.signature(stats_set).parameters
    _set_signature(
        stats_set,
        [
            first["interaction"].replace(annotation=discord.Interaction),
            first["member"].replace(annotation=AnyMember),
            *(_option_of(rules, name) for name in names),
        ],
    )
    # Built from the ruleset's sheet, again in each language (the command tree's
    # translator): no catalog holds these texts whole.
    helps = {name: built(partial(_field_help, rules, name)) for name in names}
    callback = app_commands.describe(member="The duellist", **helps)(stats_set)
    return app_commands.Command(
        name="set",
        description=built(partial(_stats_set_description, names)),
        callback=commander_only()(callback),
    )


def _field_help(rules: Ruleset, name: str) -> str:
    """A quick sheet field's help, in the scope's language (the ruleset reads it so)."""
    return next(f.help for f in rules.sheet_fields if f.name == name)[:100]


def _stats_set_description(names: Sequence[str]) -> str:
    fields = format_list([name.upper() for name in names], locale=current_language())
    return _("Set a member's {fields} for duels", fields=fields)[:100]


def house_rule_aliases() -> list[tuple[Ruleset, HouseRule]]:
    """Every (ruleset, house rule) that declares a `/config` alias, in registry order."""
    return [
        (rules, rule)
        for rules in registry.all_rulesets()
        if (house := capability(rules, HouseRules)) is not None
        for rule in house.house_rules()
        if rule.server_alias
    ]


def house_rule_alias_command(
    rules: Ruleset,
    rule: HouseRule,
    set_default: Callable[[discord.Interaction[DuelBot], str, str, str], Awaitable[str]],
) -> app_commands.Command[Any, ..., None]:
    """`/config <alias> enabled:<bool>`: the server's default of a yes/no house rule
    (``set_default(interaction, ruleset id, key, value)`` sets it and says what changed)."""

    async def alias(interaction: discord.Interaction[DuelBot], enabled: bool) -> None:
        text = await set_default(interaction, rules.id, rule.key, "yes" if enabled else "no")
        await interaction.followup.send(f"{text}\n{_(LATER_DUELS_ONLY)}", ephemeral=True)

    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    _set_signature(
        alias,
        [
            inspect.Parameter("interaction", positional, annotation=discord.Interaction),
            inspect.Parameter("enabled", positional, annotation=bool),
        ],
    )
    described = app_commands.describe(enabled=built(partial(_alias_enabled, rules, rule.key)))
    return app_commands.Command(
        name=rule.server_alias,
        description=built(partial(_alias_description, rules, rule.key)),
        callback=admin_only()(described(alias)),
    )


def _house_rule(rules: Ruleset, key: str) -> HouseRule:
    """House rule ``key`` of ``rules`` as declared in the scope's language."""
    house = capability(rules, HouseRules)
    assert house is not None
    return next(rule for rule in house.house_rules() if rule.key == key)


def _alias_description(rules: Ruleset, key: str) -> str:
    return f"{rules.short_name()}: {_house_rule(rules, key).help}"[:100]


def _alias_enabled(rules: Ruleset, key: str) -> str:
    return _("True: {key}=yes ({help})", key=key, help=_house_rule(rules, key).help)[:100]
