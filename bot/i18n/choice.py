"""Which language a text is in (issue 28): Discord locales to catalog languages, and the
rules for each kind of text. Every function is pure: the caller passes what Discord and the
database said (a locale string such as ``"de"`` or ``"en-US"``, a stored language).

- An ephemeral reply is for one member: their own Discord language (``interaction.locale``).
- A public post (a duel card, a round's result) is for the server: the language chosen with
  ``/config language``, else the server's preferred locale (``guild_locale``), else English.
- A DM: the language the member last used with the bot, else their server's.

A language is a catalog's name as ``available_languages()`` lists it (``de``, ``pt_BR``);
English when nothing better is known, since every message is written in English first.
"""

from __future__ import annotations

from babel import Locale, UnknownLocaleError

from bot.i18n.catalogs import SOURCE_LANGUAGE, available_languages

#: Discord's locales (developers/reference#locales): what ``interaction.locale`` and
#: ``guild_locale`` can be, and the keys of a command's localizations.
DISCORD_LOCALES = (
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu",
    "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru",
    "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko",
)  # fmt: skip


def supported_language(locale: str | None) -> str | None:
    """The catalog language for a Discord locale or a language tag, None when there is
    none: the exact language and region first (``pt-BR`` -> ``pt_BR``), then the language
    alone (``en-GB`` -> ``en``, ``es-419`` -> ``es``). Case and ``-``/``_`` do not matter.
    Never a different region's catalog: ``zh-TW`` does not get ``zh_CN``."""
    if not locale or not locale.strip():
        return None
    tag = locale.strip().replace("-", "_").casefold()
    known = {language.casefold(): language for language in available_languages()}
    for candidate in (tag, tag.split("_")[0]):
        if candidate in known:
            return known[candidate]
    return None


def language_for(locale: str | None) -> str:
    """The language to answer a Discord locale in: its catalog, else English."""
    return supported_language(locale) or SOURCE_LANGUAGE


def reply_language(user_locale: str | None) -> str:
    """An ephemeral reply's language: the member's own Discord language."""
    return language_for(user_locale)


def server_language(chosen: str | None, guild_locale: str | None) -> str:
    """The language of a server's public posts: the one set with ``/config language``
    (while it still has a catalog), else the server's preferred locale, else English."""
    return supported_language(chosen) or language_for(guild_locale)


def dm_language(last_used: str | None, chosen: str | None, guild_locale: str | None) -> str:
    """A DM's language: the one the member last used with the bot (their locale when they
    last ran a command or pressed a button), else their server's."""
    return supported_language(last_used) or server_language(chosen, guild_locale)


def language_name(language: str) -> str:
    """A language's name in itself, as a reader looks for it: "Deutsch", "English",
    "Português (Brasil)"; the code itself when Babel does not know it."""
    try:
        name = Locale.parse(language).get_display_name(language) or language
    except (ValueError, UnknownLocaleError):
        return language
    return name[:1].upper() + name[1:]
