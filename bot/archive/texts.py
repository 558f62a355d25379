"""Translated texts for the static pages (issue 28): the archive's pages and the sandbox's.

The pages are HTML templates and browser scripts, and a browser has no catalog: the
Python that serves or writes a page builds its texts with ``_()`` (in the reader's
language, the scope's: bot/i18n/context.py) and hands them over in two ways:

- HTML texts fill the template's ``{{placeholders}}``, escaped (``text``), or with fixed
  markup in named slots (``markup``);
- texts the script writes travel as one JSON dictionary in the page (``<script
  type="application/json">``), read by the script's ``t(key, fields)``. Such a text keeps
  its ``{field}`` placeholders for the script to fill (``kept``), and a text whose form
  depends on a number travels as one template per CLDR plural category (``plural_forms``),
  chosen in the browser by ``Intl.PluralRules`` with the page's language.

Dates a page shows are formatted here with Babel for the reader's locale (``reader_time``).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_skeleton

from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.context import _, current_language

#: Around a slot's name in a translated text until the text is escaped (private-use
#: characters: never in a message or a field).
_OPEN, _CLOSE = "\ue000", "\ue001"


def kept(*names: str) -> dict[str, str]:
    """Fields that stay placeholders: ``_("Round {number}", **kept("number"))`` gives the
    translated template with ``{number}`` still in it, for the browser to fill."""
    return {name: "{" + name + "}" for name in names}


def slot(name: str) -> str:
    """A field value that ``markup`` replaces with HTML after escaping the text."""
    return f"{_OPEN}{name}{_CLOSE}"


def text(translated: str) -> str:
    """A translated text for an HTML template: escaped (a translation is text, never
    markup)."""
    return html.escape(translated, quote=True)


def markup(translated: str, **parts: str) -> str:
    """A translated text with fixed HTML in its slots: the text is escaped, then each
    ``slot(name)`` becomes ``parts[name]`` (the caller's own markup, already safe)::

        markup(_("Run {command} there.", command=slot("command")), command="<code>x</code>")
    """
    escaped = text(translated)
    for name, part in parts.items():
        escaped = escaped.replace(slot(name), part)
    return escaped


@cache
def _locale(language: str) -> Locale:
    try:
        return Locale.parse(language)
    except (UnknownLocaleError, ValueError):
        return Locale.parse(SOURCE_LANGUAGE)


def locale_tag(language: str | None = None) -> str:
    """The BCP 47 tag of a catalog's language, for ``<html lang>`` (``pt_BR``: ``pt-BR``)."""
    return (language or current_language()).replace("_", "-")


def plural_forms(form: Callable[[int], str]) -> dict[str, str]:
    """One template per CLDR plural category of the current language (``one``, ``few``,
    ``other``...), each ``form(n)`` for a number ``n`` of that category; the browser picks
    one with ``Intl.PluralRules``. ``form`` calls ``_n`` with its count kept::

        plural_forms(lambda n: _n("{count} roll", "{count} rolls", n, **kept("count")))
    """
    rule = _locale(current_language()).plural_form
    samples: dict[str, int] = {}
    for n in (*range(0, 200), 1000, 1000000):
        samples.setdefault(rule(n), n)
    return {category: form(n) for category, n in samples.items()}


def reader_time(when: datetime) -> str:
    """A moment for a reader in the current language: date and time (24-hour where the
    locale says so), in UTC, said to be UTC."""
    moment = (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).astimezone(UTC)
    locale = _locale(current_language())
    # The locale's own way of joining a date and a time ("{1}, {0}": "4. März 2026, 13:05").
    joined = str(locale.datetime_formats["medium"])
    shown = joined.replace("{1}", format_date(moment, "medium", locale=locale)).replace(
        "{0}", format_skeleton("Hm", moment, tzinfo=UTC, locale=locale)
    )
    # Translators: a date and time on the archive page ("4. März 2026, 13:05 UTC").
    return _("{time} UTC", time=shown)


def reader_day(when: datetime) -> str:
    """A day for a reader in the current language (the index's "Started" column)."""
    moment = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    return format_skeleton(
        "yMMMd", moment.astimezone(UTC), tzinfo=UTC, locale=_locale(current_language())
    )


def iso_moment(value: object) -> datetime | None:
    """An ISO 8601 text of the export as a datetime, else None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
