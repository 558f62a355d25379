"""Exports speak the duel's language (issue 28): a German duel's HTML export (its archive
page) has ``<html lang="de">`` and German headings and texts; its JSON names the language
and keeps English field names; the Markdown and BBCode exports are built in German; a
caller inside another language's scope (a member's English reply) still gets the duel's
language in the file; an English duel's export stays English."""

from __future__ import annotations

import json
import re

import pytest

from bot.archive.page import render_duel_page
from bot.archive.site import render_index_page
from bot.db.engine import Database
from bot.exports import formats
from bot.exports.formats import duel_json, export_duel, export_html
from bot.i18n.context import current_language, speaking
from bot.services.container import Services
from tests.archive.duels import export_of, rule_2_14_duel
from tests.archive.german import german_duel, history_of
from tests.archive.test_page import script_text


async def test_a_german_duels_html_export_is_german(
    services: Services, database: Database
) -> None:
    duel_id = await german_duel(services, database)
    history = await history_of(services, database, duel_id)
    with speaking("en"):  # an English member asked for it: the file is the duel's
        page = export_html(history)
    assert '<html lang="de">' in page
    assert f"<title>Duell #{duel_id}: Alice gegen Bob</title>" in page
    assert '<h2 id="verify-heading">Nachweislich faire Würfel</h2>' in page
    assert '<h2 id="overview-heading">Das Duell</h2>' in page
    assert '<h2 id="rules-heading">Geltende Regeln</h2>' in page
    assert ">Jeden Wurf prüfen</button>" in page
    assert 'aria-label="Die Duellanten"' in page
    assert "<strong>Das Ergebnis prüft sie nicht</strong>" in page
    # The texts the page's script writes, in German, and its moments as Germans write them.
    texts = json.loads(script_text(page, "duel-texts"))
    assert texts["round"] == "Runde {number}"
    assert texts["summary_rolls"]["other"] == "{ok} von {count} Würfen stimmen überein;"
    assert set(texts["summary_rolls"]) == {"one", "other"}  # German's plural categories
    created = json.loads(script_text(page, "duel-data"))["created_at"]
    assert texts["dates"][created].endswith(" UTC")
    assert re.search(r"\d{1,2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC", texts["dates"][created])
    # Nothing of the English page's own texts is left in the HTML.
    for english in ("Provably fair dice", "Rules in force", "Verify every roll", "The duel<"):
        assert english not in page


async def test_a_german_duels_json_export_names_its_language(
    services: Services, database: Database
) -> None:
    duel_id = await german_duel(services, database)
    history = await history_of(services, database, duel_id)
    document = json.loads(export_duel(history, "json"))
    assert document["language"] == "de"
    assert document == duel_json(history)
    # Field names and codes stay English.
    assert {"duel_id", "rounds", "duellists", "status", "winner"} <= set(document)
    assert document["status"] == "ended" and document["rounds"][0]["status"] in (
        "closed",
        "undone",
    )
    # The archive page of the JSON alone (`duelbot archive`) is German too.
    assert '<html lang="de">' in render_duel_page(document)


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
async def test_text_exports_are_built_in_the_duels_language(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    duel_id = await german_duel(services, database)
    history = await history_of(services, database, duel_id)
    spoken: list[str] = []
    layout = formats.duel_export

    def recording(*args: object) -> str:
        spoken.append(current_language())
        return layout(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(formats, "duel_export", recording)
    with speaking("en"):
        text = export_duel(history, fmt)
        assert current_language() == "en"  # the caller's scope is left as it was
    assert spoken == ["de"] and text


async def test_an_english_duels_export_stays_english(services: Services) -> None:
    export = await export_of(services, await rule_2_14_duel(services))
    assert export["language"] is None
    page = render_duel_page(export)
    assert '<html lang="en">' in page and "Provably fair dice" in page
    # A German reader of the same file: the caller may name the language.
    german = render_duel_page(export, "de")
    assert '<html lang="de">' in german and "Nachweislich faire Würfel" in german


async def test_the_index_speaks_the_language_it_is_given(services: Services) -> None:
    export = await export_of(services, await rule_2_14_duel(services))
    english = render_index_page([export])
    assert '<html lang="en">' in english and "<title>Duel archive</title>" in english
    assert "1 duel." in english
    german = render_index_page([export], language="de")
    assert '<html lang="de">' in german and "<title>Duellarchiv</title>" in german
    assert ">Duellanten</th>" in german and "1 Duell." in german
    assert "Alice gegen Bob" in german and "beendet, gewonnen von" in german
    texts = json.loads(script_text(german, "archive-texts"))
    assert texts["showing"]["other"] == "{shown} von {count} Duellen angezeigt."
