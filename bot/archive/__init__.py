"""The duel archive (issue 15): self-contained HTML pages that show a duel and verify every
roll in the browser, and a static site of a server's duels. Presentation only: no Discord,
no database (tests/test_layering.py)."""

from __future__ import annotations

from bot.archive.links import duel_page_url
from bot.archive.page import PAGE_FORMAT, page_filename, render_duel_page
from bot.archive.site import INDEX_FILENAME, index_entry, render_index_page, write_archive
from bot.exports.formats import duel_json
from bot.services.views import DuelHistory


def export_html(history: DuelHistory) -> str:
    """A duel's archive page, from what `/duel export` and `duelbot export` already read."""
    return render_duel_page(duel_json(history))


__all__ = [
    "INDEX_FILENAME",
    "PAGE_FORMAT",
    "duel_page_url",
    "export_html",
    "index_entry",
    "page_filename",
    "render_duel_page",
    "render_index_page",
    "write_archive",
]
