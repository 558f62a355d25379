"""Interaction bookkeeping: what the bot answered to one INTERACTION_CREATE."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .models import FLAG_EPHEMERAL, JSON, RecordedFile

T = TypeVar("T")

ReplyKind = Literal["callback", "followup", "edit_original", "edit_followup"]

# Interaction callback types
PONG = 1
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8
MODAL = 9
DEFERRED_TYPES = (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE)


@dataclass
class InteractionReply:
    """One thing the bot sent in answer to an interaction.

    kind "callback": ``body`` is the callback body ``{"type": N, "data": {...}}``.
    Other kinds: ``body`` is the message body (content, embeds, ... at top level).
    ``files`` holds the multipart files (name, bytes) when the bot attached any.
    The properties read the message fields from the right place for every kind.
    """

    kind: ReplyKind
    body: JSON
    files: list[RecordedFile] = field(default_factory=list)
    message_id: int | None = None

    @property
    def type(self) -> int | None:
        """Callback type (4 message, 5 deferred, 6 deferred update, 7 update, 8, 9)."""
        value = self.body.get("type") if self.kind == "callback" else None
        return int(value) if value is not None else None

    @property
    def data(self) -> JSON:
        if self.kind == "callback":
            inner = self.body.get("data")
            return inner if isinstance(inner, dict) else {}
        return self.body

    @property
    def content(self) -> str | None:
        value = self.data.get("content")
        return None if value is None else str(value)

    @property
    def embeds(self) -> list[JSON]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[JSON]:
        return list(self.data.get("components") or [])

    @property
    def attachments(self) -> list[JSON]:
        return list(self.data.get("attachments") or [])

    @property
    def flags(self) -> int:
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def is_defer(self) -> bool:
        return self.kind == "callback" and self.type in DEFERRED_TYPES

    def __getitem__(self, key: str) -> Any:
        return self.body[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.body.get(key, default)


@dataclass
class InteractionRecord:
    id: int
    token: str
    type: int
    channel_id: int
    guild_id: int | None
    user_id: int
    payload: JSON
    created_at: float = field(default_factory=time.monotonic)
    callback: InteractionReply | None = None
    replies: list[InteractionReply] = field(default_factory=list)
    #: The message that @original designates (response message, or the clicked message).
    original_message_id: int | None = None
    source_message_id: int | None = None

    @property
    def followups(self) -> list[InteractionReply]:
        return [r for r in self.replies if r.kind == "followup"]

    @property
    def edits(self) -> list[InteractionReply]:
        return [r for r in self.replies if r.kind == "edit_original"]


async def wait_until(check: Callable[[], T | None], timeout: float, what: Callable[[], str]) -> T:
    """Poll ``check`` until it returns something other than None."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(f"fakediscord: timed out after {timeout}s waiting for {what()}")
        await asyncio.sleep(0.005)


class InteractionHandle:
    """Returned by invoke_slash / click_button / autocomplete / submit_modal.

    ``await handle.response()`` -> the callback (type + data), as the bot sent it.
    ``await handle.reply()``    -> the first visible answer: the callback unless it was a defer,
                                   else the first @original edit or followup after it.
    ``await handle.followup(i)`` -> the i-th followup message.
    ``await handle.original_edit()`` -> the latest PATCH of @original.
    """

    def __init__(self, record: InteractionRecord) -> None:
        self.record = record

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def token(self) -> str:
        return self.record.token

    @property
    def payload(self) -> JSON:
        """The INTERACTION_CREATE ``d`` that was dispatched."""
        return self.record.payload

    @property
    def replies(self) -> list[InteractionReply]:
        """Callback, followups and edits, in the order they arrived."""
        return list(self.record.replies)

    @property
    def followups(self) -> list[InteractionReply]:
        return self.record.followups

    @property
    def edits(self) -> list[InteractionReply]:
        return self.record.edits

    def _describe(self, what: str) -> str:
        kinds = [r.kind for r in self.record.replies]
        return f"{what} of interaction {self.id} (got so far: {kinds})"

    async def response(self, timeout: float = 5.0) -> InteractionReply:
        return await wait_until(
            lambda: self.record.callback, timeout, lambda: self._describe("the callback")
        )

    async def followup(self, index: int = 0, timeout: float = 5.0) -> InteractionReply:
        def check() -> InteractionReply | None:
            items = self.record.followups
            return items[index] if len(items) > index else None

        return await wait_until(check, timeout, lambda: self._describe(f"followup #{index}"))

    async def original_edit(self, timeout: float = 5.0) -> InteractionReply:
        def check() -> InteractionReply | None:
            items = self.record.edits
            return items[-1] if items else None

        return await wait_until(check, timeout, lambda: self._describe("an @original edit"))

    async def reply(self, timeout: float = 5.0) -> InteractionReply:
        def check() -> InteractionReply | None:
            cb = self.record.callback
            if cb is None:
                return None
            if not cb.is_defer:
                return cb
            for r in self.record.replies:
                if r.kind in ("edit_original", "followup"):
                    return r
            return None

        return await wait_until(check, timeout, lambda: self._describe("a visible reply"))

    def __repr__(self) -> str:
        return f"<InteractionHandle id={self.id} type={self.record.type}>"
