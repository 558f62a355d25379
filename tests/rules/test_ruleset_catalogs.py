"""The rulesets' own catalogs (issue 28): each ruleset package carries the catalog of its
words (``<package>/locales``), and bot/rules the one of the texts it shares. Each template
holds exactly what its package marks (`make catalogs`), every language the bot has
translates all of it with the English placeholders (a missing or untranslated message
fails here), and the catalogs ship in the wheel. The last tests show the checks can fail."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from bot.i18n.catalogs import (
    SOURCE_LANGUAGE,
    available_languages,
    catalog_path,
    read_catalog,
    translations_of,
)
from bot.i18n.check import (
    catalog_problems,
    english_problems,
    messages_of,
    plural_rule_problems,
    template_problems,
)
from bot.i18n.extraction import extract_template
from bot.i18n.ruleset_catalogs import package_locales

ROOT = Path(__file__).resolve().parents[2]
MAPPING = ROOT / "babel.cfg"
RULES = ROOT / "bot" / "rules"
#: Every ruleset package of bot/rules (a directory with an __init__.py).
RULESET_PACKAGES = sorted(p.parent for p in RULES.glob("*/__init__.py"))
#: (package name, its directory, whether its subdirectories are its own): bot/rules holds
#: the shared texts only, extracted without the ruleset packages.
CATALOGS = [("bot.rules", RULES, False)] + [
    (f"bot.rules.{p.name}", p, True) for p in RULESET_PACKAGES
]
LANGUAGES = [language for language in available_languages() if language != SOURCE_LANGUAGE]
IDS = [name for name, _, _ in CATALOGS]


def template_of(directory: Path) -> Catalog:
    return read_catalog(directory / "locales" / "duelbot.pot")


def test_every_ruleset_package_has_a_catalog() -> None:
    assert {p.name for p in RULESET_PACKAGES} >= {"rule_2_14", "foeq", "by_this_axe"}
    for name, directory, _ in CATALOGS:
        assert package_locales(name) == directory / "locales", name
        assert (directory / "locales" / "duelbot.pot").is_file(), name


@pytest.mark.parametrize(("name", "directory", "own"), CATALOGS, ids=IDS)
def test_the_template_holds_what_the_package_marks(
    name: str, directory: Path, own: bool
) -> None:
    extracted = extract_template(directory, MAPPING, subdirectories=own)
    assert template_problems(extracted, template_of(directory)) == []
    assert english_problems(template_of(directory)) == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("name", "directory", "own"), CATALOGS, ids=IDS)
def test_every_message_is_translated_with_its_placeholders(
    name: str, directory: Path, own: bool, language: str
) -> None:
    path = catalog_path(language, directory / "locales")
    assert path.is_file(), f"{name} has no {language} catalog: run `make catalogs`"
    catalog = read_catalog(path)
    assert catalog_problems(template_of(directory), catalog) == []
    assert plural_rule_problems(catalog) == []
    # It loads whole: no message is left out at run time (fuzzy, empty or broken).
    loaded = translations_of(catalog, language)
    assert len(loaded.messages) == len(messages_of(template_of(directory)))


def test_the_catalogs_ship_in_the_wheel() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = data["tool"]["setuptools"]["package-data"]
    for name, _, _ in CATALOGS:
        assert package_data.get(name) == ["locales/*.pot", "locales/*/LC_MESSAGES/*.po"], name


def test_the_bots_template_leaves_the_rules_out() -> None:
    bots = read_catalog(ROOT / "bot" / "locales" / "duelbot.pot")
    assert not [
        m.id for m in bots if m.id and any(f.startswith("bot/rules/") for f, _ in m.locations)
    ]


# -- each check can fail -----------------------------------------------------------------


def test_a_missing_or_untranslated_german_message_is_named() -> None:
    directory = RULES / "rule_2_14"
    catalog = read_catalog(catalog_path("de", directory / "locales"))
    catalog.delete("Side Swipe")
    catalog["Evade"].string = ""
    catalog["Retreat"].flags.add("fuzzy")
    problems = catalog_problems(template_of(directory), catalog)
    assert problems == [
        "de: 'Evade' is not translated",
        "de: 'Retreat' is marked fuzzy: check the translation, drop the flag",
        "de: 'Side Swipe' is missing: run `make catalogs`, then translate it",
    ]


def test_a_broken_placeholder_is_named_and_left_out() -> None:
    directory = RULES / "foeq"
    catalog = read_catalog(catalog_path("de", directory / "locales"))
    catalog["You keep your Style: {style}."].string = "Du behältst deinen Stil: {stil}."
    problems = catalog_problems(template_of(directory), catalog)
    assert len(problems) == 1 and "You keep your Style" in problems[0]
    loaded = translations_of(catalog, "de")
    assert (None, "You keep your Style: {style}.") not in loaded.messages


def test_a_new_marked_text_in_a_package_is_named(tmp_path: Path) -> None:
    copy = tmp_path / "by_this_axe"
    shutil.copytree(RULES / "by_this_axe", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "extra.py").write_text(
        "from bot.rules.by_this_axe.text import _\n\n"
        "def shout() -> str:\n    return _(\"The axe falls!\")\n",
        encoding="utf-8",
    )
    problems = template_problems(
        extract_template(copy, MAPPING), template_of(RULES / "by_this_axe")
    )
    assert problems == [
        "'The axe falls!' (by_this_axe/extra.py) is not in the template: run `make catalogs`"
    ]
