"""Checks on what the bot sent to the fake Discord: every message body sets allowed_mentions
so that neither @everyone/@here nor a role can ping, and user text is inert."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from tests.fakediscord.models import RecordedRequest

# a masked link [text](http://x) whose "[" is not escaped (an even number of backslashes
# before it) would render as a link
ROLE_MENTION = re.compile(r"<@&\d+>")
MASKED_LINK = re.compile(r"(?<!\\)(?:\\\\)*\[[^\[\]]*\]\(\s*<?https?:")


def message_bodies(requests: Iterable[RecordedRequest]) -> Iterator[tuple[RecordedRequest, Any]]:
    """(request, message body) for every request that creates or edits a message."""
    for req in requests:
        body = req.body
        if not isinstance(body, dict):
            continue
        if "/callback" in req.path:
            data = body.get("data")
            if body.get("type") in (4, 7) and isinstance(data, dict):
                yield req, data
            continue
        if req.method in ("POST", "PATCH") and ("content" in body or "embeds" in body):
            yield req, body


def assert_no_mass_pings(requests: Iterable[RecordedRequest]) -> int:
    """Every message body carries allowed_mentions without everyone/roles; returns the count."""
    count = 0
    for req, body in message_bodies(requests):
        count += 1
        allowed = body.get("allowed_mentions")
        assert isinstance(allowed, dict), f"{req.method} {req.path}: no allowed_mentions: {body}"
        parse = allowed.get("parse", [])
        assert "everyone" not in parse and "roles" not in parse, (req.path, allowed)
        assert not allowed.get("roles"), (req.path, allowed)
    return count


def text_parts(body: dict[str, Any]) -> list[str]:
    parts = [body.get("content") or ""]
    for embed in body.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [(embed.get("footer") or {}).get("text") or ""]
        parts += [(embed.get("author") or {}).get("name") or ""]
        for f in embed.get("fields") or []:
            parts += [f.get("name") or "", f.get("value") or ""]
    return parts


def assert_inert(parts: Iterable[str]) -> None:
    for text in parts:
        for ping in ("@everyone", "@here"):
            assert ping not in text, text
        assert ROLE_MENTION.search(text) is None, text  # (a cut-off "<@&123" pings nobody)
        assert MASKED_LINK.search(text) is None, text
