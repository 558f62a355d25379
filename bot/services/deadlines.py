"""Deadline parsing: relative ("36h", "2d", "1d 12h", "90m") or absolute UTC
("2026-12-01 18:00 UTC", ISO 8601 with an offset). Naive absolute times are UTC."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from bot.i18n.context import _
from bot.i18n.translate import N_
from bot.services.errors import InvalidInput

MIN_DEADLINE = timedelta(minutes=1)
MAX_DEADLINE = timedelta(days=60)

_UNIT_SECONDS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_RELATIVE = re.compile(r"(\d{1,5})\s*(w|d|h|m|s)")
_HELP = N_(
    "Give a duration such as `36h`, `2d`, `1d 12h`, `90m`, or a UTC time such as "
    "`2026-12-01 18:00 UTC`."
)


def parse_duration(text: str) -> timedelta:
    cleaned = "".join(str(text).split()).lower()
    cleaned = cleaned.replace("hours", "h").replace("hour", "h").replace("hrs", "h")
    cleaned = cleaned.replace("days", "d").replace("day", "d").replace("mins", "m")
    cleaned = cleaned.replace("min", "m").replace("weeks", "w").replace("week", "w")
    if not cleaned or _RELATIVE.sub("", cleaned):
        raise InvalidInput(
            _("{text} is not a duration. {help}", text=repr(shorten(text)), help=_(_HELP))
        )
    return timedelta(seconds=sum(int(n) * _UNIT_SECONDS[u] for n, u in _RELATIVE.findall(cleaned)))


def parse_deadline(text: str, now: datetime) -> datetime:
    """The deadline as an aware UTC datetime, checked to lie 1 minute to 60 days ahead."""
    raw = " ".join(str(text).split())
    if not raw:
        raise InvalidInput(_("The deadline is empty. {help}", help=_(_HELP)))
    try:
        if _RELATIVE.match(raw.lower()):
            when = now + parse_duration(raw)
        else:
            when = _parse_absolute(raw)
    except OverflowError:  # beyond datetime's years 1..9999, e.g. "99999w" repeated
        raise InvalidInput(
            _(
                "{text} is out of range: a deadline lies 1 minute to 60 days ahead.",
                text=repr(shorten(raw)),
            )
        ) from None
    if when - now < MIN_DEADLINE:
        raise InvalidInput(
            _(
                "The deadline {when} UTC is not in the future (at least 1 minute ahead).",
                when=f"{when:%Y-%m-%d %H:%M}",
            )
        )
    if when - now > MAX_DEADLINE:
        raise InvalidInput(_("A deadline can be at most 60 days ahead."))
    return when


def _parse_absolute(raw: str) -> datetime:
    text = raw
    for suffix in (" UTC", " utc", "UTC", "Z", "z"):
        if text.endswith(suffix):
            text = text[: -len(suffix)].strip() + "+00:00"
            break
    try:
        when = datetime.fromisoformat(text.replace(" +", "+"))
    except ValueError:
        raise InvalidInput(
            _("{text} is not a deadline. {help}", text=repr(shorten(raw)), help=_(_HELP))
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def shorten(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"
