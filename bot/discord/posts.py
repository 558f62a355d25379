"""The outbox posts in Discord's format: rendered by bot/presentation/discord_posts.py (the
embed renderer over the presentation views). This module names what the poster uses."""

from __future__ import annotations

from bot.presentation.discord_posts import (
    ARCHIVE_LINK_TITLE,
    Rendered,
    button_label,
    dm_buttons,
    marker,
    marker_ids,
    render_message,
    render_post,
    thread_name,
)

__all__ = [
    "ARCHIVE_LINK_TITLE",
    "Rendered",
    "button_label",
    "dm_buttons",
    "marker",
    "marker_ids",
    "render_message",
    "render_post",
    "thread_name",
]
