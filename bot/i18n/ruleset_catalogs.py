"""The catalogs that ruleset packages carry (issue 28): each package's own
``locales/<language>/LC_MESSAGES/duelbot.po`` beside its modules, read like the bot's own
(bot/i18n/catalogs.py), in the language of the scope being written (bot/i18n/context.py).

This is the lookup the rules engine is given (bot/rules/text.py): the rules read no file.
A package without a catalog for the language speaks English.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

from bot.i18n.catalogs import SOURCE_LANGUAGE, translations
from bot.i18n.scope import current_language
from bot.i18n.translate import plural_text


@cache
def package_locales(package: str) -> Path | None:
    """``<package>/locales`` when the package is importable and has one."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or ()) if spec else ():
        found = Path(location) / "locales"
        if found.is_dir():
            return found
    return None


class PackageCatalogs:
    """Looks a ruleset package's message up in its catalog of the current language."""

    def language(self) -> str:
        return current_language()

    def text(self, package: str, context: str | None, msgid: str) -> str | None:
        language = current_language()
        locales = package_locales(package) if language != SOURCE_LANGUAGE else None
        if locales is None:
            return None
        found = translations(language, locales).messages.get((context, msgid))
        return found if isinstance(found, str) else None

    def plural(self, package: str, singular: str, plural: str, count: int) -> str | None:
        language = current_language()
        locales = package_locales(package) if language != SOURCE_LANGUAGE else None
        if locales is None:
            return None
        known = translations(language, locales)
        if (None, singular) not in known.messages:
            return None
        return plural_text(known, singular, plural, count)


def package_translation(
    language: str, packages: tuple[str, ...], context: str | None, msgid: str
) -> str | None:
    """The first of ``packages``' catalogs (in ``language``) that translates ``msgid``: the
    command texts a ruleset declares (its option names, choices, title) are in its own
    catalog, and the command tree's translator asks them after the bot's own."""
    if language == SOURCE_LANGUAGE:
        return None
    for package in packages:
        locales = package_locales(package)
        if locales is None:
            continue
        found = translations(language, locales).messages.get((context, msgid))
        if isinstance(found, str):
            return found
    return None
