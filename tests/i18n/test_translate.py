"""Translating with an explicit language, plural forms by the language's rule, placeholders,
and which language each kind of text is in (bot/i18n)."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.i18n.catalogs import available_languages, translations, translations_of
from bot.i18n.choice import (
    DISCORD_LOCALES,
    dm_language,
    language_for,
    language_name,
    reply_language,
    server_language,
    supported_language,
)
from bot.i18n.command_rules import name_problem
from bot.i18n.placeholders import fields_of, placeholder_problem, plural_placeholder_problem
from bot.i18n.translate import N_, plural_text, translate, translate_in, translate_plural

SET_TO = (
    "Duels started from now on (their cards, rounds, results and exports) are in "
    "{language}. A running duel keeps its language. Replies only one member sees stay "
    "in that member's own Discord language."
)

POLISH = r"""
msgid ""
msgstr ""
"Language: pl\n"
"Plural-Forms: nplurals=3; "
"plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\n"

msgid "{count} duel"
msgid_plural "{count} duels"
msgstr[0] "{count} pojedynek"
msgstr[1] "{count} pojedynki"
msgstr[2] "{count} pojedynków"

#, fuzzy
msgid "Duel"
msgstr "Pojedynek?"

msgid "Round {round}"
msgstr "Runda {runda}"
"""


def test_translate_fills_the_fields_in_the_chosen_language() -> None:
    assert translate("de", SET_TO, language="Deutsch").startswith(
        "Ab jetzt gestartete Duelle (ihre Karten, Runden, Ergebnisse und Exporte) sind auf "
        "Deutsch."
    )
    assert translate("en", SET_TO, language="English").startswith("Duels started")
    # A language without a catalog, and a text the catalog lacks: the English text.
    assert translate("fr", SET_TO, language="x") == SET_TO.format(language="x")
    assert translate("de", "Not in any catalog: {n} {{braces}}", n=3) == (
        "Not in any catalog: 3 {braces}"
    )


def test_a_context_keeps_a_command_name_apart() -> None:
    assert translate_in("de", "command name", "close") == "schließen"
    assert translate("de", "close") == "close"  # the same English, no context: none


def test_plural_forms_follow_the_languages_rule() -> None:
    polish = translations_of(read_po(io.StringIO(POLISH)), "pl")
    forms = {n: plural_text(polish, "{count} duel", "{count} duels", n) for n in (1, 3, 5, 22, 25)}
    assert forms == {
        1: "{count} pojedynek",
        3: "{count} pojedynki",
        5: "{count} pojedynków",
        22: "{count} pojedynki",
        25: "{count} pojedynków",
    }
    assert translate_plural("de", "{count} duel", "{count} duels", 1) == "1 duel"
    assert translate_plural("en", "{count} duel", "{count} duels", 0) == "0 duels"


def test_fuzzy_and_broken_entries_are_not_shown(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        polish = translations_of(read_po(io.StringIO(POLISH)), "pl")
    assert (None, "Duel") not in polish.messages  # fuzzy: not checked by a person
    assert (None, "Round {round}") not in polish.messages  # {runda} is no field of ours
    assert "1 translation(s) ignored" in caplog.text


def test_catalogs_are_read_once_and_listed_from_their_directory(tmp_path: Path) -> None:
    assert translations("de") is translations("de")
    (tmp_path / "pt_BR" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "pt_BR" / "LC_MESSAGES" / "duelbot.po").write_text('msgid ""\nmsgstr ""\n')
    (tmp_path / "fr").mkdir()  # no catalog in it
    assert available_languages(tmp_path) == ("en", "pt_BR")
    assert N_("Marked, not translated") == "Marked, not translated"


@pytest.mark.parametrize(
    ("msgid", "translation", "problem"),
    [
        ("Duel {duel}", "Duell {duel}", None),
        ("{rate:.1f} %", "{rate:.1f} %", None),
        ("Duel {duel}", "Duell", "placeholders differ: missing {duel}"),
        ("Duel {duel}", "Duell {duel} {round}", "not in the English {round}"),
        ("{rate:.1f} %", "{rate} %", "missing {rate:.1f}"),
        ("Duel {duel}", "Duell {duel.__class__}", "is not a plain name"),
        ("Duel", "Duell {0}", "is not a plain name"),
        ("Duel", "Duell }", "a literal brace is written"),
    ],
)
def test_placeholders_must_match(msgid: str, translation: str, problem: str | None) -> None:
    found = placeholder_problem(msgid, translation)
    assert found == problem if problem is None else problem in str(found)


def test_plural_placeholders_may_leave_the_count_out_of_one_form() -> None:
    ids = ("{count} duel of {name}", "{count} duels of {name}")
    assert plural_placeholder_problem(ids, ("ein Duell von {name}", "{count} Duelle von {name}"))\
        is None
    assert "missing {count}" in str(
        plural_placeholder_problem(ids, ("ein Duell von {name}", "Duelle von {name}"))
    )
    assert "not in the English {x}" in str(
        plural_placeholder_problem(ids, ("{x}", "{count} Duelle von {name}"))
    )
    assert fields_of("{{literal}} {a} {b!r} {c:>4}") == {"{a}", "{b!r}", "{c:>4}"}


@pytest.mark.parametrize(
    ("locale", "language"),
    [
        ("de", "de"),
        ("DE", "de"),
        ("de-AT", "de"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("pt-BR", "en"),  # no Portuguese catalog yet
        ("zh-TW", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_discord_locales_resolve_to_a_catalog_or_english(
    locale: str | None, language: str
) -> None:
    assert language_for(locale) == language
    assert reply_language(locale) == language


def test_every_discord_locale_resolves() -> None:
    resolved = {locale: supported_language(locale) for locale in DISCORD_LOCALES}
    assert resolved["de"] == "de"
    assert {resolved["en-US"], resolved["en-GB"]} == {"en"}
    assert {language for language in resolved.values() if language} == {"de", "en"}


def test_which_language_each_kind_of_text_is_in() -> None:
    # Public posts: the chosen language, else the server's preferred locale, else English.
    assert server_language("de", "en-US") == "de"
    assert server_language(None, "de") == "de"
    assert server_language(None, None) == "en"
    assert server_language("fr", "de") == "de"  # a language whose catalog was removed
    # DMs: the member's last language with the bot, else the server's.
    assert dm_language("en-GB", "de", "de") == "en"
    assert dm_language(None, "de", "en-US") == "de"
    assert dm_language(None, None, "de") == "de"
    assert dm_language("ja", None, None) == "en"  # no Japanese catalog, no server language


def test_language_names_are_endonyms() -> None:
    assert [language_name(code) for code in ("de", "en", "pt_BR")] == [
        "Deutsch",
        "English",
        "Português (Brasil)",
    ]
    assert language_name("xx-nonsense") == "xx-nonsense"


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("zurücknehmen", True),
        ("rücknahme-frist", True),
        ("auch_beendete", True),
        ("Duell", False),
        ("duell starten", False),
        ("x" * 33, False),
        ("", False),
        ("duell!", False),
    ],
)
def test_discords_name_rule(name: str, ok: bool) -> None:
    assert (name_problem(name) is None) is ok
