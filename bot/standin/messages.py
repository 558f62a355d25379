"""Messages (MessagesMixin): creating, editing, reading and deleting messages with the bot
token, attachments, enforce_nonce, the MESSAGE_CONTENT blanking of reads, and the message
queries tests use (messages_in, dms_to, wait_for_*)."""

from __future__ import annotations

import re
import time
from typing import Any

from . import payloads as P
from .errors import ApiError, invalid_form
from .events import EventsMixin
from .faults import DM_REFUSALS
from .forum_model import refuse_message
from .interactions import InteractionRecord, wait_until
from .limits import check_message
from .models import (
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    JSON,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeMessage,
    FakeUser,
    FakeWebhook,
    RecordedFile,
    iso_now,
)
from .routing import Ctx, NoContent

#: A user mention in message content (<@id> or <@!id>); injection.py uses it too.
MENTION = re.compile(r"<@!?(\d+)>")


class MessagesMixin(EventsMixin):
    """Messages as Discord stores them and the bot reads them."""

    def messages_in(self, channel_id: int, *, include_ephemeral: bool = False) -> list[FakeMessage]:
        """Messages in a channel (not deleted), oldest first."""
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel_id
            and not m.deleted
            and (include_ephemeral or not m.ephemeral)
        ]

    def dms_to(self, user_id: int) -> list[FakeMessage]:
        """Messages the bot sent into its DM channel with ``user_id`` (not interaction replies)."""
        cid = self.dm_channel_ids.get(user_id)
        if cid is None:
            return []
        return [
            m
            for m in self.messages.values()
            if m.channel_id == cid
            and m.author.id == self.bot_user.id
            and not m.deleted
            and m.interaction_id is None
        ]

    async def wait_for_messages(
        self,
        channel_id: int,
        count: int = 1,
        timeout: float = 5.0,
        *,
        include_ephemeral: bool = False,
    ) -> list[FakeMessage]:
        def check() -> list[FakeMessage] | None:
            found = self.messages_in(channel_id, include_ephemeral=include_ephemeral)
            return found if len(found) >= count else None

        return await wait_until(
            check, timeout, lambda: f"{count} message(s) in channel {channel_id}"
        )

    async def wait_for_dms(
        self, user_id: int, count: int = 1, timeout: float = 5.0
    ) -> list[FakeMessage]:
        def check() -> list[FakeMessage] | None:
            found = self.dms_to(user_id)
            return found if len(found) >= count else None

        return await wait_until(check, timeout, lambda: f"{count} DM(s) to user {user_id}")

    def _apply_body(
        self, msg: FakeMessage, body: JSON, files: list[RecordedFile], *, creating: bool
    ) -> None:
        # Every per-field limit (content, embeds, components) at once, as Discord answers:
        # 400 / 50035 with the errors tree (limits.py).
        check_message(body)
        content = body.get("content")
        if content is not None:
            msg.content = str(content)
        if "embeds" in body or "embed" in body:
            embeds = body.get("embeds")
            if embeds is None and body.get("embed") is not None:
                embeds = [body["embed"]]
            msg.embeds = list(embeds or [])
        if "components" in body:
            msg.components = list(body.get("components") or [])
        if "flags" in body and body["flags"] is not None:
            flags = int(body["flags"])
            msg.flags = flags if creating else (msg.flags & (FLAG_EPHEMERAL | FLAG_LOADING)) | flags
        if "tts" in body:
            msg.tts = bool(body["tts"])
        if body.get("message_reference"):
            msg.message_reference = dict(body["message_reference"])
        if "attachments" in body or files:
            msg.attachments = self._attachments(msg, body.get("attachments"), files)
            msg.files = list(files) if creating else msg.files + list(files)
        if msg.content:
            msg.mentions = [
                self.users[int(u)] for u in MENTION.findall(msg.content) if int(u) in self.users
            ]
        if creating and not (
            msg.content
            or msg.embeds
            or msg.attachments
            or msg.components
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise ApiError(400, 50006, "Cannot send an empty message")
        snapshot = {k: v for k, v in body.items() if k != "allowed_mentions"}
        if files:
            snapshot["_files"] = [f.filename for f in files]
        msg.history.append(snapshot)

    def _attachments(
        self, msg: FakeMessage, wanted: list[JSON] | None, files: list[RecordedFile]
    ) -> list[JSON]:
        by_field = {f.field_name: f for f in files}
        existing = {str(a["id"]): a for a in msg.attachments}
        out: list[JSON] = []
        used: set[str] = set()
        for att in wanted if wanted is not None else []:
            key = str(att.get("id"))
            if key in existing:
                out.append(existing[key])
                continue
            rf = by_field.get(f"files[{key}]")
            if rf is None:
                raise invalid_form(
                    "attachments", f"attachment {key} has no matching files[{key}] part"
                )
            used.add(rf.field_name)
            if att.get("filename"):
                rf = RecordedFile(rf.field_name, str(att["filename"]), rf.content_type, rf.data)
            aid = self.snowflake()
            self.cdn[aid] = rf
            out.append(P.attachment(self, msg.channel_id, aid, rf, att.get("description")))
        for rf in files:
            if rf.field_name not in used:
                aid = self.snowflake()
                self.cdn[aid] = rf
                out.append(P.attachment(self, msg.channel_id, aid, rf, None))
        return out

    def _bot_message(
        self,
        ch: FakeChannel,
        body: JSON,
        files: list[RecordedFile],
        *,
        type: int = 0,
        interaction: InteractionRecord | None = None,
        webhook: FakeWebhook | None = None,
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.snowflake(),
            channel_id=ch.id,
            author=self.bot_user,
            guild_id=ch.guild_id,
            type=type,
        )
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.application_id = self.application_id
            msg.webhook_id = self.application_id
        if webhook is not None:
            msg.webhook_id = webhook.id
            msg.username = body.get("username") or webhook.name
            msg.avatar_url = body.get("avatar_url")
            msg.author = FakeUser(id=webhook.id, username=msg.username or webhook.name, bot=True)
        self._apply_body(msg, body, files, creating=True)
        self.messages[msg.id] = msg
        ch.last_message_id = msg.id
        ch.message_count += 1
        if ch.is_thread and ch.archived and not ch.locked:
            ch.archived = False
        return msg

    def _read_as_bot(self, msg: FakeMessage) -> JSON:
        """A message as a bot-token read returns it. Without the MESSAGE_CONTENT intent
        (``message_content_intent``), Discord blanks content, embeds, attachments and
        components of messages the app did not author, webhook messages included (even its
        own webhook's: not reliable, discord-api-docs issue 5411); DMs and messages that
        mention the bot keep them."""
        data = P.message(self, msg)
        if self.message_content_intent:
            return data
        authored = msg.author.id == self.bot_user.id and not msg.from_webhook
        if msg.interaction_id is not None:
            authored = True  # interaction replies are the app's own messages
        ch = self.channels.get(msg.channel_id)
        in_dm = ch is not None and ch.is_dm
        mentioned = any(u.id == self.bot_user.id for u in msg.mentions)
        if not (authored or in_dm or mentioned):
            data.update(content="", embeds=[], attachments=[], components=[])
            data.pop("poll", None)
        return data

    def _nonce_hit(self, author_id: int, body: JSON) -> FakeMessage | None:
        """enforce_nonce: a message by the same author with the same nonce in the last
        ``nonce_window`` seconds is returned instead of creating a new one."""
        nonce = body.get("nonce")
        if nonce is None or not body.get("enforce_nonce"):
            return None
        if len(str(nonce)) > 25:
            raise invalid_form("nonce", "Must be 25 or fewer in length.", "BASE_TYPE_MAX_LENGTH")
        seen = self._nonces.get((author_id, str(nonce)))
        if seen is None or time.monotonic() - seen[0] > self.nonce_window:
            return None
        msg = self.messages.get(seen[1])
        return msg if msg is not None and not msg.deleted else None

    def _remember_nonce(self, author_id: int, body: JSON, msg: FakeMessage) -> None:
        nonce = body.get("nonce")
        if nonce is not None:
            self._nonces[(author_id, str(nonce))] = (time.monotonic(), msg.id)
            msg.nonce = str(nonce)

    def _register_message_routes(self) -> None:
        """Bot-token message routes of a channel."""
        r = self.route

        @r("POST", "/channels/{channel_id}/messages")
        async def post_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            refuse_message(ch)
            if ch.is_dm:
                refusal = ch.recipient_ids and self.blocked_dm_users.get(ch.recipient_ids[0])
                if refusal:
                    raise ApiError(403, refusal, DM_REFUSALS[refusal])
            else:
                need = VIEW_CHANNEL | (SEND_MESSAGES_IN_THREADS if ch.is_thread else SEND_MESSAGES)
                self._require_bot_perms(ch.guild_id, need)
            body = ctx.json if ctx.body is not None else {}
            earlier = self._nonce_hit(self.bot_user.id, body)
            if earlier is not None:
                return P.message(self, earlier)  # enforce_nonce: the first message, no new one
            msg = self._bot_message(ch, body, ctx.files)
            self._remember_nonce(self.bot_user.id, body, msg)
            self._echo("MESSAGE_CREATE", msg)
            return P.message(self, msg)

        @r("GET", "/channels/{channel_id}/messages")
        async def list_messages(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            limit = int(ctx.query.get("limit", 50))
            msgs = [
                m
                for m in self.messages.values()
                if m.channel_id == ch.id and not m.deleted and not m.ephemeral
            ]
            if "before" in ctx.query:
                msgs = [m for m in msgs if m.id < int(ctx.query["before"])]
            if "after" in ctx.query:
                msgs = [m for m in msgs if m.id > int(ctx.query["after"])]
                msgs = msgs[:limit]
            else:
                msgs = msgs[-limit:]
            return [self._read_as_bot(m) for m in reversed(msgs)]

        @r("GET", "/channels/{channel_id}/messages/{message_id}")
        async def get_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            return self._read_as_bot(self._message(ch, ctx.int_param("message_id")))

        @r("PATCH", "/channels/{channel_id}/messages/{message_id}")
        async def edit_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            msg = self._message(ch, ctx.int_param("message_id"))
            if msg.author.id != self.bot_user.id or msg.webhook_id is not None:
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
            self._apply_body(msg, ctx.json, ctx.files, creating=False)
            msg.edited_timestamp = iso_now()
            self._echo("MESSAGE_UPDATE", msg)
            return P.message(self, msg)

        @r("DELETE", "/channels/{channel_id}/messages/{message_id}")
        async def delete_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            msg = self._message(ch, ctx.int_param("message_id"))
            if msg.author.id != self.bot_user.id:
                self._require_bot_perms(ch.guild_id, 1 << 13)
            msg.deleted = True
            self._echo("MESSAGE_DELETE", msg)
            return NoContent()

        @r("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me")
        async def add_reaction(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            msg = self._message(ch, ctx.int_param("message_id"))
            msg.reactions.append(ctx.params["emoji"])
            return NoContent()
