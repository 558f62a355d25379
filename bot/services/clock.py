"""The services' clock: timezone-aware UTC now. The same clock as bot.db.models' column
defaults, kept in the services so a use case does not call into bot.db for the time."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)
