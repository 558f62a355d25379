"""Where a duel's archive page lives once the archive is published at ``[archive] base_url``."""

from __future__ import annotations

from bot.archive.page import page_filename

GUILD_PLACEHOLDER = "{guild_id}"


def duel_page_url(base_url: str | None, duel_id: int, guild_id: int | None = None) -> str | None:
    """The page of duel ``duel_id`` under ``base_url`` (None when no base URL is configured).
    ``{guild_id}`` in the base URL is replaced by the duel's server (one archive per server)."""
    if not base_url:
        return None
    base = base_url
    if GUILD_PLACEHOLDER in base:
        if guild_id is None:
            return None
        base = base.replace(GUILD_PLACEHOLDER, str(int(guild_id)))
    return f"{base.rstrip('/')}/{page_filename(duel_id)}"
