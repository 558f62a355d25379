"""The member-side injection API (UserSideMixin): what a test makes users do - write in a
guild or in DMs, run slash commands, autocomplete, click buttons, submit modals - each
checked against what a Discord client lets a person send."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from . import payloads as P
from .commands import CommandsMixin
from .interactions import InteractionHandle, InteractionRecord
from .limits import lone_surrogate_path, typed_text_problem
from .localizations import check_locale
from .messages import MENTION
from .models import (
    CHANNEL_TEXT,
    INTENT_MESSAGE_CONTENT,
    JSON,
    FakeChannel,
    FakeMessage,
    FakeUser,
    RecordedFile,
)
from .options import Attachment, build_command_data, find_command


class UserSideMixin(CommandsMixin):
    """Users acting on the bot, as a Discord client would let them."""

    def _user(self, user: int | FakeUser) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        try:
            return self.users[user]
        except KeyError:
            raise KeyError(f"fakediscord: unknown user {user}; add_user() first") from None

    async def send_dm(
        self, user_id: int | FakeUser, content: str, *, attachments: Iterable[Attachment] = ()
    ) -> int:
        """A user writes to the bot in DMs: MESSAGE_CREATE without guild_id. Returns the id."""
        user = self._user(user_id)
        attachments = list(attachments)
        _check_typed(content, has_attachments=bool(attachments))
        ch = self.dm_channel(user.id)
        msg = self._new_message(ch, user, content)
        msg.attachments = [self._store_attachment(ch.id, a) for a in attachments]
        await self.dispatch("MESSAGE_CREATE", P.message(self, msg, gateway=True), None)
        return msg.id

    async def send_guild_message(
        self,
        channel_id: int,
        user_id: int | FakeUser,
        content: str,
        *,
        attachments: Iterable[Attachment] = (),
    ) -> int:
        """A member writes in a guild channel/thread. Without the message_content intent the
        bot receives empty content unless the message mentions it (as on Discord)."""
        user = self._user(user_id)
        attachments = list(attachments)
        _check_typed(content, has_attachments=bool(attachments))
        ch = self.channels[channel_id]
        if ch.guild_id is None:
            raise ValueError("send_guild_message needs a guild channel; use send_dm for DMs")
        if user.id not in self.guilds[ch.guild_id].members:
            raise KeyError(f"user {user.id} is not a member of guild {ch.guild_id}")
        msg = self._new_message(ch, user, content)
        msg.attachments = [self._store_attachment(ch.id, a) for a in attachments]
        msg.mentions = [
            self.users[int(u)] for u in MENTION.findall(content) if int(u) in self.users
        ]
        session = self._session_for("MESSAGE_CREATE", ch.guild_id)
        if session is None:
            return msg.id
        data = P.message(self, msg, gateway=True)
        mentioned = any(u.id == self.bot_user.id for u in msg.mentions)
        if not (session.intents & INTENT_MESSAGE_CONTENT) and not mentioned:
            data.update(content="", embeds=[], attachments=[], components=[])
        await session.dispatch("MESSAGE_CREATE", data)
        return msg.id

    def _new_message(self, ch: FakeChannel, author: FakeUser, content: str) -> FakeMessage:
        msg = FakeMessage(
            id=self.snowflake(),
            channel_id=ch.id,
            author=author,
            content=content,
            guild_id=ch.guild_id,
        )
        msg.history.append({"content": content})
        self.messages[msg.id] = msg
        ch.last_message_id = msg.id
        ch.message_count += 1
        return msg

    def _store_attachment(
        self, channel_id: int, att: Attachment, description: str | None = None
    ) -> JSON:
        aid = self.snowflake()
        rf = RecordedFile("files", att.filename, att.content_type, att.data)
        self.cdn[aid] = rf
        return P.attachment(self, channel_id, aid, rf, description)

    async def invoke_slash(
        self,
        guild_id: int | None,
        channel_id: int | None,
        user_id: int | FakeUser,
        name: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        group: str | None = None,
        *,
        locale: str | None = None,
        require_registered: bool = True,
        enforce_limits: bool = True,
    ) -> InteractionHandle:
        """Run a slash command as ``user_id``: INTERACTION_CREATE type 2.

        ``locale`` (here and in every other interaction) is the language of the member's
        client, sent as the interaction's ``locale``: the user's own (``add_user(...,
        locale=)``, ``set_user_locale``) unless given; ``guild_locale`` is the guild's.

        guild_id None means the bot's DM with the user (channel_id is then ignored).
        Option types come from the command the bot registered (PUT .../commands); the call
        fails if the command, subcommand or an option is unknown, a required option is
        missing, or a value breaks choices/min/max - things the Discord client prevents.
        ``enforce_limits=False`` sends values beyond choices/min/max/lengths anyway (a
        modified client, or a schema older than the bot's), to test the bot's own checks.
        """
        user = self._user(user_id)
        cmd = find_command(self, name, guild_id)
        if cmd is None and require_registered:
            raise LookupError(
                f"fakediscord: /{name} is not registered (globally or for guild {guild_id}); "
                "did the bot sync its command tree? (require_registered=False skips this check)"
            )
        data = build_command_data(
            self,
            cmd,
            name,
            group,
            subcommand,
            dict(options or {}),
            guild_id,
            user.id,
            enforce_limits=enforce_limits,
        )
        return await self._interaction(2, guild_id, channel_id, user, data, locale=locale)

    async def autocomplete(
        self,
        guild_id: int | None,
        channel_id: int | None,
        user_id: int | FakeUser,
        name: str,
        focused: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        group: str | None = None,
        *,
        locale: str | None = None,
    ) -> InteractionHandle:
        """INTERACTION_CREATE type 4; ``focused`` names the option being typed. The handle's
        response() is the type-8 callback with data.choices."""
        user = self._user(user_id)
        cmd = find_command(self, name, guild_id)
        data = build_command_data(
            self,
            cmd,
            name,
            group,
            subcommand,
            dict(options or {}),
            guild_id,
            user.id,
            focused=focused,
        )
        return await self._interaction(4, guild_id, channel_id, user, data, locale=locale)

    async def click_button(
        self,
        user_id: int | FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: list[str] | None = None,
        require_component: bool = True,
        allow_disabled: bool = False,
        locale: str | None = None,
    ) -> InteractionHandle:
        """A user clicks a button (or picks ``values`` in a select) on ``message``:
        INTERACTION_CREATE type 3 carrying the message. In a DM or a guild, per the message.
        A disabled component cannot be pressed in Discord's clients: refused, unless
        ``allow_disabled`` (a press sent before the bot's edit disabled it, arriving after)."""
        user = self._user(user_id)
        msg = message if isinstance(message, FakeMessage) else self.messages[message]
        comp = msg.find_component(custom_id)
        if comp is None and require_component:
            raise LookupError(
                f"fakediscord: message {msg.id} has no component {custom_id!r}; "
                f"it has {msg.custom_ids()}"
            )
        if comp is not None and comp.get("disabled") and not allow_disabled:
            raise LookupError(
                f"fakediscord: the component {custom_id!r} of message {msg.id} is disabled; "
                "Discord's clients do not send a press of a disabled button"
            )
        ctype = int(comp["type"]) if comp else (3 if values is not None else 2)
        data: JSON = {"custom_id": custom_id, "component_type": ctype}
        if comp is not None and "id" in comp:
            data["id"] = comp["id"]
        if values is not None:
            data["values"] = values
        ch = self.channels[msg.channel_id]
        guild_id = ch.guild_id
        return await self._interaction(3, guild_id, ch.id, user, data, message=msg, locale=locale)

    async def submit_modal(
        self,
        guild_id: int | None,
        channel_id: int | None,
        user_id: int | FakeUser,
        custom_id: str,
        fields: Mapping[str, str],
        *,
        message: FakeMessage | int | None = None,
        locale: str | None = None,
    ) -> InteractionHandle:
        """INTERACTION_CREATE type 5 with text inputs {custom_id: value} in action rows."""
        user = self._user(user_id)
        rows = [
            {"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]}
            for k, v in fields.items()
        ]
        data: JSON = {"custom_id": custom_id, "components": rows}
        msg = self.messages[message] if isinstance(message, int) else message
        return await self._interaction(
            5, guild_id, channel_id, user, data, message=msg, locale=locale
        )

    async def _interaction(
        self,
        itype: int,
        guild_id: int | None,
        channel_id: int | None,
        user: FakeUser,
        data: JSON,
        *,
        message: FakeMessage | None = None,
        locale: str | None,
    ) -> InteractionHandle:
        # The language of the member's client: the call's, else the user's (set_user_locale).
        locale = user.locale if locale is None else check_locale(locale)
        if guild_id is not None:
            guild = self.guilds[guild_id]
            if user.id not in guild.members:
                raise KeyError(
                    f"user {user.id} is not a member of guild {guild_id}; add_member() first"
                )
            if channel_id is None:
                channel_id = next(
                    c for c in guild.channel_ids if self.channels[c].type == CHANNEL_TEXT
                )
            ch = self.channels[channel_id]
            if ch.guild_id != guild_id:
                raise ValueError(f"channel {channel_id} is not in guild {guild_id}")
        else:
            ch = self.channels[channel_id] if channel_id is not None else self.dm_channel(user.id)
            if ch.guild_id is not None:
                raise ValueError("guild_id is None but the channel is a guild channel")
        bad = lone_surrogate_path(data)
        if bad is not None:
            # A Discord client cannot send it, and the bot's JSON reader would refuse it.
            where = ".".join(str(p) for p in bad) or "data"
            raise ValueError(f"fakediscord: {where}: a lone surrogate (not Unicode text)")
        iid = self.snowflake()
        token = "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(60)
        payload = P.interaction(self, iid, token, itype, ch, user, data, message, locale)
        rec = InteractionRecord(
            id=iid,
            token=token,
            type=itype,
            channel_id=ch.id,
            guild_id=ch.guild_id,
            user_id=user.id,
            payload=payload,
            source_message_id=message.id if message else None,
            original_message_id=message.id if message else None,
        )
        self.interactions[iid] = rec
        self._interactions_by_token[token] = rec
        await self.dispatch("INTERACTION_CREATE", payload, ch.guild_id)
        return InteractionHandle(rec)


def _check_typed(content: str, *, has_attachments: bool) -> None:
    """What a member sends is what a Discord client lets them type: ValueError otherwise."""
    if not isinstance(content, str):
        raise TypeError(f"fakediscord: content must be a string, not {type(content).__name__}")
    if not content.strip() and not has_attachments:
        raise ValueError("fakediscord: content: empty (Discord sends no empty message)")
    problem = typed_text_problem(content)
    if problem is not None:
        raise ValueError(f"fakediscord: content: {problem}")
