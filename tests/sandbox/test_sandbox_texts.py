"""The sandbox page's own texts (issue 28): in the language of ``?lang=``, else of the
browser's Accept-Language, else English; ``<html lang>`` says which, and the texts app.js
writes travel in the page as a JSON dictionary."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from aiohttp.test_utils import make_mocked_request

from bot.sandbox.api import SandboxApi
from bot.sandbox.texts import page_language
from bot.sandbox.world import populate
from bot.standin import FakeDiscord


@pytest.mark.parametrize(
    ("query", "accept", "expected"),
    [
        (None, None, None),
        (None, "de-DE,de;q=0.9,en;q=0.8", "de"),
        (None, "fr-FR, fr;q=0.9, de;q=0.5", "de"),  # the first wanted one with a catalog
        (None, "de;q=0.1, en;q=0.9", "en"),  # by weight, not order
        (None, "de;q=0, fr", None),  # q=0: not wanted
        ("de", "en-US,en", "de"),  # ?lang= wins
        ("en", "de", "en"),
        ("xx", "de", "de"),  # an unknown ?lang= is ignored
        (None, "*, ;;, de-;q=abc", None),  # nonsense is ignored
    ],
)
def test_the_page_language(query: str | None, accept: str | None, expected: str | None) -> None:
    assert page_language(query, accept) == expected


async def page(path: str, headers: dict[str, str] | None = None) -> str:
    fake = FakeDiscord(token="t", bot_name="DuelBot")
    api = SandboxApi(fake, populate(fake))
    response: Any = await api.page(make_mocked_request("GET", path, headers=headers or {}))
    assert response.status == 200 and response.content_type == "text/html"
    return bytes(response.body).decode("utf-8")


def texts_of(html: str) -> dict[str, Any]:
    start = html.index('id="sandbox-texts">') + len('id="sandbox-texts">')
    return dict(json.loads(html[start : html.index("</script>", start)]))


async def test_the_page_in_german_and_in_english() -> None:
    german = await page("/?lang=de")
    assert '<html lang="de">' in german and "<title>duelbot-Sandbox</title>" in german
    assert ">Direktnachrichten mit dem Bot</h2>" in german
    assert '<button id="run-command" type="submit">Ausführen</button>' in german
    assert 'aria-label="Kanäle und Personen"' in german
    texts = texts_of(german)
    assert texts["required"] == "(Pflichtfeld)"
    assert texts["guide_start"] == (
        "Als Nächstes: Starte ein Duell zwischen {a} und {b} (/duel start)."
    )
    assert set(texts["missing_options"]) == {"one", "other"}
    assert "{{" not in german

    browser_german = await page("/", {"Accept-Language": "de-AT,de;q=0.9"})
    assert '<html lang="de">' in browser_german

    english = await page("/")
    assert '<html lang="en">' in english and "<title>duelbot sandbox</title>" in english
    assert ">Direct messages with the bot</h2>" in english
    assert texts_of(english)["required"] == "(required)"
    assert not re.search(r"\{\{[a-z_]+\}\}", english)
