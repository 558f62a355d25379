"""Guilds, members, roles, channels, threads and DM channels (ChannelsMixin): the state
builders tests call (add_guild, add_member, add_text_channel, add_thread, delete_channel...)
and the REST routes over them. Forum specifics are forum.py."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import forum
from . import payloads as P
from .errors import ApiError, invalid_form
from .localizations import check_locale
from .messages import MessagesMixin
from .models import (
    CHANNEL_DM,
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    JSON,
    MANAGE_ROLES,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
)
from .routing import Ctx, NoContent


class ChannelsMixin(MessagesMixin):
    """The places messages live in, and who is there."""

    def add_guild(
        self,
        name: str = "Duel Hall",
        *,
        id: int | None = None,
        owner_id: int | None = None,
        everyone_permissions: int = DEFAULT_EVERYONE_PERMISSIONS,
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        channel_name: str | None = "general",
        locale: str = "en-US",
    ) -> FakeGuild:
        """A guild with @everyone, the bot as a member (with a managed role holding
        ``bot_permissions``) and, unless channel_name is None, one text channel."""
        gid = id or self.snowflake()
        owner = owner_id or self.owner.id
        guild = FakeGuild(id=gid, name=name, owner_id=owner, locale=check_locale(locale))
        guild.roles[gid] = FakeRole(
            id=gid, guild_id=gid, name="@everyone", permissions=everyone_permissions
        )
        self.guilds[gid] = guild
        bot_role = FakeRole(
            id=self.snowflake(),
            guild_id=gid,
            name=self.bot_user.username,
            permissions=bot_permissions,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot_user.id] = FakeMember(gid, self.bot_user, [bot_role.id])
        if owner in self.users:
            guild.members[owner] = FakeMember(gid, self.users[owner], [])
        if channel_name is not None:
            self._make_text_channel(gid, channel_name)
        self._emit_guild_event("GUILD_CREATE", lambda: self.guild_create_payload(guild), gid)
        return guild

    def add_role(
        self,
        guild_id: int,
        name: str,
        *,
        permissions: int = 0,
        id: int | None = None,
        position: int | None = None,
        bot_id: int | None = None,
        integration_id: int | None = None,
        premium_subscriber: bool = False,
    ) -> FakeRole:
        """A role; with ``bot_id``, ``integration_id`` or ``premium_subscriber`` it is a
        managed role (a bot's, an integration's, the Server Booster role), as on Discord."""
        guild = self.guilds[guild_id]
        role = FakeRole(
            id=id or self.snowflake(),
            guild_id=guild_id,
            name=name,
            permissions=permissions,
            position=position if position is not None else len(guild.roles),
            managed=bot_id is not None or integration_id is not None or premium_subscriber,
            bot_id=bot_id,
            integration_id=integration_id,
            premium_subscriber=premium_subscriber,
        )
        guild.roles[role.id] = role
        self._emit_guild_event(
            "GUILD_ROLE_CREATE",
            lambda: {"guild_id": str(guild_id), "role": role.to_payload()},
            guild_id,
        )
        return role

    def add_member(
        self,
        guild_id: int,
        user: int | FakeUser | str,
        *,
        roles: Iterable[int | FakeRole] = (),
        nick: str | None = None,
        locale: str | None = None,
    ) -> FakeMember:
        """Add a member; ``user`` may be a user id, a FakeUser, or a new username.
        ``locale``: the user's client language from now on (a user's, not a member's: it
        holds in every guild and DM, as on Discord); None keeps the user's."""
        guild = self.guilds[guild_id]
        if isinstance(user, str):
            user = self.add_user(user)
        elif isinstance(user, int):
            user = self.users[user]
        if locale is not None:
            user.locale = check_locale(locale)
        role_ids = [r.id if isinstance(r, FakeRole) else int(r) for r in roles]
        for rid in role_ids:
            if rid not in guild.roles:
                raise KeyError(f"role {rid} is not in guild {guild_id}")
        member = FakeMember(guild_id, user, role_ids, nick=nick)
        guild.members[user.id] = member
        self._emit_guild_event(
            "GUILD_MEMBER_ADD", lambda: {**member.to_payload(), "guild_id": str(guild_id)}, guild_id
        )
        return member

    def set_user_locale(self, user: int | FakeUser, locale: str) -> FakeUser:
        """The user switches their Discord client's language: their later interactions
        carry ``locale`` (Discord sends no event for it)."""
        found = user if isinstance(user, FakeUser) else self.users[user]
        found.locale = check_locale(locale)
        return found

    def set_guild_locale(self, guild_id: int, locale: str) -> FakeGuild:
        """An admin changes the server's primary language (Server Settings, Community,
        Overview): GUILD_UPDATE with the new ``preferred_locale``; later interactions in the
        guild carry it as ``guild_locale``."""
        guild = self.guilds[guild_id]
        guild.locale = check_locale(locale)
        self._emit_guild_event("GUILD_UPDATE", lambda: P.guild(self, guild), guild_id)
        return guild

    def set_member_roles(
        self, guild_id: int, user_id: int, roles: Iterable[int | FakeRole]
    ) -> FakeMember:
        member = self.guilds[guild_id].members[user_id]
        member.role_ids = [r.id if isinstance(r, FakeRole) else int(r) for r in roles]
        self._emit_member_update(member)
        return member

    def add_text_channel(
        self,
        guild_id: int,
        name: str,
        *,
        id: int | None = None,
        parent_id: int | None = None,
        topic: str | None = None,
    ) -> FakeChannel:
        ch = self._make_text_channel(guild_id, name, id=id, parent_id=parent_id, topic=topic)
        self._emit_guild_event("CHANNEL_CREATE", lambda: P.channel(self, ch), guild_id)
        return ch

    def add_forum_channel(
        self,
        guild_id: int,
        name: str,
        *,
        tags: tuple[str, ...] | list[str] = (),
        moderated: tuple[str, ...] | list[str] = (),
        require_tag: bool = False,
    ) -> FakeChannel:
        """A forum channel (type 15) with these tags; see forum.py for its rules."""
        return forum.add_forum_channel(
            self, guild_id, name, tags=tags, moderated=moderated, require_tag=require_tag
        )

    def add_thread(
        self, channel_id: int, name: str, *, private: bool = False, owner_id: int | None = None
    ) -> FakeChannel:
        parent = self.channels[channel_id]
        return self._create_thread(
            parent,
            name,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            owner_id or self.owner.id,
        )

    def delete_channel(self, channel_id: int, *, notify: bool = True) -> FakeChannel:
        """Delete a channel or thread (a forum post is a thread) as a moderator would: it and
        its threads are gone, with their messages; the bot gets THREAD_DELETE or
        CHANNEL_DELETE (``notify=False``: it does not, as a process that does not hold the
        server's shard). Later requests naming it get Discord's 404 10003 Unknown Channel (a
        webhook execute with its ``thread_id`` too)."""
        ch = self._channel(channel_id)
        for child in [c for c in self.channels.values() if c.parent_id == ch.id and c.is_thread]:
            self.delete_channel(child.id, notify=notify)
        del self.channels[ch.id]
        if ch.guild_id is not None and ch.id in self.guilds[ch.guild_id].channel_ids:
            self.guilds[ch.guild_id].channel_ids.remove(ch.id)
        for msg in self.messages.values():
            if msg.channel_id == ch.id:
                msg.deleted = True
        if not notify:
            return ch
        if ch.is_thread:
            gone: JSON = {"id": str(ch.id), "type": ch.type, "parent_id": str(ch.parent_id)}
            if ch.guild_id is not None:
                gone["guild_id"] = str(ch.guild_id)
            self._emit_guild_event("THREAD_DELETE", lambda: gone, ch.guild_id)
        else:
            data = P.channel(self, ch)
            self._emit_guild_event("CHANNEL_DELETE", lambda: data, ch.guild_id)
        return ch

    def dm_channel(self, user_id: int) -> FakeChannel:
        """The DM channel between the bot and ``user_id`` (created if needed)."""
        cid = self.dm_channel_ids.get(user_id)
        if cid is not None:
            return self.channels[cid]
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}")
        ch = FakeChannel(id=self.snowflake(), type=CHANNEL_DM, recipient_ids=[user_id])
        self.channels[ch.id] = ch
        self.dm_channel_ids[user_id] = ch.id
        return ch

    def _member_role(self, ctx: Ctx, *, add: bool) -> NoContent:
        g = self._guild(ctx.int_param("guild_id"))
        m = g.members.get(ctx.int_param("user_id"))
        if m is None:
            raise ApiError(404, 10007, "Unknown Member")
        rid = ctx.int_param("role_id")
        if rid not in g.roles:
            raise ApiError(404, 10011, "Unknown Role")
        self._require_bot_perms(g.id, MANAGE_ROLES)
        if add and rid not in m.role_ids:
            m.role_ids.append(rid)
        if not add and rid in m.role_ids:
            m.role_ids.remove(rid)
        self._emit_member_update(m)
        return NoContent()

    def _create_thread(
        self,
        parent: FakeChannel,
        name: str,
        ttype: int,
        owner_id: int,
        body: JSON | None = None,
        starter: FakeMessage | None = None,
    ) -> FakeChannel:
        if parent.type not in (CHANNEL_TEXT, 5, 15) or parent.guild_id is None:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        th = FakeChannel(
            id=starter.id if starter else self.snowflake(),
            type=ttype,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=owner_id,
            auto_archive_duration=int((body or {}).get("auto_archive_duration") or 1440),
            member_ids=[owner_id],
            starter_message_id=starter.id if starter else None,
        )
        self.channels[th.id] = th
        self.guilds[parent.guild_id].channel_ids.append(th.id)
        if starter is not None:
            starter.thread_id = th.id
        self._emit_guild_event(
            "THREAD_CREATE", lambda: P.channel(self, th) | {"newly_created": True}, th.guild_id
        )
        return th

    def _register_guild_routes(self) -> None:
        """Users, DM channels, guilds, members and roles."""
        r = self.route

        # -- users ----------------------------------------------------------------------------
        @r("GET", "/users/{user_id}")
        async def get_user(ctx: Ctx) -> Any:
            user = self.users.get(ctx.int_param("user_id"))
            if user is None:
                raise ApiError(404, 10013, "Unknown User")
            return user.to_payload()

        @r("POST", "/users/@me/channels")
        async def create_dm(ctx: Ctx) -> Any:
            try:
                uid = int(ctx.json["recipient_id"])
            except (KeyError, TypeError, ValueError):
                raise invalid_form(
                    "recipient_id", "This field is required", "BASE_TYPE_REQUIRED"
                ) from None
            if uid not in self.users or uid == self.bot_user.id:
                raise ApiError(400, 50033, "Invalid Recipient(s)")
            return P.channel(self, self.dm_channel(uid))

        # -- guilds ---------------------------------------------------------------------------
        @r("GET", "/guilds/{guild_id}")
        async def get_guild(ctx: Ctx) -> Any:
            g = self._guild(ctx.int_param("guild_id"))
            data = P.guild(self, g)
            if ctx.query.get("with_counts") in ("true", "1", "True"):
                data["approximate_member_count"] = len(g.members)
                data["approximate_presence_count"] = 0
            return data

        @r("GET", "/guilds/{guild_id}/channels")
        async def get_guild_channels(ctx: Ctx) -> Any:
            g = self._guild(ctx.int_param("guild_id"))
            return [P.channel(self, self.channels[c]) for c in g.channel_ids]

        @r("GET", "/guilds/{guild_id}/roles")
        async def get_roles(ctx: Ctx) -> Any:
            g = self._guild(ctx.int_param("guild_id"))
            return [role.to_payload() for role in g.roles.values()]

        @r("GET", "/guilds/{guild_id}/members/{user_id}")
        async def get_member(ctx: Ctx) -> Any:
            g = self._guild(ctx.int_param("guild_id"))
            m = g.members.get(ctx.int_param("user_id"))
            if m is None:
                raise ApiError(404, 10007, "Unknown Member")
            return m.to_payload()

        @r("GET", "/guilds/{guild_id}/members")
        async def list_members(ctx: Ctx) -> Any:
            g = self._guild(ctx.int_param("guild_id"))
            after = int(ctx.query.get("after", 0))
            limit = int(ctx.query.get("limit", 1))
            members = sorted(
                (m for m in g.members.values() if m.user.id > after), key=lambda m: m.user.id
            )
            return [m.to_payload() for m in members[:limit]]

        @r("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}")
        async def add_role(ctx: Ctx) -> Any:
            return self._member_role(ctx, add=True)

        @r("DELETE", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}")
        async def remove_role(ctx: Ctx) -> Any:
            return self._member_role(ctx, add=False)

    def _register_channel_routes(self) -> None:
        """Channels and threads (messages: messages.py; forum posts: forum.py)."""
        r = self.route

        # -- channels -------------------------------------------------------------------------
        @r("GET", "/channels/{channel_id}")
        async def get_channel(ctx: Ctx) -> Any:
            return P.channel(self, self._channel(ctx.int_param("channel_id")))

        @r("DELETE", "/channels/{channel_id}")
        async def delete_channel(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            data = P.channel(self, ch)
            self.delete_channel(ch.id)
            return data

        @r("PATCH", "/channels/{channel_id}")
        async def edit_channel(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            body = ctx.json
            forum.edit_thread(self, ch, body)
            for key in ("name", "topic", "archived", "locked", "auto_archive_duration"):
                if key in body:
                    setattr(ch, key, body[key])
            data = P.channel(self, ch)
            event = "THREAD_UPDATE" if ch.is_thread else "CHANNEL_UPDATE"
            self._emit_guild_event(event, lambda: data, ch.guild_id)
            return data

        @r("POST", "/channels/{channel_id}/typing")
        async def typing(ctx: Ctx) -> Any:
            self._channel(ctx.int_param("channel_id"))
            return NoContent()

        @r("POST", "/channels/{channel_id}/threads")
        async def create_thread(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            body = ctx.json
            if ch.type in forum.THREAD_ONLY_TYPES:
                return forum.start_post(self, ch, body, ctx.files)
            ttype = int(body.get("type") or CHANNEL_PRIVATE_THREAD)
            self._require_bot_perms(
                ch.guild_id,
                CREATE_PRIVATE_THREADS
                if ttype == CHANNEL_PRIVATE_THREAD
                else CREATE_PUBLIC_THREADS,
            )
            name = _thread_name(body)
            th = self._create_thread(ch, name, ttype, self.bot_user.id, body)
            return P.channel(self, th)

        @r("POST", "/channels/{channel_id}/messages/{message_id}/threads")
        async def thread_from_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            msg = self._message(ch, ctx.int_param("message_id"))
            if msg.thread_id is not None:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            self._require_bot_perms(ch.guild_id, CREATE_PUBLIC_THREADS)
            th = self._create_thread(
                ch, _thread_name(ctx.json), CHANNEL_PUBLIC_THREAD, self.bot_user.id, ctx.json, msg
            )
            return P.channel(self, th)

        @r("PUT", "/channels/{channel_id}/thread-members/{user_id}")
        async def add_thread_member(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            uid = self.bot_user.id if ctx.params["user_id"] == "@me" else ctx.int_param("user_id")
            if uid not in ch.member_ids:
                ch.member_ids.append(uid)
            return NoContent()

        @r("DELETE", "/channels/{channel_id}/thread-members/{user_id}")
        async def remove_thread_member(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            uid = self.bot_user.id if ctx.params["user_id"] == "@me" else ctx.int_param("user_id")
            if uid in ch.member_ids:
                ch.member_ids.remove(uid)
            return NoContent()


def _thread_name(body: JSON) -> str:
    name = str(body.get("name") or "")
    if not 1 <= len(name) <= 100:
        raise invalid_form("name", "Must be between 1 and 100 in length.", "BASE_TYPE_BAD_LENGTH")
    return name
