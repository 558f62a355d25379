"""Parsing a duellist sheet typed into a slash option (pure).

Forms: JSON (`{"character": "hero", "armor_save": 5}`), a small TOML sheet (one
`key = value` per line; a table such as `[sheet]` is flattened), or `key=value` pairs separated by
spaces or semicolons (`character=hero armor_save=5 schools=illusion,necromancy`). Numbers
become ints, true/false become booleans, a comma makes a list. The ruleset validates."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from bot.i18n.context import _
from bot.services.errors import InvalidInput

MAX_SHEET_TEXT = 1000
# Keys may contain '-': house rules are spelt so (`strong-against=auto-win`).
_PAIR = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]{0,40})\s*[=:]\s*(.*)$")


def _value(raw: str) -> Any:
    text = raw.strip().strip("\"'")
    if text.startswith("[") and text.endswith("]"):  # spell_slots=[2, 1]
        return [_value(part) for part in text[1:-1].split(",") if part.strip()]
    if "," in text:
        return [_value(part) for part in text.split(",") if part.strip()]
    if re.fullmatch(r"[+-]?\d{1,9}", text):
        return int(text)
    if text.casefold() in ("true", "yes", "on"):
        return True
    if text.casefold() in ("false", "no", "off"):
        return False
    return text


def parse_sheet_fields(text: str) -> dict[str, Any]:
    raw = text.strip()
    if not raw:
        raise InvalidInput(_("Give the sheet fields, e.g. `character=hero armor_save=5`."))
    if len(raw) > MAX_SHEET_TEXT:
        raise InvalidInput(
            _(
                "The sheet is too long ({count} characters, at most {most}).",
                count=len(raw),
                most=MAX_SHEET_TEXT,
            )
        )
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInput(_("The sheet is not valid JSON: {error}.", error=exc.msg)) from None
        if not isinstance(data, dict):
            raise InvalidInput(_("A JSON sheet must be an object of fields."))
        return data
    if "\n" in raw:
        # A small TOML sheet (`hp_max = 20` one per line, `[sheet]` tables flattened).
        try:
            table = tomllib.loads(raw)
        except tomllib.TOMLDecodeError as exc:
            raise InvalidInput(_("The sheet is not valid TOML: {error}.", error=exc)) from None
        flat: dict[str, Any] = {}
        for key, value in table.items():
            if isinstance(value, dict):
                flat.update(value)
            else:
                flat[key] = value
        return flat
    fields: dict[str, Any] = {}
    for chunk in re.split(r"[;\s]+(?=[A-Za-z_][A-Za-z0-9_-]*\s*[=:])", raw):
        chunk = chunk.strip().strip(";")
        if not chunk:
            continue
        match = _PAIR.match(chunk)
        if match is None:
            raise InvalidInput(
                _(
                    "{text} is not a `field=value` pair; e.g. `character=hero armor_save=5`.",
                    text=repr(chunk[:40]),
                )
            )
        fields[match.group(1).lower()] = _value(match.group(2))
    return fields
