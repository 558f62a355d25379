"""The catalog test for the ruleset packages (issue 28, bot/rules/text.py): each package in
bot/rules writes its own words with ``_ = RulesetText(__package__)`` and carries their
translations in ``<package>/locales/<language>/LC_MESSAGES/duelbot.po``.

A package's template is what ``pybabel extract`` finds marked in the package (``_``,
``_n``, ``_p``, ``N_``, read by bot/i18n/extraction.py); a ``locales/duelbot.pot`` it ships
must hold exactly that. Every catalog of a package translates all of its template, none
fuzzy, the English placeholders kept (the same checks as bot/locales, bot/i18n/check.py),
and a package that marks texts has a German catalog (German is complete).

The second half shows that the check fails on a copy of a package's catalog with one
entry removed.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.i18n.catalogs import DOMAIN, SOURCE_LANGUAGE, catalog_path, read_catalog
from bot.i18n.check import (
    catalog_problems,
    english_problems,
    key_of,
    messages_of,
    plural_rule_problems,
    template_problems,
)
from bot.i18n.extraction import COMMENT_TAG
from tests.i18n.po_text import without_entry

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "bot" / "rules"
#: The markers of a ruleset package's texts (bot/rules/text.py), as bot/i18n reads them.
METHOD_MAP = [("**.py", "bot.i18n.extraction:extract_markers")]
#: The languages a package that marks texts must have.
REQUIRED = ("de",)


def ruleset_packages() -> list[Path]:
    return sorted(
        path for path in RULES.iterdir() if path.is_dir() and (path / "__init__.py").is_file()
    )


def package_template(package: Path) -> Catalog:
    """What ``pybabel extract`` finds marked in ``package`` (its modules only)."""
    template = Catalog(domain=DOMAIN)
    found = extract_from_dir(package, METHOD_MAP, comment_tags=(COMMENT_TAG,))
    for filename, lineno, message, comments, context in found:
        template.add(
            message,
            locations=[(f"{package.name}/{filename}", lineno)],
            auto_comments=comments,
            context=context,
        )
    return template


def package_languages(package: Path) -> list[str]:
    locales = package / "locales"
    if not locales.is_dir():
        return []
    return sorted(
        path.name
        for path in locales.iterdir()
        if path.is_dir() and catalog_path(path.name, locales).is_file()
    )


CATALOGS = [
    pytest.param(package, language, id=f"{package.name}-{language}")
    for package in ruleset_packages()
    for language in package_languages(package)
    if language != SOURCE_LANGUAGE
]


def test_the_three_rulesets_are_packages_here() -> None:
    names = {package.name for package in ruleset_packages()}
    assert {"rule_2_14", "foeq", "by_this_axe"} <= names


@pytest.mark.parametrize("package", ruleset_packages(), ids=lambda p: p.name)
def test_a_package_that_marks_texts_has_a_german_catalog(package: Path) -> None:
    template = package_template(package)
    if not len(template):
        pytest.skip(f"{package.name} marks no text yet")
    assert english_problems(template) == []
    missing = [language for language in REQUIRED if language not in package_languages(package)]
    assert missing == [], (
        f"{package.name} marks {len(template)} text(s) but has no catalog for {missing}: "
        f"pybabel init -i <template> -d bot/rules/{package.name}/locales -D duelbot -l de"
    )


@pytest.mark.parametrize("package", ruleset_packages(), ids=lambda p: p.name)
def test_a_shipped_package_template_holds_what_the_package_marks(package: Path) -> None:
    shipped = package / "locales" / f"{DOMAIN}.pot"
    if not shipped.is_file():
        pytest.skip(f"{package.name} ships no template")
    assert template_problems(package_template(package), read_catalog(shipped)) == []


@pytest.mark.parametrize(("package", "language"), CATALOGS)
def test_every_package_message_is_translated_with_its_placeholders(
    package: Path, language: str
) -> None:
    catalog = read_catalog(catalog_path(language, package / "locales"))
    assert catalog_problems(package_template(package), catalog) == []
    assert plural_rule_problems(catalog) == []


# -- the check fails when an entry is removed ----------------------------------------------


def a_package_with_a_german_catalog(tmp_path: Path) -> Path:
    """A small ruleset package as the real ones are written, with a complete German
    catalog: a plain text, one with a context, a plural, a marked constant."""
    package = tmp_path / "duel_of_wits"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "texts.py").write_text(
        "from bot.rules.text import N_, RulesetText\n\n"
        "_ = RulesetText(__package__)\n"
        "_n = _.plural\n"
        "_p = _.context\n"
        'RIPOSTE = N_("Riposte")\n\n\n'
        "def result(a: str, b: str, hits: int) -> list[str]:\n"
        "    return [\n"
        '        _("{winner} outwits {loser}.", winner=a, loser=b),\n'
        '        _p("move", "Feint"),\n'
        '        _n("{count} hit", "{count} hits", hits),\n'
        "        _(RIPOSTE),\n"
        "    ]\n"
    )
    german = Catalog(locale="de", domain=DOMAIN)
    for message in package_template(package):
        if not message.id:
            continue
        translations = {
            "{winner} outwits {loser}.": "{winner} überlistet {loser}.",
            "Feint": "Finte",
            "Riposte": "Riposte",
        }
        if isinstance(message.id, tuple | list):
            string: str | tuple[str, str] = ("{count} Treffer", "{count} Treffer")
        else:
            string = translations[str(message.id)]
        german.add(message.id, string, context=message.context)
    po = catalog_path("de", package / "locales")
    po.parent.mkdir(parents=True)
    with po.open("wb") as file:
        write_po(file, german, width=0)
    return package


def test_a_package_catalog_with_an_entry_removed_fails(tmp_path: Path) -> None:
    package = a_package_with_a_german_catalog(tmp_path)
    template = package_template(package)
    assert len(template) == 4
    po = catalog_path("de", package / "locales")
    assert catalog_problems(template, read_catalog(po)) == []

    [feint] = [m for m in read_catalog(po) if m.id == "Feint"]
    po.write_text(without_entry(po.read_text(encoding="utf-8"), feint.lineno), encoding="utf-8")
    assert catalog_problems(template, read_catalog(po)) == [
        "de: [move] 'Feint' is missing: run `make catalogs`, then translate it"
    ]


@pytest.mark.parametrize(("package", "language"), CATALOGS)
def test_a_real_package_catalog_with_an_entry_removed_fails(
    package: Path, language: str, tmp_path: Path
) -> None:
    source = catalog_path(language, package / "locales")
    template = package_template(package)
    wanted = messages_of(template)
    entries = [m for m in read_catalog(source) if m.id and key_of(m) in wanted]
    if not entries:
        pytest.skip(f"{package.name}/{language} has no entry yet")
    removed = entries[len(entries) // 2]
    copy = tmp_path / "duelbot.po"
    copy.write_text(
        without_entry(source.read_text(encoding="utf-8"), removed.lineno), encoding="utf-8"
    )
    problems = catalog_problems(template, read_catalog(copy))
    assert any(p.endswith("is missing: run `make catalogs`, then translate it") for p in problems)
    assert len(problems) == 1, problems


def test_without_entry_removes_just_that_entry() -> None:
    text = (
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n'
        "#: bot/rules/x/a.py\n"
        'msgid "One"\nmsgstr "Eins"\n\n'
        "#: bot/rules/x/b.py\n"
        'msgid ""\n"Two "\n"words"\nmsgstr "Zwei Wörter"\n\n'
        'msgid "Three"\nmsgstr "Drei"\n'
    )
    assert without_entry(text, 10) == (
        'msgid ""\nmsgstr ""\n"Language: de\\n"\n\n'
        "#: bot/rules/x/a.py\n"
        'msgid "One"\nmsgstr "Eins"\n\n'
        'msgid "Three"\nmsgstr "Drei"\n'
    )
    catalog = read_catalog_text(without_entry(text, 6))
    assert [m.id for m in catalog if m.id] == ["Two words", "Three"]


def read_catalog_text(text: str) -> Catalog:
    return read_po(io.StringIO(text))
