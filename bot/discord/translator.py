"""The command tree in every language with a catalog: discord.py hands each command's name,
description, option name and description and choice name to this translator once per
Discord locale when it syncs the tree, and registers what it answers as the command's
``name_localizations`` and ``description_localizations``.

No command needs ``app_commands.locale_str`` for this: discord.py wraps every text of a
command in one by itself (``auto_locale_strings``, on by default). The English texts are
found for the catalogs in the declarations themselves (bot/i18n/extraction.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Location

from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.choice import supported_language
from bot.i18n.command_rules import (
    CHOICE_CONTEXT,
    DESCRIPTION_CONTEXT,
    NAME_CONTEXT,
    command_text_problem,
)
from bot.i18n.context import speaking
from bot.i18n.ruleset_catalogs import package_translation
from bot.i18n.translate import translation
from bot.rules import registry

log = logging.getLogger(__name__)

#: The catalog context of each place a command text appears.
CONTEXT_OF = {
    Location.command_name: NAME_CONTEXT,
    Location.group_name: NAME_CONTEXT,
    Location.parameter_name: NAME_CONTEXT,
    Location.command_description: DESCRIPTION_CONTEXT,
    Location.group_description: DESCRIPTION_CONTEXT,
    Location.parameter_description: DESCRIPTION_CONTEXT,
    Location.choice_name: CHOICE_CONTEXT,
}


class CatalogTranslator(app_commands.Translator):
    """Command texts from the message catalogs (bot/locales)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """The text in ``locale``'s language, or None (Discord then shows the English):
        for English, a language without a catalog, an untranslated text, and a
        translation Discord would refuse (which would fail the whole sync)."""
        rebuild = string.extras.get(REBUILD)
        return command_translation(
            string.message, locale.value, context.location, rebuild if callable(rebuild) else None
        )


#: The ``locale_str`` extra of a command text built at run time from the rulesets'
#: declarations (a description from a sheet field's help, a house rule's): no catalog
#: holds the whole text, so the translator builds it again in each language.
REBUILD = "rebuild"


def built(build: Callable[[], str]) -> app_commands.locale_str:
    """A command text built by ``build`` (in English now, and again in each language the
    command tree is translated to, inside that language's scope)."""
    return app_commands.locale_str(build(), **{REBUILD: build})


def command_translation(
    english: str, locale: str, location: Location, rebuild: Callable[[], str] | None = None
) -> str | None:
    language = supported_language(locale)
    kind = CONTEXT_OF.get(location)
    if language in (None, SOURCE_LANGUAGE) or kind is None:
        return None
    if rebuild is not None:
        with speaking(language):
            text: str | None = rebuild()
    else:
        text = None
    text = text if text and text != english else translation(language, kind, english)
    text = text or package_translation(
        language, ruleset_packages(), kind, english
    )
    if text is None and kind == CHOICE_CONTEXT:
        # a ruleset's title, offered as a choice, is translated once in its catalog
        text = package_translation(language, ruleset_packages(), None, english)
    if text is None or text == english:
        return None  # Discord ignores a localization equal to the default anyway
    problem = command_text_problem(kind, text)
    if problem is not None:
        log.warning(
            "catalog %s: %s %r for %r left out (%s)", language, kind, text, english, problem
        )
        return None
    return text


def ruleset_packages() -> tuple[str, ...]:
    """The packages of the installed rulesets, and the rules' shared package: the command
    texts built from a ruleset's declarations are in its own catalog."""
    packages = {type(rules).__module__.rpartition(".")[0] for rules in registry.all_rulesets()}
    return ("bot.rules", *sorted(packages - {"bot.rules", ""}))
