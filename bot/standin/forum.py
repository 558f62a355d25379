"""Forum channels in the stand-in: type 15 (and media, 16), their tags and their rules.

What Discord does (developers/topics/threads.mdx "Forums", developers/resources/channel.mdx
"Start Thread in Forum or Media Channel", developers/topics/opcodes-and-status-codes.mdx),
and the stand-in with it:

- A message cannot be sent in a forum channel itself: 400, code 40058 "Cannot send a message
  in a forum channel".
- A post is a thread made with ``POST /channels/{forum_id}/threads`` carrying ``name`` and a
  ``message`` object (at least one of content, embeds, components, sticker_ids); the thread is
  a PUBLIC_THREAD (type 11) whose id is the id of its first message. Creating one needs
  SEND_MESSAGES in the forum (CREATE_PUBLIC_THREADS is ignored). The answer is the thread with
  the message nested under ``message``.
- ``applied_tags``: at most 5, each one of the forum's ``available_tags`` (at most 20 per
  forum); a forum with the REQUIRE_TAG flag (1 << 4) refuses a post without one (400, 40067 "A
  tag is required to create a forum post in this channel"). A ``moderated`` tag can be added or
  removed only with MANAGE_THREADS. ``PATCH /channels/{thread_id}`` with ``applied_tags``
  changes them (the thread's owner, or MANAGE_THREADS).
- A webhook executed on a forum channel needs ``thread_id`` (or ``thread_name``, not modelled):
  400, 220001.
- ``GET /guilds/{guild_id}/threads/active`` lists the active threads (posts included).

The server keeps its edits to these hooks: :func:`refuse_message` (in forum_model.py, which
the message layer below this module uses), :func:`start_post`, :func:`edit_thread`,
:func:`check_webhook_target` and :func:`register_routes`.
"""

from __future__ import annotations

from typing import Any

from . import payloads as P
from .errors import ApiError, invalid_form
from .forum_model import (
    CANNOT_SEND_IN_FORUM,
    CHANNEL_FORUM,
    CHANNEL_MEDIA,
    FLAG_REQUIRE_TAG,
    MANAGE_THREADS,
    MAX_APPLIED_TAGS,
    MAX_AVAILABLE_TAGS,
    MISSING_PERMISSIONS,
    TAG_NAME_MAX,
    TAG_REQUIRED,
    THREAD_ONLY_TYPES,
    WEBHOOK_FORUM_NEEDS_THREAD,
    FakeTag,
    ForumState,
    refuse_message,
)
from .messages import MessagesMixin
from .models import (
    CHANNEL_PUBLIC_THREAD,
    JSON,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    RecordedFile,
)
from .routing import Ctx


def add_forum_channel(
    fake: MessagesMixin,
    guild_id: int,
    name: str,
    *,
    tags: tuple[str, ...] | list[str] = (),
    moderated: tuple[str, ...] | list[str] = (),
    require_tag: bool = False,
    media: bool = False,
) -> FakeChannel:
    """A forum channel with tags (names; those in ``moderated`` need MANAGE_THREADS)."""
    if len(tags) > MAX_AVAILABLE_TAGS:
        raise ValueError(f"a forum has at most {MAX_AVAILABLE_TAGS} tags")
    ch = fake._make_text_channel(guild_id, name)
    ch.type = CHANNEL_MEDIA if media else CHANNEL_FORUM
    fake.forums.tags[ch.id] = [
        FakeTag(id=fake.snowflake(), name=t[:TAG_NAME_MAX], moderated=t in moderated) for t in tags
    ]
    fake.forums.flags[ch.id] = FLAG_REQUIRE_TAG if require_tag else 0
    fake._emit_guild_event("CHANNEL_CREATE", lambda: P.channel(fake, ch), guild_id)
    return ch


def check_webhook_target(
    fake: MessagesMixin, hook_channel: FakeChannel, thread_id: str | None
) -> None:
    if hook_channel.type in THREAD_ONLY_TYPES and not thread_id:
        raise ApiError(
            400,
            WEBHOOK_FORUM_NEEDS_THREAD,
            "Webhooks posted to forum channels must have a thread_name or thread_id",
        )
    if thread_id:
        thread = fake.channels.get(int(thread_id))
        if thread is None:
            # Discord's answer for a thread (a forum post) that does not exist or was deleted.
            raise ApiError(404, 10003, "Unknown Channel")
        if thread.parent_id != hook_channel.id:
            raise ApiError(400, 50035, "Invalid Form Body")


def _has(fake: MessagesMixin, guild_id: int | None, permission: int) -> bool:
    if guild_id is None:
        return True
    return fake.bot_permissions(guild_id) & permission == permission


def _tags(fake: MessagesMixin, forum: FakeChannel, raw: Any, before: list[int]) -> list[int]:
    """Validated ``applied_tags`` for a post of ``forum``."""
    if not isinstance(raw, list):
        raise invalid_form("applied_tags", "Must be an array of snowflakes")
    if len(raw) > MAX_APPLIED_TAGS:
        raise invalid_form(
            "applied_tags",
            f"Must be {MAX_APPLIED_TAGS} or fewer in length.",
            "BASE_TYPE_MAX_LENGTH",
        )
    known = {t.id: t for t in fake.forums.tags.get(forum.id, [])}
    chosen: list[int] = []
    for value in raw:
        try:
            tag_id = int(value)
        except (TypeError, ValueError):
            raise invalid_form("applied_tags", "Value is not snowflake.") from None
        if tag_id not in known:
            raise invalid_form("applied_tags", f"Tag {tag_id} is not one of the forum's tags")
        if tag_id not in chosen:
            chosen.append(tag_id)
    changed = set(chosen) ^ set(before)
    if any(known[i].moderated for i in changed if i in known) and not _has(
        fake, forum.guild_id, MANAGE_THREADS
    ):
        raise ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")
    if not chosen and fake.forums.flags.get(forum.id, 0) & FLAG_REQUIRE_TAG:
        raise ApiError(
            400, TAG_REQUIRED, "A tag is required to create a forum post in this channel"
        )
    return chosen


def start_post(
    fake: MessagesMixin, forum: FakeChannel, body: JSON, files: list[RecordedFile]
) -> JSON:
    """POST /channels/{forum_id}/threads: a post, its first message sharing its id."""
    if not _has(fake, forum.guild_id, VIEW_CHANNEL | SEND_MESSAGES):
        raise ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise invalid_form("name", "Must be between 1 and 100 in length.", "BASE_TYPE_BAD_LENGTH")
    message = body.get("message")
    if not isinstance(message, dict):
        raise invalid_form("message", "This field is required", "BASE_TYPE_REQUIRED")
    if not (
        message.get("content")
        or message.get("embeds")
        or message.get("components")
        or message.get("sticker_ids")
        or files
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")
    applied = _tags(fake, forum, body.get("applied_tags", []), [])
    assert forum.guild_id is not None
    post_id = fake.snowflake()
    thread = FakeChannel(
        id=post_id,
        type=CHANNEL_PUBLIC_THREAD,
        name=name,
        guild_id=forum.guild_id,
        parent_id=forum.id,
        owner_id=fake.bot_user.id,
        auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        member_ids=[fake.bot_user.id],
        starter_message_id=post_id,
    )
    fake.channels[thread.id] = thread
    fake.guilds[forum.guild_id].channel_ids.append(thread.id)
    fake.forums.applied[thread.id] = applied
    first = fake._bot_message(thread, message, files)
    # The first message of a post has the post's id.
    del fake.messages[first.id]
    first.id = post_id
    fake.messages[post_id] = first
    thread.last_message_id = post_id
    forum.last_message_id = post_id
    fake._emit_guild_event(
        "THREAD_CREATE",
        lambda: P.channel(fake, thread) | {"newly_created": True},
        thread.guild_id,
    )
    fake._echo("MESSAGE_CREATE", first)
    return P.channel(fake, thread) | {"message": P.message(fake, first)}


def edit_thread(fake: MessagesMixin, ch: FakeChannel, body: JSON) -> None:
    """The forum part of PATCH /channels/{id}: ``applied_tags`` of a post."""
    if "applied_tags" not in body:
        return
    forum = fake.channels.get(ch.parent_id or 0) if ch.is_thread else None
    if forum is None or forum.type not in THREAD_ONLY_TYPES:
        raise invalid_form("applied_tags", "Only threads in forum channels have tags")
    if ch.owner_id != fake.bot_user.id and not _has(fake, ch.guild_id, MANAGE_THREADS):
        raise ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")
    fake.forums.applied[ch.id] = _tags(
        fake, forum, body["applied_tags"], fake.forums.applied.get(ch.id, [])
    )


def register_routes(fake: MessagesMixin) -> None:
    @fake.route("GET", "/guilds/{guild_id}/threads/active")
    async def active_threads(ctx: Ctx) -> Any:
        guild = fake._guild(ctx.int_param("guild_id"))
        threads = [
            fake.channels[c]
            for c in guild.channel_ids
            if fake.channels[c].is_thread and not fake.channels[c].archived
        ]
        return {"threads": [P.channel(fake, t) for t in threads], "members": []}


__all__ = [
    "CANNOT_SEND_IN_FORUM",
    "CHANNEL_FORUM",
    "FLAG_REQUIRE_TAG",
    "MANAGE_THREADS",
    "TAG_REQUIRED",
    "THREAD_ONLY_TYPES",
    "FakeTag",
    "ForumState",
    "add_forum_channel",
    "check_webhook_target",
    "edit_thread",
    "refuse_message",
    "register_routes",
    "start_post",
]
