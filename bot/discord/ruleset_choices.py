"""The ``ruleset`` option of the slash commands, built from the registry.

Discord fixes an option's choices when the commands are synced and takes at most 25 of
them. With the rulesets installed as packages (docs/rulesets.md) a server may have more:
then the option autocompletes instead (the same titles and ids, filtered by what is
typed), so one package too many never stops the cogs from loading. A value typed without
a suggestion reaches the services, which name the known ids when it is none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.discord.translator import built
from bot.rules.base import Ruleset

#: Discord's limit on an option's choices, and on an autocomplete answer.
MAX_CHOICES = 25

T = TypeVar("T")


def ruleset_choices(rulesets: Iterable[Ruleset]) -> list[app_commands.Choice[str]]:
    """One choice per ruleset: its title (Discord's 100 characters) for its id."""
    return [app_commands.Choice(name=ruleset_title(rules), value=rules.id) for rules in rulesets]


def ruleset_title(rules: Ruleset) -> app_commands.locale_str:
    """A ruleset's title as a choice (Discord's 100 characters), in each language the
    command tree is translated to (the ruleset translates its own title)."""
    return built(partial(_title, rules))


def _title(rules: Ruleset) -> str:
    return rules.title[:100]


def matching(
    choices: list[app_commands.Choice[str]], current: str
) -> list[app_commands.Choice[str]]:
    """The choices whose title or id contains ``current`` (case aside), at most 25."""
    wanted = current.strip().casefold()
    return [
        choice
        for choice in choices
        if wanted in choice.name.casefold() or wanted in choice.value.casefold()
    ][:MAX_CHOICES]


def offer_rulesets(
    choices: list[app_commands.Choice[str]], parameter: str = "ruleset"
) -> Callable[[T], T]:
    """Decorate a command so that ``parameter`` offers ``choices``: as Discord's choices
    while there are at most 25, as autocomplete beyond."""
    if len(choices) <= MAX_CHOICES:
        return app_commands.choices(**{parameter: choices})

    async def complete(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return matching(choices, current)

    return app_commands.autocomplete(**{parameter: complete})
