"""Export a whole duel (pure): Markdown, BBCode or JSON. Rounds still open stay sealed:
only their number, commitment and deadline appear. The text formats are laid out once in
bot/presentation/markup.py; the JSON document is bot/exports/document.py's."""

from __future__ import annotations

from typing import Any

from bot.archive.page import render_duel_page
from bot.exports.document import document_json, duel_document
from bot.presentation.markup import MARKUPS, duel_export
from bot.presentation.views import history_view
from bot.services.views import DuelHistory

EXPORT_FORMATS = ("markdown", "bbcode", "json")


def duel_json(history: DuelHistory) -> dict[str, Any]:
    """The versioned JSON export (docs/export-format.md); bot.exports.document builds it."""
    return duel_document(history)


def export_duel(history: DuelHistory, fmt: str) -> str:
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "json":
        return document_json(history)
    return duel_export(history_view(history), MARKUPS[fmt])


def export_html(history: DuelHistory) -> str:
    """A duel's archive page, from what `/duel export` and `duelbot export` already read."""
    return render_duel_page(duel_json(history))
