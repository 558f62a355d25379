"""The catalog test (issue 28, docs/translating.md): the template holds what the code marks,
and every language's catalog translates all of it, placeholders and Discord's limits kept.

The second half shows that each check can fail: it runs the same checker on a modified
copy (a removed German entry, a placeholder that differs, a fuzzy or too-long entry, a new
marked text or command in the code) and expects the problem named.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bot.i18n.catalogs import (
    LOCALES_DIR,
    SOURCE_LANGUAGE,
    TEMPLATE,
    available_languages,
    catalog_path,
    read_catalog,
    translations_of,
)
from bot.i18n.check import (
    catalog_problems,
    describe,
    english_problems,
    key_of,
    plural_rule_problems,
    template_problems,
)
from bot.i18n.command_rules import DESCRIPTION_CONTEXT, NAME_CONTEXT
from bot.i18n.extraction import extract_template
from tests.i18n.po_text import without_entry

ROOT = Path(__file__).resolve().parents[2]
MAPPING = ROOT / "babel.cfg"
TRANSLATED = [language for language in available_languages() if language != SOURCE_LANGUAGE]


def template() -> Catalog:
    return read_catalog(TEMPLATE)


def reread(catalog: Catalog) -> Catalog:
    """``catalog`` written as a .po file and read back, as a contributor's file would be."""
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    buffer.seek(0)
    return read_po(buffer, locale=catalog.locale)


def test_german_is_a_language_and_english_the_source() -> None:
    assert available_languages() == ("en", "de")
    assert TEMPLATE.parent == LOCALES_DIR and TEMPLATE.is_file()


def test_the_template_holds_what_the_code_marks() -> None:
    assert template_problems(extract_template(ROOT / "bot", MAPPING), template()) == []


def test_every_english_text_is_a_valid_message() -> None:
    assert english_problems(template()) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(language: str) -> None:
    assert catalog_problems(template(), read_catalog(catalog_path(language))) == []


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_plural_forms_follow_babels_plural_rules(language: str) -> None:
    assert plural_rule_problems(read_catalog(catalog_path(language))) == []


# -- each check can fail ---------------------------------------------------------------


def german() -> Catalog:
    return read_catalog(catalog_path("de"))


def test_a_removed_german_entry_is_caught() -> None:
    catalog = german()
    catalog.delete("close", context=NAME_CONTEXT)
    problems = catalog_problems(template(), reread(catalog))
    assert problems == ["de: [command name] 'close' is missing: run `make catalogs`, then "
                        "translate it"]


def test_a_placeholder_mismatch_is_caught_and_never_shown() -> None:
    catalog = german()
    [msgid] = [m.id for m in catalog if isinstance(m.id, str) and "{language}" in m.id][:1]
    catalog[msgid].string = "Öffentliche Beiträge sind jetzt auf {sprache}."
    broken = reread(catalog)
    [problem] = catalog_problems(template(), broken)
    assert problem.endswith(
        "placeholders differ: missing {language}; not in the English {sprache}"
    ), problem
    # At run time the broken entry is skipped: the English text is shown instead.
    assert (None, msgid) not in translations_of(broken, "de").messages
    assert (None, msgid) in translations_of(german(), "de").messages


@pytest.mark.parametrize(
    ("translation", "expected"),
    [
        ("{language} {duel.id}", "is not a plain name"),
        ("Jetzt auf {language", "a literal brace is written"),
        ("Jetzt auf {}", "is not a plain name"),
    ],
)
def test_a_broken_format_string_is_caught(translation: str, expected: str) -> None:
    catalog = german()
    [msgid] = [m.id for m in catalog if isinstance(m.id, str) and "{language}" in m.id][:1]
    catalog[msgid].string = translation
    [problem] = catalog_problems(template(), reread(catalog))
    assert expected in problem


def test_fuzzy_and_empty_entries_are_caught() -> None:
    catalog = german()
    catalog.get("open", context=NAME_CONTEXT).flags.add("fuzzy")  # type: ignore[union-attr]
    catalog.get("end", context=NAME_CONTEXT).string = ""  # type: ignore[union-attr]
    problems = catalog_problems(template(), reread(catalog))
    assert problems == [
        "de: [command name] 'end' is not translated",
        "de: [command name] 'open' is marked fuzzy: check the translation, drop the flag",
    ]


def test_command_texts_beyond_discords_limits_are_caught() -> None:
    catalog = german()
    catalog.get("close", context=NAME_CONTEXT).string = "Runde schließen"  # type: ignore[union-attr]
    catalog.get(  # type: ignore[union-attr]
        "Duel number", context=DESCRIPTION_CONTEXT
    ).string = "Die Nummer " * 10
    problems = catalog_problems(template(), reread(catalog))
    assert len(problems) == 2
    assert "'Runde schließen': a name has only letters, digits, - _ and ', no ' '" in problems[1]
    assert "Discord takes 1 to 100 characters here, this has 110" in problems[0]


def test_a_wrong_plural_header_is_caught() -> None:
    text = catalog_path("de").read_text(encoding="utf-8")
    french_rule = text.replace("plural=(n != 1);", "plural=(n > 1);")  # 0 is singular
    assert french_rule != text
    catalog = read_po(io.StringIO(french_rule))
    [problem] = plural_rule_problems(catalog)
    assert "gives 1 form 0" in problem, problem


def copy_of_the_code(tmp_path: Path) -> Path:
    source = tmp_path / "bot"
    shutil.copytree(ROOT / "bot", source, ignore=shutil.ignore_patterns("__pycache__"))
    return source


def test_a_new_marked_text_or_command_is_caught(tmp_path: Path) -> None:
    source = copy_of_the_code(tmp_path)
    (source / "presentation" / "new_text.py").write_text(
        "from bot.i18n.translate import translate\n\n\n"
        "def hello(language: str) -> str:\n"
        '    return translate(language, "A new text for {who}", who="you")\n'
    )
    admin = source / "discord" / "cogs" / "admin.py"
    admin.write_text(
        admin.read_text().replace('name="show"', 'name="display"'), encoding="utf-8"
    )
    problems = template_problems(extract_template(source, MAPPING), template())
    assert problems == [
        "[command name] 'display' (bot/discord/cogs/admin.py) is not in the template: run "
        "`make catalogs`",
        "'A new text for {who}' (bot/presentation/new_text.py) is not in the template: run "
        "`make catalogs`",
    ]  # "show" stays: /stats show and /sheet show still declare it


def test_the_german_file_with_a_message_removed_fails(tmp_path: Path) -> None:
    """As a contributor would break it: a reply's entry deleted from a copy of the file."""
    source = catalog_path("de")
    replies = [m for m in read_catalog(source) if m.id and m.context is None]
    assert replies, "the German catalog has no reply yet"
    for removed in {id(m): m for m in (replies[0], replies[-1])}.values():
        copy = tmp_path / "duelbot.po"
        copy.write_text(
            without_entry(source.read_text(encoding="utf-8"), removed.lineno), encoding="utf-8"
        )
        assert catalog_problems(template(), read_catalog(copy)) == [
            f"de: {describe(key_of(removed))} is missing: run `make catalogs`, then translate it"
        ]
