"""Interaction callbacks and application commands (CommandsMixin): the bot's answer to an
interaction (with Discord's type rules and deadline) and the registered command tree.
The user side that creates interactions is injection.py."""

from __future__ import annotations

import time
from typing import Any

from . import payloads as P
from .errors import ApiError, invalid_form
from .interactions import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MODAL,
    UPDATE_MESSAGE,
    InteractionRecord,
    InteractionReply,
)
from .limits import check_autocomplete
from .localizations import check_localizations
from .models import FLAG_EPHEMERAL, FLAG_LOADING, JSON, FakeChannel, FakeMessage, iso_now
from .options import name_ok, validate_command
from .routing import Ctx, NoContent
from .webhooks import WebhooksMixin


class CommandsMixin(WebhooksMixin):
    """What the bot does with interactions, and the commands it registers."""

    def interaction_responses(self, interaction_id: int) -> list[InteractionReply]:
        """Callback, followups and @original edits for one interaction, in arrival order."""
        rec = self.interactions.get(interaction_id)
        return list(rec.replies) if rec else []

    def commands(self, guild_id: int | None = None) -> list[JSON]:
        """The application commands the bot registered (global, or for one guild)."""
        if guild_id is None:
            return list(self.global_commands)
        return list(self.guild_commands.get(guild_id, []))

    def command(self, name: str, guild_id: int | None = None) -> JSON | None:
        return next((c for c in self.commands(guild_id) if c["name"] == name), None)

    def _callback(self, ctx: Ctx) -> Any:
        rec = self.interactions.get(ctx.int_param("interaction_id"))
        if rec is None or rec.token != ctx.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        if rec.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if (
            self.interaction_deadline is not None
            and time.monotonic() - rec.created_at > self.interaction_deadline
        ):
            raise ApiError(404, 10062, "Unknown interaction")
        body = ctx.json
        try:
            ctype = int(body["type"])
        except (KeyError, TypeError, ValueError):
            raise invalid_form("type", "This field is required", "BASE_TYPE_REQUIRED") from None
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        assert isinstance(data, dict)
        allowed = {
            2: (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL),
            3: (
                CHANNEL_MESSAGE,
                DEFERRED_CHANNEL_MESSAGE,
                DEFERRED_UPDATE_MESSAGE,
                UPDATE_MESSAGE,
                MODAL,
            ),
            4: (AUTOCOMPLETE_RESULT,),
            5: (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE),
        }
        if ctype not in allowed.get(rec.type, ()):
            raise ApiError(
                400,
                50035,
                f"Interaction callback type {ctype} is invalid for interaction type {rec.type}",
            )
        if ctype == AUTOCOMPLETE_RESULT:
            check_autocomplete(data)
        ch = self.channels[rec.channel_id]
        resource: JSON = {"type": ctype}
        message: FakeMessage | None = None
        if ctype == CHANNEL_MESSAGE:
            message = self._bot_message(
                ch, data, ctx.files, type=20 if rec.type == 2 else 19, interaction=rec
            )
            rec.original_message_id = message.id
        elif ctype == DEFERRED_CHANNEL_MESSAGE:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            message = self._placeholder(ch, rec, flags)
            rec.original_message_id = message.id
        elif ctype == UPDATE_MESSAGE:
            if rec.source_message_id is None:
                raise ApiError(400, 50035, "UPDATE_MESSAGE needs a message interaction")
            message = self.messages[rec.source_message_id]
            self._apply_body(message, data, ctx.files, creating=False)
            message.edited_timestamp = iso_now()
        self._reply(rec, "callback", body, ctx.files, message.id if message else None)
        if message is not None:
            resource["message"] = P.message(self, message)
            self._echo("MESSAGE_UPDATE" if ctype == UPDATE_MESSAGE else "MESSAGE_CREATE", message)
        if ctx.query.get("with_response") not in ("1", "true", "True"):
            return NoContent()
        return {
            "interaction": {
                "id": str(rec.id),
                "type": rec.type,
                "activity_instance_id": None,
                "response_message_id": str(message.id) if message else None,
                "response_message_loading": ctype == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(message and message.ephemeral),
            },
            "resource": resource,
        }

    def _placeholder(self, ch: FakeChannel, rec: InteractionRecord, flags: int) -> FakeMessage:
        msg = FakeMessage(
            id=self.snowflake(),
            channel_id=ch.id,
            author=self.bot_user,
            guild_id=ch.guild_id,
            type=20 if rec.type == 2 else 19,
            flags=flags,
            interaction_id=rec.id,
            application_id=self.application_id,
            webhook_id=self.application_id,
        )
        self.messages[msg.id] = msg
        return msg

    def _check_app(self, ctx: Ctx) -> None:
        if ctx.params["app_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")

    def _normalize_command(
        self, raw: JSON, old: list[JSON], guild_id: int | None, at: tuple[int, ...] = ()
    ) -> JSON:
        """``at``: where ``raw`` is in the request body (its index in a bulk overwrite)."""
        validate_command(raw)
        check_localizations(raw, at, name_ok)
        ctype = int(raw.get("type", 1))
        prev = next(
            (c for c in old if c["name"] == raw["name"] and c.get("type", 1) == ctype), None
        )
        cmd: JSON = {
            "id": prev["id"] if prev else str(self.snowflake()),
            "application_id": str(self.application_id),
            "version": str(self.snowflake()),
            "type": ctype,
            "name": raw["name"],
            "name_localizations": raw.get("name_localizations"),
            "description": raw.get("description", "") if ctype == 1 else "",
            "description_localizations": raw.get("description_localizations"),
            "default_member_permissions": (
                None
                if raw.get("default_member_permissions") is None
                else str(raw["default_member_permissions"])
            ),
            "dm_permission": raw.get("dm_permission", True),
            "nsfw": raw.get("nsfw", False),
            "contexts": raw.get("contexts"),
            "integration_types": raw.get("integration_types") or [0],
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        if raw.get("options"):
            cmd["options"] = raw["options"]
        return cmd

    def _store_commands(self, old: list[JSON], new: list[JSON], guild_id: int | None) -> list[JSON]:
        if len(new) > 110:
            raise invalid_form(
                "_",
                "Maximum number of application commands reached",
                "APPLICATION_COMMAND_TOO_MANY",
            )
        out = [
            self._normalize_command(raw, old, guild_id, (index,))
            for index, raw in enumerate(new)
        ]
        keys = [(c["name"], c["type"]) for c in out]
        if len(set(keys)) != len(keys):
            raise invalid_form(
                "_",
                "Application command names must be unique",
                "APPLICATION_COMMANDS_DUPLICATE_NAME",
            )
        return out

    def _upsert(self, old: list[JSON], raw: JSON, guild_id: int | None) -> list[JSON]:
        cmd = self._normalize_command(raw, old, guild_id)
        rest = [c for c in old if not (c["name"] == cmd["name"] and c["type"] == cmd["type"])]
        return [*rest, cmd]

    def _register_command_routes(self) -> None:
        """The interaction callback and application command registration."""
        r = self.route

        # -- interactions ---------------------------------------------------------------------
        @r("POST", "/interactions/{interaction_id}/{token}/callback")
        async def callback(ctx: Ctx) -> Any:
            return self._callback(ctx)

        # -- application commands -------------------------------------------------------------
        @r("GET", "/applications/{app_id}/commands")
        async def get_global(ctx: Ctx) -> Any:
            self._check_app(ctx)
            return self.global_commands

        @r("PUT", "/applications/{app_id}/commands")
        async def put_global(ctx: Ctx) -> Any:
            self._check_app(ctx)
            self.global_commands = self._store_commands(
                self.global_commands, list(ctx.body or []), None
            )
            return self.global_commands

        @r("POST", "/applications/{app_id}/commands")
        async def upsert_global(ctx: Ctx) -> Any:
            self._check_app(ctx)
            self.global_commands = self._upsert(self.global_commands, ctx.json, None)
            return self.command(ctx.json["name"])

        @r("GET", "/applications/{app_id}/guilds/{guild_id}/commands")
        async def get_guild_cmds(ctx: Ctx) -> Any:
            self._check_app(ctx)
            return self.guild_commands.get(self._guild(ctx.int_param("guild_id")).id, [])

        @r("PUT", "/applications/{app_id}/guilds/{guild_id}/commands")
        async def put_guild_cmds(ctx: Ctx) -> Any:
            self._check_app(ctx)
            gid = self._guild(ctx.int_param("guild_id")).id
            old = self.guild_commands.get(gid, [])
            self.guild_commands[gid] = self._store_commands(old, list(ctx.body or []), gid)
            return self.guild_commands[gid]

        @r("POST", "/applications/{app_id}/guilds/{guild_id}/commands")
        async def upsert_guild_cmd(ctx: Ctx) -> Any:
            self._check_app(ctx)
            gid = self._guild(ctx.int_param("guild_id")).id
            self.guild_commands[gid] = self._upsert(self.guild_commands.get(gid, []), ctx.json, gid)
            return self.command(ctx.json["name"], gid)
