"""One duel as a self-contained HTML page (issue 15): the JSON export embedded verbatim,
shown and verified in the browser by the inline script (docs/archive.md).

The page speaks the duel's language (issue 28): the export's ``language`` (the server's when
the duel started), or the one the caller names. Its template's texts are filled in here and
the texts its script writes travel in the ``duel-texts`` element (bot/archive/page_texts.py),
so that the page needs no catalog of its own."""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from bot.archive.page_texts import default_name, html_texts, script_texts
from bot.archive.page_texts import page_title as titled
from bot.archive.texts import locale_tag
from bot.i18n.context import speaking
from bot.rules import registry
from bot.rules.capabilities import VerifiableDice, capability

#: Bumped when the page's DOM contract (docs/archive.md) changes (3: the ``duel-texts``
#: element and ``<html lang>``, issue 28).
PAGE_FORMAT = "duelbot-archive-page/3"

#: A programmer's mistake, never a member's.
_NOT_AN_EXPORT = (
    "render_duel_page needs a duel's JSON export (a dict with duel_id)"  # i18n: not shown
)
_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")


@cache
def asset(name: str) -> str:
    """A file of the page's package data (bot/archive/static)."""
    return (resources.files("bot.archive") / "static" / name).read_text(encoding="utf-8")


def embed_json(export: dict[str, Any]) -> str:
    """The export as the JSON file gives it, safe inside a <script> element: "</" cannot end
    the element and "<!--" cannot start a comment state. Both escapes are JSON escapes in a
    string (where alone those characters can occur), so the text parses to the same value."""
    text = json.dumps(export, indent=2, ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def duellist_names(export: dict[str, Any]) -> tuple[str, str]:
    duellists = export.get("duellists")
    names = []
    for side in ("a", "b"):
        entry = duellists.get(side) if isinstance(duellists, dict) else None
        name = entry.get("name") if isinstance(entry, dict) else None
        names.append(str(name) if name else default_name(side))
    return names[0], names[1]


def page_title(export: dict[str, Any]) -> str:
    """The page's title in the current language (unescaped)."""
    a, b = duellist_names(export)
    return titled(export.get("duel_id", "?"), a, b)


def duel_language(export: dict[str, Any]) -> str | None:
    """The language an export says its duel speaks (None: English, or an export from
    before languages)."""
    language = export.get("language")
    return language if isinstance(language, str) and language else None


def fill(template: str, values: dict[str, str]) -> str:
    """One pass over the template: a value is never searched for placeholders itself. Every
    placeholder of the template must have a value (KeyError otherwise)."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def rules_facts(export: dict[str, Any]) -> dict[str, Any]:
    """What the page's checks need from the duel's ruleset, looked up in bot/rules when the
    page is rendered (the page cannot run the rules): the dice this duel can roll and how
    its log states them (its ``VerifiableDice`` capability). None where the ruleset is
    unknown here or does not say: the page then says that check was not run."""
    ruleset_id = export.get("ruleset")
    rules = capability(registry.get_or_none(str(ruleset_id)), VerifiableDice)
    if rules is None:
        return {"ruleset": ruleset_id, "dice": None, "log_dice_pattern": None}
    duellists = export.get("duellists")
    dice = rules.dice_for(duellists if isinstance(duellists, dict) else {})
    return {
        "ruleset": ruleset_id,
        "dice": sorted(set(dice)) if dice else None,
        "log_dice_pattern": rules.log_dice_pattern,
    }


def render_duel_page(export_json: dict[str, Any], language: str | None = None) -> str:
    """The archive page of one duel from its JSON export (bot.exports.formats.duel_json), in
    ``language`` (a catalog's), else the export's own ``language``, else English. Pure: no
    I/O but reading the package's own assets."""
    if not isinstance(export_json, dict) or "duel_id" not in export_json:
        raise ValueError(_NOT_AN_EXPORT)
    with speaking(language or duel_language(export_json)) as speaks:
        return fill(
            asset("page.html"),
            {
                "lang": locale_tag(speaks),
                "title": html.escape(page_title(export_json)),
                "css": asset("page.css"),
                "js": asset("page.js"),
                "data": embed_json(export_json),
                "rules": embed_json(rules_facts(export_json)),
                "texts": embed_json(script_texts(export_json)),
                "page_format": PAGE_FORMAT,
                **html_texts(),
            },
        )


def page_filename(duel_id: int) -> str:
    return f"duel-{int(duel_id)}.html"
