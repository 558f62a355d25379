"""The language of the text being written, scoped to the code that writes it (issue 28).

Whoever knows a text's reader says which language it is in, around the code that builds
it, and every text built inside speaks it:

    with speaking(reply_language(interaction.locale)):
        await interaction.response.send_message(_("Duel #{duel} has ended.", duel=7))

The scope is a ``contextvars.ContextVar``, so it follows ``await`` and stays with its task:
two events handled at once each keep their own, and one event can write in several
languages by nesting scopes (a member's ephemeral reply in their language, inside it the
round's published result in the duel's). Outside every scope the language is English,
the language the code is written in: a text built where nobody said otherwise is English,
never another reader's language.

``_``, ``_n`` and ``_p`` are what the code calls (``pybabel extract`` finds them, with the
English literal as the message id); ``translate(language, ...)`` in bot/i18n/translate.py
is the same with the language passed by hand.
"""

from __future__ import annotations

from bot.i18n.ruleset_catalogs import PackageCatalogs
from bot.i18n.scope import current_language, speaking
from bot.i18n.translate import translate, translate_in, translate_plural
from bot.rules.text import install_lookup

__all__ = ["_", "_n", "_p", "current_language", "speaking"]

# The rules engine reads no file: it is handed the lookup of each ruleset package's catalog
# here, before anything can open a scope (whoever opens one imports this module).
install_lookup(PackageCatalogs())


def _(msgid: str, /, **fields: object) -> str:
    """``msgid`` (English, a ``str.format`` template of named fields) in the current
    language, with ``fields`` filled in."""
    return translate(current_language(), msgid, **fields)


def _n(singular: str, plural: str, count: int, /, **fields: object) -> str:
    """The plural form for ``count`` in the current language; ``{count}`` is filled in."""
    return translate_plural(current_language(), singular, plural, count, **fields)


def _p(context: str, msgid: str, /, **fields: object) -> str:
    """A message with a context (gettext's msgctxt): one English text that needs two
    translations, such as "round" as a noun in a heading and in a sentence."""
    return translate_in(current_language(), context, msgid, **fields)
