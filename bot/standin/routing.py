"""The stand-in's HTTP vocabulary, shared by every resource module: a route handler's
context (Ctx), the 204 marker (NoContent), an injected fault (Fault) and path templates."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import invalid_form
from .models import JSON, RecordedFile

Handler = Callable[["Ctx"], Awaitable[Any]]


@dataclass
class NoContent:
    """Return from a handler to answer 204."""


@dataclass
class Ctx:
    method: str
    path: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[RecordedFile]
    headers: Mapping[str, str]

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise invalid_form(name, "Value is not snowflake.", "NUMBER_TYPE_COERCE") from None

    @property
    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    times: int | None
    body: JSON
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hits: int = 0
    #: The request is handled (it takes effect) and then the connection is cut before the
    #: answer: the client sees a connection error (or a timeout) for a request that worked.
    drop_response: bool = False


def path_regex(pattern: str) -> re.Pattern[str]:
    """ "/channels/{channel_id}/messages" or "/channels/*/messages" -> an anchored regex."""
    out = ""
    for piece in re.split(r"(\{[^}/]+\}|\*\*|\*)", pattern):
        if piece == "**":
            out += ".*"
        elif piece == "*":
            out += "[^/]+"
        elif piece.startswith("{") and piece.endswith("}"):
            out += f"(?P<{piece[1:-1]}>[^/]+)"
        else:
            out += re.escape(piece)
    return re.compile(f"^{out}$")


def method_matches(want: str, got: str) -> bool:
    return want == "*" or want.upper() == got.upper()
