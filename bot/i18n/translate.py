"""Translating a message into a language named by the caller: no global or per-task
"current language", because one event can answer in several (the member's ephemeral reply
in their own language, the public post in the server's, bot/i18n/choice.py).

    translate(language, "Duel #{duel} has ended.", duel=7)
    translate_plural(language, "{count} duel", "{count} duels", n)
    translate_in(language, "command name", "start")   # a message with a context

``language`` is a name from ``catalogs.available_languages()`` (``choice.language_for``
turns a Discord locale into one); any other falls back to English. The English text is
the message id, and these function names are what ``pybabel extract`` looks for
(bot/i18n/extraction.py), so write the English text as a literal in the call.
"""

from __future__ import annotations

from bot.i18n.catalogs import Translations, translations


def N_(msgid: str) -> str:
    """Mark a literal for extraction without translating it: for texts defined once (a
    module constant) and translated where they are shown, with ``translate(language,
    TEXT)``. Returns ``msgid`` unchanged."""
    return msgid


def translation(language: str, context: str | None, msgid: str) -> str | None:
    """The catalog's text for ``msgid`` in ``language``, unformatted; None when it has
    none (English, untranslated, fuzzy or broken): the caller shows the English."""
    found = translations(language).messages.get((context, msgid))
    return found if isinstance(found, str) else None


def translate(language: str, msgid: str, /, **fields: object) -> str:
    """``msgid`` (English, a ``str.format`` template of named fields) in ``language``,
    with ``fields`` filled in."""
    return (translation(language, None, msgid) or msgid).format_map(fields)


def translate_in(language: str, context: str, msgid: str, /, **fields: object) -> str:
    """The same for a message with a context (gettext's msgctxt): one English text that
    needs two translations, such as a command's name and the same word in a sentence."""
    return (translation(language, context, msgid) or msgid).format_map(fields)


def translate_plural(
    language: str, singular: str, plural: str, count: int, /, **fields: object
) -> str:
    """The form of ``singular``/``plural`` for ``count`` in ``language``: as many forms as
    the language has (German two, Polish three...), chosen by its plural rule. ``count``
    is also the field ``{count}`` unless ``fields`` give one."""
    text = plural_text(translations(language), singular, plural, count)
    return text.format_map({"count": count, **fields})


def plural_text(known: Translations, singular: str, plural: str, count: int) -> str:
    """The unformatted form for ``count``: the catalog's, else English's (one, other)."""
    forms = known.messages.get((None, singular))
    if isinstance(forms, tuple):
        return forms[min(known.plural_index(count), len(forms) - 1)]
    return singular if count == 1 else plural
