"""Who may call the sandbox, and what a request body may hold.

The sandbox acts as any member of its server, so any web page that could reach it could act
too. A browser lets a page on another origin send a "simple" request (a POST with a
``text/plain`` body) without asking first, and a DNS-rebinding name resolves to 127.0.0.1
while the browser thinks it is another site. So every request must name one of the sandbox's
own host names, a browser's ``Origin`` (and ``Sec-Fetch-Site``) must be the sandbox's page,
and a POST body must be ``application/json``, which no page can send to another origin
without a CORS preflight that the sandbox never grants.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bot.standin.limits import CONTENT_MAX, TYPED_CONTROLS, lone_surrogate_at

#: The host names the sandbox answers to (it listens on 127.0.0.1 only).
HOST_NAMES = ("127.0.0.1", "localhost")
#: Sec-Fetch-Site values of a request the sandbox's own page (or the address bar) made.
OWN_FETCH_SITES = ("same-origin", "none")
JSON_TYPE = "application/json"
#: The longest string a request may carry (Discord's longest option value), but the base64
#: of an attachment.
STRING_MAX = 6000
UNBOUNDED_STRINGS = ("content_base64",)
#: Fields with a shorter limit of their own (a DM: Discord's 2,000 characters).
FIELD_MAX = {"content": CONTENT_MAX}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BadRequest(Exception):
    """The API call cannot be done; the message says why (answered 400, 403, 404 or 415)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class RequestGuard:
    """Refuses requests that are not from the sandbox's own page or a local client."""

    def __init__(self) -> None:
        self.port: int | None = None

    def listening_on(self, port: int) -> None:
        self.port = port

    def hosts(self) -> tuple[str, ...]:
        return tuple(f"{name}:{self.port}" for name in HOST_NAMES)

    def origins(self) -> tuple[str, ...]:
        return tuple(f"http://{host}" for host in self.hosts())

    def refusal(self, request: web.Request) -> BadRequest | None:
        """Why this request may not reach the sandbox, or None."""
        if self.port is None:
            return BadRequest("the sandbox is still starting", 503)
        own = f"http://{self.hosts()[0]}"
        host = request.headers.get("Host", "").lower()
        if host not in self.hosts():
            return BadRequest(
                f"Host {host or '(none)'!r} is not this sandbox: use {own} or "
                f"http://{self.hosts()[1]}", 403
            )
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() not in self.origins():
            return BadRequest(
                f"Origin {origin!r} may not use the sandbox: only its own page ({own}) may", 403
            )
        site = request.headers.get("Sec-Fetch-Site")
        if request.path.startswith("/api/") and site is not None and site not in OWN_FETCH_SITES:
            return BadRequest(
                f"a request from another site (Sec-Fetch-Site: {site}) may not use the "
                f"sandbox: only its own page ({own}) may", 403
            )
        if request.method == "POST" and request.content_type != JSON_TYPE:
            return BadRequest(
                f"the body must be JSON sent as Content-Type: {JSON_TYPE}, not "
                f"{request.content_type or '(none)'}", 415
            )
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = self.refusal(request)
        if refused is not None:
            return web.json_response({"error": str(refused)}, status=refused.status)
        response = await handler(request)
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadRequest(
            f"the number {text[:40]} is beyond what a JSON number can hold (a double); "
            "ids are strings of digits"
        )
    return value


def _no_constant(name: str) -> Any:
    raise BadRequest(f"{name} is not JSON (a number must be finite)")


def parse_json_body(raw: bytes) -> dict[str, Any]:
    """A JSON object in strict UTF-8: no NaN or Infinity, no number that overflows a
    double (1e400), or 400."""
    try:
        body = json.loads(
            raw.decode("utf-8"), parse_float=_finite, parse_constant=_no_constant
        )
    except UnicodeDecodeError:
        raise BadRequest("the request body must be UTF-8 text") from None
    except ValueError:
        raise BadRequest("the request body must be a JSON object") from None
    except RecursionError:
        raise BadRequest("the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


def check_strings(value: Any, path: str = "") -> None:
    """400 for a string (or key) anywhere in ``value`` that Discord could not carry: a lone
    surrogate (Discord keeps UTF-8; the bot's JSON reader refuses it), a control character
    but tab, line feed and carriage return, or more than STRING_MAX characters."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            _check_text(str(key), f"a key in {path or 'the body'}")
            if isinstance(item, str):
                if key not in UNBOUNDED_STRINGS:
                    _check_text(item, where, FIELD_MAX.get(str(key), STRING_MAX))
            else:
                check_strings(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if isinstance(item, str):
                _check_text(item, where)
            else:
                check_strings(item, where)


def _check_text(text: str, where: str, limit: int = STRING_MAX) -> None:
    at = lone_surrogate_at(text)
    if at is not None:
        raise BadRequest(
            f"{where}: a lone surrogate U+{ord(text[at]):04X} at character {at} is not "
            "Unicode text (Discord carries UTF-8 only)"
        )
    control = next((i for i, ch in enumerate(text) if ch in TYPED_CONTROLS), None)
    if control is not None:
        raise BadRequest(
            f"{where}: control character U+{ord(text[control]):04X} at character {control} "
            "(only tab, line feed and carriage return are allowed)"
        )
    if len(text) > limit:
        raise BadRequest(f"{where}: {len(text)} characters, at most {limit}")
