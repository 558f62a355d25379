"""Forum state that every layer of the stand-in may hold: the forum constants, tags and
:class:`ForumState`, and the one forum rule a plain message post needs (forum.py has the rest;
it sits above the message layer, so these live here to keep the imports one-way)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ApiError
from .models import JSON, FakeChannel

CHANNEL_FORUM = 15
CHANNEL_MEDIA = 16
THREAD_ONLY_TYPES = (CHANNEL_FORUM, CHANNEL_MEDIA)
MANAGE_THREADS = 1 << 34
FLAG_REQUIRE_TAG = 1 << 4
MAX_APPLIED_TAGS = 5
MAX_AVAILABLE_TAGS = 20
TAG_NAME_MAX = 20

CANNOT_SEND_IN_FORUM = 40058
TAG_REQUIRED = 40067
WEBHOOK_FORUM_NEEDS_THREAD = 220001
MISSING_PERMISSIONS = 50013


@dataclass
class FakeTag:
    id: int
    name: str
    moderated: bool = False
    emoji_name: str | None = None

    def to_payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "moderated": self.moderated,
            "emoji_id": None,
            "emoji_name": self.emoji_name,
        }


@dataclass
class ForumState:
    """Forum-only state, beside the channels: the tags of each forum, its flags, and the
    tags applied to each post."""

    tags: dict[int, list[FakeTag]] = field(default_factory=dict)  # forum id -> tags
    flags: dict[int, int] = field(default_factory=dict)  # forum id -> channel flags
    applied: dict[int, list[int]] = field(default_factory=dict)  # post id -> tag ids

    def is_forum(self, ch: FakeChannel) -> bool:
        return ch.type in THREAD_ONLY_TYPES

    def tag_named(self, forum_id: int, name: str) -> FakeTag:
        for tag in self.tags.get(forum_id, []):
            if tag.name == name:
                return tag
        raise KeyError(f"forum {forum_id} has no tag {name!r}")

    def applied_names(self, thread_id: int, forum_id: int) -> list[str]:
        by_id = {t.id: t.name for t in self.tags.get(forum_id, [])}
        return [by_id.get(i, str(i)) for i in self.applied.get(thread_id, [])]

    def fields(self, ch: FakeChannel) -> JSON:
        """The forum fields of a channel payload (nothing for other channels)."""
        if ch.id in self.tags:
            return {
                "available_tags": [t.to_payload() for t in self.tags[ch.id]],
                "flags": self.flags.get(ch.id, 0),
                "default_reaction_emoji": None,
                "default_sort_order": None,
                "default_forum_layout": 0,
                "default_thread_rate_limit_per_user": 0,
            }
        if ch.id in self.applied:
            return {"applied_tags": [str(i) for i in self.applied[ch.id]]}
        return {}


def refuse_message(ch: FakeChannel) -> None:
    """POST /channels/{id}/messages on a forum: Discord refuses it."""
    if ch.type in THREAD_ONLY_TYPES:
        raise ApiError(400, CANNOT_SEND_IN_FORUM, "Cannot send a message in a forum channel")
