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

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.translate import translate, translate_in, translate_plural

_language: ContextVar[str] = ContextVar("duelbot_language", default=SOURCE_LANGUAGE)


def current_language() -> str:
    """The language of the texts built here: the innermost ``speaking`` scope's, else
    English."""
    return _language.get()


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Build texts in ``language`` (a catalog's name; None or unknown: English) until the
    block ends. Yields the language, for a ``lang`` attribute or a stored column."""
    chosen = language or SOURCE_LANGUAGE
    token = _language.set(chosen)
    try:
        yield chosen
    finally:
        _language.reset(token)


def _(msgid: str, /, **fields: object) -> str:
    """``msgid`` (English, a ``str.format`` template of named fields) in the current
    language, with ``fields`` filled in."""
    return translate(_language.get(), msgid, **fields)


def _n(singular: str, plural: str, count: int, /, **fields: object) -> str:
    """The plural form for ``count`` in the current language; ``{count}`` is filled in."""
    return translate_plural(_language.get(), singular, plural, count, **fields)


def _p(context: str, msgid: str, /, **fields: object) -> str:
    """A message with a context (gettext's msgctxt): one English text that needs two
    translations, such as "round" as a noun in a heading and in a sentence."""
    return translate_in(_language.get(), context, msgid, **fields)
