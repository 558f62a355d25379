"""The message catalogs: which languages there are, and each one's messages, read from its
.po file at first use and kept for the process (no compile step: a fresh clone works).

A catalog keeps only what is safe to show. An entry is skipped, and its English shown
instead, when it is untranslated, marked fuzzy (``pybabel update`` guessed it from a
similar message: a person has not checked it yet), or when its placeholders differ from
the English ones (a ``{name}`` the code does not pass would raise, and a field such as
``{duel.__class__}`` could reach into the program). tests/i18n checks the shipped catalogs
so that none of this happens to them.
"""

from __future__ import annotations

import gettext
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from bot.i18n.placeholders import placeholder_problem, plural_placeholder_problem

log = logging.getLogger(__name__)

#: The language the code is written in: every message id is its English text.
SOURCE_LANGUAGE = "en"
#: The gettext domain: the file name of every catalog and of the template.
DOMAIN = "duelbot"
#: bot/locales: ``<language>/LC_MESSAGES/duelbot.po`` and the template ``duelbot.pot``.
LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
TEMPLATE = LOCALES_DIR / f"{DOMAIN}.pot"

#: A message's key in a catalog: (context or None, English text).
Key = tuple[str | None, str]


def catalog_path(language: str, locales_dir: Path = LOCALES_DIR) -> Path:
    return locales_dir / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def available_languages(locales_dir: Path = LOCALES_DIR) -> tuple[str, ...]:
    """English and every language with a catalog, as its directory is named (``de``,
    ``pt_BR``): English first, the others sorted."""
    found = sorted(
        path.name
        for path in locales_dir.iterdir()
        if path.is_dir() and catalog_path(path.name, locales_dir).is_file()
    ) if locales_dir.is_dir() else []
    return (SOURCE_LANGUAGE, *(name for name in found if name != SOURCE_LANGUAGE))


@dataclass(frozen=True)
class Translations:
    """One language's usable messages: a text per key, or a tuple of plural forms."""

    language: str
    messages: Mapping[Key, str | tuple[str, ...]]
    #: The index of the plural form for a count, from the catalog's Plural-Forms header
    #: (written by ``pybabel init`` from Babel's plural rules for the language).
    plural_index: Callable[[int], int]
    plural_count: int


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def entry_problem(message: Message) -> str | None:
    """Why a translated entry cannot be shown (None: it can): its placeholders."""
    if isinstance(message.id, tuple | list):
        forms = [str(s) for s in message.string or ()]
        return plural_placeholder_problem([str(i) for i in message.id], forms)
    return placeholder_problem(str(message.id), str(message.string))


def is_translated(message: Message) -> bool:
    """A translation is there and checked by a person: not empty, no form empty, not
    fuzzy."""
    if message.fuzzy:
        return False
    if isinstance(message.string, tuple | list):
        return bool(message.string) and all(message.string)
    return bool(message.string)


def translations_of(catalog: Catalog, language: str) -> Translations:
    messages: dict[Key, str | tuple[str, ...]] = {}
    broken = 0
    for message in catalog:
        if not message.id or not is_translated(message):
            continue  # the header, or shown in English
        if entry_problem(message) is not None:
            broken += 1
            continue
        if isinstance(message.id, tuple | list) and isinstance(message.string, tuple | list):
            messages[(message.context, str(message.id[0]))] = tuple(map(str, message.string))
        else:
            messages[(message.context, str(message.id))] = str(message.string)
    if broken:
        log.warning(
            "catalog %s: %d translation(s) ignored, their placeholders differ from the "
            "English (the catalog test, tests/i18n, names them)", language, broken
        )
    return Translations(
        language=language,
        messages=messages,
        plural_index=gettext.c2py(catalog.plural_expr or "(n != 1)"),
        plural_count=catalog.num_plurals or 2,
    )


def _source_plural(n: int) -> int:
    return 0 if n == 1 else 1


SOURCE = Translations(SOURCE_LANGUAGE, {}, _source_plural, 2)


@cache
def translations(language: str, locales_dir: Path = LOCALES_DIR) -> Translations:
    """The usable messages of ``language`` (a name from available_languages), read once.
    English, and a language without a catalog, have none: every text stays English."""
    path = catalog_path(language, locales_dir)
    if language == SOURCE_LANGUAGE or not path.is_file():
        return SOURCE
    return translations_of(read_catalog(path), language)
