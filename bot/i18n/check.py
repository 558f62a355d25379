"""The checks of the catalog test (tests/i18n), here so that a contributor's catalog is
judged by the same code the test runs: each function returns its problems, one line each,
empty when all is well.

- ``template_problems``: the template (bot/locales/duelbot.pot) holds exactly what
  ``pybabel extract`` finds in bot/ (``make catalogs`` brings it up to date);
- ``english_problems``: every English text is a valid message (named placeholders);
- ``catalog_problems``: a language's catalog translates every message of the template,
  none fuzzy or empty, with the English placeholders, a command text within Discord's
  limits, and as many plural forms as its Plural-Forms header says;
- ``plural_rule_problems``: that header chooses the forms as Babel's plural rules (CLDR)
  split the numbers.
"""

from __future__ import annotations

import gettext

from babel import Locale
from babel.messages.catalog import Catalog, Message

from bot.i18n.catalogs import entry_problem, is_translated
from bot.i18n.command_rules import command_text_problem
from bot.i18n.placeholders import PlaceholderError, fields_of

Key = tuple[str | None, str]
#: The counts the plural rules are compared on: enough for every CLDR rule's cycles.
PLURAL_SAMPLE = range(0, 1001)


def key_of(message: Message) -> Key:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return message.context, str(msgid)


def describe(key: Key) -> str:
    context, msgid = key
    return f"[{context}] {msgid!r}" if context else repr(msgid)


def messages_of(catalog: Catalog) -> dict[Key, Message]:
    return {key_of(message): message for message in catalog if message.id}


def template_problems(extracted: Catalog, template: Catalog) -> list[str]:
    found, kept = messages_of(extracted), messages_of(template)
    problems = [
        f"{describe(key)} ({', '.join(f for f, _ in found[key].locations)}) is not in the "
        "template: run `make catalogs`"
        for key in sorted(found.keys() - kept.keys(), key=str)
    ]
    problems += [
        f"{describe(key)} is in the template but no longer in the code: run `make catalogs`"
        for key in sorted(kept.keys() - found.keys(), key=str)
    ]
    for key in sorted(found.keys() & kept.keys(), key=str):
        if found[key].id != kept[key].id:
            problems.append(f"{describe(key)}: its plural changed: run `make catalogs`")
    return problems


def english_problems(template: Catalog) -> list[str]:
    problems = []
    for key, message in messages_of(template).items():
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        for text in ids:
            try:
                fields_of(str(text))
            except PlaceholderError as exc:
                problems.append(f"{describe(key)}: {exc}")
    return problems


def catalog_problems(template: Catalog, catalog: Catalog) -> list[str]:
    language = str(catalog.locale or "?")
    entries = messages_of(catalog)
    problems = []
    for key, wanted in sorted(messages_of(template).items(), key=lambda item: str(item[0])):
        message = entries.get(key)
        where = f"{language}: {describe(key)}"
        if message is None:
            problems.append(f"{where} is missing: run `make catalogs`, then translate it")
            continue
        if message.fuzzy:
            problems.append(f"{where} is marked fuzzy: check the translation, drop the flag")
            continue
        if not is_translated(message):
            problems.append(f"{where} is not translated")
            continue
        if isinstance(wanted.id, tuple | list) != isinstance(message.id, tuple | list):
            problems.append(f"{where}: singular and plural differ from the template")
            continue
        problem = entry_problem(message)
        if problem is not None:
            problems.append(f"{where}: {problem}")
        forms = message.string if isinstance(message.string, tuple | list) else (message.string,)
        if isinstance(message.id, tuple | list) and len(forms) != catalog.num_plurals:
            problems.append(
                f"{where}: {len(forms)} plural forms, the header says {catalog.num_plurals}"
            )
        for form in forms:
            if key[0] is not None and (limit := command_text_problem(key[0], str(form))):
                problems.append(f"{where}: {str(form)!r}: {limit}")
    return problems


def plural_rule_problems(catalog: Catalog) -> list[str]:
    """The Plural-Forms header must give each CLDR plural category of the language one form
    of its own: equal categories, equal forms; different categories, different forms."""
    language = str(catalog.locale)
    rule = Locale.parse(language).plural_form
    index_of = catalog.plural_expr
    from_header = gettext.c2py(index_of)
    form_of_category: dict[str, int] = {}
    category_of_form: dict[int, str] = {}
    for n in PLURAL_SAMPLE:
        category, form = rule(n), from_header(n)
        if form_of_category.setdefault(category, form) != form or (
            category_of_form.setdefault(form, category) != category
        ):
            return [
                f"{language}: the Plural-Forms header ({index_of}) gives {n} form {form}, "
                f"but Babel's plural rule puts it in the category {category!r} with other "
                "counts that get another form: use the header `pybabel init` writes"
            ]
        if not 0 <= form < catalog.num_plurals:
            return [f"{language}: the header gives {n} form {form} of {catalog.num_plurals}"]
    return []
