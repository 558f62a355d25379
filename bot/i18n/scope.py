"""The language scope itself (issue 28): a ContextVar and ``speaking``. Import them from
bot/i18n/context.py, which also gives the rules engine its catalogs' lookup."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from bot.i18n.catalogs import SOURCE_LANGUAGE

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
