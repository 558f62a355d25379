"""Webhooks (WebhooksMixin): channel webhooks managed with the bot token and executed with
their own token, and the interaction webhook (followups, @original edits) that shares
those routes."""

from __future__ import annotations

import secrets
from typing import Any

from . import forum
from . import payloads as P
from .channels import ChannelsMixin
from .errors import ApiError
from .interactions import InteractionRecord, InteractionReply, ReplyKind
from .limits import check_webhook_count, check_webhook_name
from .models import (
    FLAG_LOADING,
    JSON,
    MANAGE_WEBHOOKS,
    FakeMessage,
    FakeWebhook,
    RecordedFile,
    iso_now,
)
from .routing import Ctx, NoContent


class WebhooksMixin(ChannelsMixin):
    """Webhooks and the interaction followups that use their routes."""

    def add_webhook(self, channel_id: int, name: str = "Captain Hook") -> FakeWebhook:
        ch = self.channels[channel_id]
        hook = FakeWebhook(
            id=self.snowflake(),
            channel_id=ch.id,
            guild_id=ch.guild_id,
            name=name,
            token=secrets.token_urlsafe(48),
            creator_id=self.owner.id,
        )
        self.webhooks[hook.id] = hook
        return hook

    def _webhook_payload(self, hook: FakeWebhook, *, with_user: bool = True) -> JSON:
        creator = self.users.get(hook.creator_id) if (with_user and hook.creator_id) else None
        return hook.to_payload(creator)

    def _webhook(self, ctx: Ctx, token: str | None) -> FakeWebhook:
        hook = self.webhooks.get(ctx.int_param("webhook_id"))
        if hook is None or (token is not None and token != hook.token):
            raise ApiError(404, 10015, "Unknown Webhook")
        return hook

    def _interaction_for(self, ctx: Ctx) -> InteractionRecord | None:
        rec = self._interactions_by_token.get(ctx.params.get("token", ""))
        if rec is None or ctx.params.get("webhook_id") != str(self.application_id):
            return None
        return rec

    def _webhook_message(self, ctx: Ctx) -> FakeMessage:
        irec = self._interaction_for(ctx)
        mid_s = ctx.params["message_id"]
        if irec is not None:
            if mid_s == "@original":
                if irec.original_message_id is None or irec.callback is None:
                    raise ApiError(404, 10008, "Unknown Message")
                mid = irec.original_message_id
            else:
                mid = int(mid_s)
            msg = self.messages.get(mid)
            if msg is None or msg.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            return msg
        hook = self._webhook(ctx, ctx.params["token"])
        msg = self.messages.get(int(mid_s)) if mid_s.isdigit() else None
        if msg is None or msg.deleted or msg.webhook_id != hook.id:
            raise ApiError(404, 10008, "Unknown Message")
        # A message in a thread is found only with ?thread_id= naming that thread.
        where = int(ctx.query["thread_id"]) if ctx.query.get("thread_id") else hook.channel_id
        if msg.channel_id != where:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    def _reply(
        self,
        rec: InteractionRecord,
        kind: ReplyKind,
        body: JSON,
        files: list[RecordedFile],
        mid: int | None,
    ) -> InteractionReply:
        reply = InteractionReply(kind=kind, body=body, files=list(files), message_id=mid)
        rec.replies.append(reply)
        if kind == "callback":
            rec.callback = reply
        return reply

    def _register_webhook_routes(self) -> None:
        """Webhooks: managed with the bot token, executed with their own (interaction
        followups too)."""
        r = self.route

        @r("GET", "/guilds/{guild_id}/webhooks")
        async def guild_webhooks(ctx: Ctx) -> Any:
            gid = self._guild(ctx.int_param("guild_id")).id
            self._require_bot_perms(gid, MANAGE_WEBHOOKS)
            return [self._webhook_payload(w) for w in self.webhooks.values() if w.guild_id == gid]

        # -- webhooks -------------------------------------------------------------------------
        @r("GET", "/channels/{channel_id}/webhooks")
        async def channel_webhooks(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            self._require_bot_perms(ch.guild_id, MANAGE_WEBHOOKS)
            return [
                self._webhook_payload(w) for w in self.webhooks.values() if w.channel_id == ch.id
            ]

        @r("POST", "/channels/{channel_id}/webhooks")
        async def create_webhook(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            if ch.is_dm or ch.is_thread:
                raise ApiError(400, 50035, "Invalid Form Body")
            self._require_bot_perms(ch.guild_id, MANAGE_WEBHOOKS)
            name = str(ctx.json.get("name") or "")
            check_webhook_name("name", name)
            check_webhook_count(sum(1 for w in self.webhooks.values() if w.channel_id == ch.id))
            hook = self.add_webhook(ch.id, name)
            hook.creator_id = self.bot_user.id
            hook.avatar = "fakeavatarhash" if ctx.json.get("avatar") else None
            hook.application_id = self.application_id
            return self._webhook_payload(hook)

        @r("GET", "/webhooks/{webhook_id}")
        async def get_webhook(ctx: Ctx) -> Any:
            return self._webhook_payload(self._webhook(ctx, None))

        @r("DELETE", "/webhooks/{webhook_id}")
        async def delete_webhook(ctx: Ctx) -> Any:
            hook = self._webhook(ctx, None)
            del self.webhooks[hook.id]
            return NoContent()

        @r("GET", "/webhooks/{webhook_id}/{token}")
        async def get_webhook_token(ctx: Ctx) -> Any:
            return self._webhook_payload(self._webhook(ctx, ctx.params["token"]), with_user=False)

        @r("POST", "/webhooks/{webhook_id}/{token}")
        async def execute_webhook(ctx: Ctx) -> Any:
            irec = self._interaction_for(ctx)
            body = ctx.json if ctx.body is not None else {}
            if irec is not None:
                if irec.callback is None:
                    raise ApiError(404, 10015, "Unknown Webhook")
                ch = self.channels[irec.channel_id]
                msg = self._bot_message(
                    ch, body, ctx.files, type=20 if irec.type == 2 else 0, interaction=irec
                )
                self._reply(irec, "followup", body, ctx.files, msg.id)
                self._echo("MESSAGE_CREATE", msg)
                return P.message(self, msg)
            hook = self._webhook(ctx, ctx.params["token"])
            if body.get("username") is not None:
                check_webhook_name("username", body["username"])
            ch = self.channels[hook.channel_id]
            forum.check_webhook_target(self, ch, ctx.query.get("thread_id"))
            if ctx.query.get("thread_id"):
                ch = self._channel(int(ctx.query["thread_id"]))
            msg = self._bot_message(ch, body, ctx.files, webhook=hook)
            self._echo("MESSAGE_CREATE", msg)
            if ctx.query.get("wait") in ("1", "true", "True"):
                return P.message(self, msg)
            return NoContent()

        @r("GET", "/webhooks/{webhook_id}/{token}/messages/{message_id}")
        async def get_webhook_message(ctx: Ctx) -> Any:
            return P.message(self, self._webhook_message(ctx))

        @r("PATCH", "/webhooks/{webhook_id}/{token}/messages/{message_id}")
        async def edit_webhook_message(ctx: Ctx) -> Any:
            msg = self._webhook_message(ctx)
            body = ctx.json if ctx.body is not None else {}
            self._apply_body(msg, body, ctx.files, creating=False)
            msg.flags &= ~FLAG_LOADING
            msg.edited_timestamp = iso_now()
            irec = self._interaction_for(ctx)
            if irec is not None:
                kind: ReplyKind = (
                    "edit_original" if ctx.params["message_id"] == "@original" else "edit_followup"
                )
                self._reply(irec, kind, body, ctx.files, msg.id)
            self._echo("MESSAGE_UPDATE", msg)
            return P.message(self, msg)

        @r("DELETE", "/webhooks/{webhook_id}/{token}/messages/{message_id}")
        async def delete_webhook_message(ctx: Ctx) -> Any:
            msg = self._webhook_message(ctx)
            msg.deleted = True
            self._echo("MESSAGE_DELETE", msg)
            return NoContent()
