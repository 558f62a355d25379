"""Outbox messages: one frozen dataclass per kind of post, with a version and JSON.

The services write them (``OutboxPost.kind`` + ``message.to_json()`` as the payload, in the
transaction of the change); the poster reads them back with :func:`parse_message` and the
presentation layer renders them. A payload is checked when it is read back: an unknown kind
or version, or a field missing from a versioned payload, raises :class:`MessageFormatError`
(the poster gives the post up and logs it), never a silently defaulted post.

Rows written before payloads carried a version are version 1 read leniently: the fields
they lacked then (the ruleset, the listed moves...) get what those rows meant (the default
ruleset, its every move). That is the only place defaults are filled in.

The messages live by family (bot/services/channel_messages.py: channel posts;
bot/services/dm_messages.py: DMs; bot/services/message_format.py: the base and the payload
reader); this module gathers them, so callers name one module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.services.channel_messages import (
    ChallengePost,
    DmClosed,
    DuelEnd,
    DuelStart,
    FollowsUndo,
    RevealedRoll,
    RoundOpen,
    RoundResultPost,
    RoundUndone,
)
from bot.services.dm_messages import (
    ButtonsClosed,
    DirectMessage,
    PrivateNote,
    Reminder,
    RoundPrompt,
)
from bot.services.message_format import (
    MAX_MOVE_BUTTONS,
    SIDES,
    VERSION_KEY,
    Fields,
    MessageFormatError,
    MoveChoice,
    OutboxMessage,
    Party,
)

MESSAGE_TYPES: dict[str, type[OutboxMessage]] = {
    cls.KIND: cls
    for cls in (
        DuelStart,
        RoundOpen,
        RoundPrompt,
        Reminder,
        PrivateNote,
        RoundResultPost,
        RoundUndone,
        DuelEnd,
        ChallengePost,
        DmClosed,
        ButtonsClosed,
    )
}

def parse_message(kind: str, payload: Mapping[str, Any]) -> OutboxMessage:
    """The typed message of one outbox row. Raises MessageFormatError for an unknown kind,
    an unknown version, or a versioned payload with a field missing or of the wrong type."""
    cls = MESSAGE_TYPES.get(kind)
    if cls is None:
        raise MessageFormatError(f"unknown outbox message kind {kind!r}")
    version = payload.get(VERSION_KEY)
    if version is not None and (
        not isinstance(version, int) or isinstance(version, bool) or version != cls.VERSION
    ):
        raise MessageFormatError(
            f"{kind} payload version {version!r} is not one this duelbot reads "
            f"(it reads version {cls.VERSION})"
        )
    reader = Fields(kind, payload, strict=version is not None)
    try:
        message: OutboxMessage = cls.read(reader)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, MessageFormatError):
            raise
        raise MessageFormatError(f"{kind} payload: {exc}") from exc
    return message



__all__ = [
    "MAX_MOVE_BUTTONS",
    "MESSAGE_TYPES",
    "SIDES",
    "VERSION_KEY",
    "ButtonsClosed",
    "ChallengePost",
    "DirectMessage",
    "DmClosed",
    "DuelEnd",
    "DuelStart",
    "FollowsUndo",
    "MessageFormatError",
    "MoveChoice",
    "OutboxMessage",
    "Party",
    "PrivateNote",
    "Reminder",
    "RevealedRoll",
    "RoundOpen",
    "RoundPrompt",
    "RoundResultPost",
    "RoundUndone",
    "parse_message",
]
