"""Export a whole duel (pure): Markdown, BBCode, JSON or HTML (its archive page). Rounds
still open stay sealed: only their number, commitment and deadline appear. The text formats
are laid out once in bot/presentation/markup.py; the JSON document is
bot/exports/document.py's; the page is bot/archive/page.py's.

Every export speaks the duel's language (issue 28): ``language`` when the caller gives one,
else the duel's own (``duels.language``, read from the history; None: English). Each entry
point opens that ``speaking`` scope itself, around everything it builds, so a caller inside
another scope (a member's reply in their own language) still gets the duel's language in
the file. JSON field names and codes stay English."""

from __future__ import annotations

from typing import Any

from bot.archive.page import render_duel_page
from bot.exports.document import document_json, duel_document, duel_language
from bot.i18n.context import speaking
from bot.presentation.markup import MARKUPS, duel_export
from bot.presentation.views import history_view
from bot.services.views import DuelHistory

EXPORT_FORMATS = ("markdown", "bbcode", "json")


def duel_json(history: DuelHistory, language: str | None = None) -> dict[str, Any]:
    """The versioned JSON export (docs/export-format.md); bot.exports.document builds it."""
    return duel_document(history, language)


def export_duel(history: DuelHistory, fmt: str, language: str | None = None) -> str:
    """The duel in a text format (``EXPORT_FORMATS``), in ``language`` or the duel's."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}")
    chosen = language or duel_language(history)
    if fmt == "json":
        return document_json(history, chosen)
    with speaking(chosen):
        return duel_export(history_view(history), MARKUPS[fmt])


def export_html(history: DuelHistory, language: str | None = None) -> str:
    """A duel's archive page, from what `/duel export` and `duelbot export` already read,
    in ``language`` or the duel's (``<html lang>`` says which)."""
    chosen = language or duel_language(history)
    return render_duel_page(duel_json(history, chosen), chosen)
