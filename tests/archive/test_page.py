"""The archive page as text (no browser): the JSON export is embedded verbatim and cannot
break out of its element; nothing is loaded from elsewhere; the assets are package data."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bot.archive.page import PAGE_FORMAT, asset, embed_json, page_filename, render_duel_page
from bot.exports.formats import export_duel
from bot.services.container import Services
from bot.services.views import MemberRef
from tests.archive.duels import export_of, rule_2_14_duel
from tests.services.helpers import CAROL, DAVE, GUILD


def script_text(page: str, element_id: str) -> str:
    start = page.index(f'id="{element_id}">') + len(f'id="{element_id}">')
    return page[start : page.index("</script>", start)]


async def test_the_page_carries_the_json_export_verbatim(services: Services) -> None:
    duel_id = await rule_2_14_duel(services)
    history = await services.duels.history(duel_id, GUILD)
    page = render_duel_page(await export_of(services, duel_id))
    carried = script_text(page, "duel-data")
    # The JSON file of `/duel export format:json`, but for the "</" escape.
    assert carried.replace("<\\/", "</") == export_duel(history, "json").rstrip("\n")
    assert json.loads(carried) == json.loads(export_duel(history, "json"))
    assert f"<title>Duel #{duel_id}: Alice vs Bob</title>" in page
    assert PAGE_FORMAT in page


async def test_hostile_names_cannot_end_the_script_element(services: Services) -> None:
    a = MemberRef(CAROL.user_id, "</script><script>alert(1)</script>")
    b = MemberRef(DAVE.user_id, "<!--<script>x</SCRIPT >")
    export = await export_of(services, await rule_2_14_duel(services, a, b))
    page = render_duel_page(export)
    # The data's, the ruleset facts', the page's texts' and the code's.
    assert len(re.findall(r"</script", page, re.IGNORECASE)) == 4
    assert "<!--" not in page
    assert json.loads(script_text(page, "duel-data")) == export
    # The server-side title is escaped; everything else is built from the JSON as text.
    assert "<title>Duel #" in page and "&lt;/script&gt;&lt;script&gt;alert(1)" in page


def test_the_escapes_are_json_escapes() -> None:
    value: dict[str, Any] = {"duel_id": 1, "s": "a</b <!-- c </script> \u2028"}
    assert json.loads(embed_json(value)) == value
    assert "</" not in embed_json(value) and "<!--" not in embed_json(value)


def test_the_page_loads_nothing_from_elsewhere() -> None:
    page = render_duel_page({"duel_id": 5, "duellists": {}, "rounds": []})
    for attribute in re.findall(r"\b(?:src|href|action|srcset|poster)\s*=\s*\S+", page):
        raise AssertionError(f"a reference in the page: {attribute}")
    assert "url(" not in page and "@import" not in page
    assert "fetch(" not in page and "XMLHttpRequest" not in page and "WebSocket" not in page
    # The browser refuses any request the page might still make.
    assert "default-src 'none'" in page and "connect-src 'none'" in page
    assert "{{" not in page


def test_the_assets_are_package_data_and_cannot_end_their_element() -> None:
    for name in ("page.html", "page.css", "page.js", "index.html", "index.css", "index.js"):
        assert asset(name)
    assert "</script" not in asset("page.js").lower() and "</script" not in asset("index.js")
    assert "</style" not in asset("page.css").lower()


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="JSON export"):
        render_duel_page({"rounds": []})
    assert page_filename(12) == "duel-12.html"


async def test_the_page_carries_what_the_ruleset_says_of_its_dice(services: Services) -> None:
    """Issue 23, item 10: the dice this duel can roll and how its log states them, from
    bot/rules when the page is rendered (the page cannot run the rules)."""
    export = await export_of(services, await rule_2_14_duel(services))
    facts = json.loads(script_text(render_duel_page(export), "duel-rules"))
    # Alice STR 8 AGI 3, Bob STR 2 AGI 5: Evade AGI - their STR, Strike STR - their AGI.
    assert facts == {
        "ruleset": "rule-2.14",
        "dice": [-3, -1, 1, 3],
        "log_dice_pattern": facts["log_dice_pattern"],
    }
    assert facts["log_dice_pattern"]
    unknown = {"duel_id": 1, "ruleset": "</script><!--", "duellists": {}, "rounds": []}
    page = render_duel_page(unknown)
    assert json.loads(script_text(page, "duel-rules")) == {
        "ruleset": "</script><!--",
        "dice": None,
        "log_dice_pattern": None,
    }
    assert len(re.findall(r"</script", page, re.IGNORECASE)) == 4 and "<!--" not in page
