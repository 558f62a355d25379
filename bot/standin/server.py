"""FakeDiscord: an aiohttp server speaking enough of Discord's REST API and gateway for
discord.py 2.7.1, with an in-memory state model, request recording, event injection and
fault injection. See docs/standin.md for the API tour.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import secrets
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from aiohttp import BodyPartReader, web

from . import forum
from . import payloads as P
from .errors import ApiError, invalid_form
from .gateway import GatewayServer, GatewaySession
from .interactions import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MODAL,
    UPDATE_MESSAGE,
    InteractionHandle,
    InteractionRecord,
    InteractionReply,
    ReplyKind,
    wait_until,
)
from .limits import (
    LimitRefused,
    check_autocomplete,
    check_message,
    check_unicode,
    check_webhook_count,
    check_webhook_name,
    lone_surrogate_path,
    typed_text_problem,
)
from .models import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    CHANNEL_DM,
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    INTENT_MESSAGE_CONTENT,
    JSON,
    MANAGE_ROLES,
    MANAGE_WEBHOOKS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    FakeWebhook,
    RecordedFile,
    RecordedRequest,
    SnowflakeFactory,
    iso_now,
)
from .options import Attachment, build_command_data, find_command, validate_command
from .ratelimits import RateLimiter, RateLimitHit, RateLimits

log = logging.getLogger("fakediscord")

Handler = Callable[["Ctx"], Awaitable[Any]]


@dataclass
class NoContent:
    """Return from a handler to answer 204."""


@dataclass
class Ctx:
    method: str
    path: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[RecordedFile]
    headers: Mapping[str, str]

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise invalid_form(name, "Value is not snowflake.", "NUMBER_TYPE_COERCE") from None

    @property
    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    times: int | None
    body: JSON
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hits: int = 0
    #: The request is handled (it takes effect) and then the connection is cut before the
    #: answer: the client sees a connection error (or a timeout) for a request that worked.
    drop_response: bool = False


def path_regex(pattern: str) -> re.Pattern[str]:
    """ "/channels/{channel_id}/messages" or "/channels/*/messages" -> an anchored regex."""
    out = ""
    for piece in re.split(r"(\{[^}/]+\}|\*\*|\*)", pattern):
        if piece == "**":
            out += ".*"
        elif piece == "*":
            out += "[^/]+"
        elif piece.startswith("{") and piece.endswith("}"):
            out += f"(?P<{piece[1:-1]}>[^/]+)"
        else:
            out += re.escape(piece)
    return re.compile(f"^{out}$")


def _method_matches(want: str, got: str) -> bool:
    return want == "*" or want.upper() == got.upper()


# Discord's 403 codes for a DM it will not deliver (JSON error codes in the API docs).
CANNOT_DM = 50007
NO_MUTUAL_GUILDS = 50278
DM_REFUSALS = {
    CANNOT_DM: "Cannot send messages to this user",
    NO_MUTUAL_GUILDS: "Cannot send messages to this user due to having no mutual guilds",
}
_MENTION = re.compile(r"<@!?(\d+)>")


class FakeDiscord:
    """A fake Discord. Use as ``async with FakeDiscord() as fake:`` (binds 127.0.0.1:0)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "DuelBot",
        bot_id: int | None = None,
        application_id: int | None = None,
        shard_count: int = 1,
        heartbeat_interval_ms: int = 41250,
        interaction_deadline: float | None = 3.0,
        echo_bot_messages: bool = True,
        allowed_intents: int = (1 << 26) - 1,
        rate_limits: RateLimits | None = None,
        message_content_intent: bool = False,
        nonce_window: float = 300.0,
    ) -> None:
        self.snowflake = SnowflakeFactory()
        self.token = token
        self.shard_count = shard_count
        self.heartbeat_interval_ms = heartbeat_interval_ms
        #: Seconds the bot has to send the interaction callback (None: no limit). Discord: 3.
        self.interaction_deadline = interaction_deadline
        #: Send MESSAGE_CREATE/UPDATE/DELETE for the bot's own messages, as Discord does.
        self.echo_bot_messages = echo_bot_messages
        #: Intents IDENTIFY may ask for; others close the socket with 4014.
        self.allowed_intents = allowed_intents
        self.application_flags = 0
        #: The MESSAGE_CONTENT privileged intent. Off (duelbot's case): bot-token reads of
        #: messages the app did not author (webhook messages included) come back without
        #: content, embeds, attachments and components.
        self.message_content_intent = message_content_intent
        #: Seconds a (author, nonce) pair is remembered for enforce_nonce ("a few minutes").
        self.nonce_window = nonce_window
        self._nonces: dict[tuple[int, str], tuple[float, int]] = {}
        #: Requests refused for being over a Discord limit (limits.py), as "METHOD /path:
        #: body". check() fails on any unless ``expect_limit_refusals`` is set.
        self.limit_refusals: list[str] = []
        self.expect_limit_refusals = False

        self.users: dict[int, FakeUser] = {}
        self.bot_user = self.add_user(bot_name, id=bot_id, bot=True)
        self.application_id = application_id or self.bot_user.id
        self.owner = self.add_user("owner")

        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.webhooks: dict[int, FakeWebhook] = {}
        self.dm_channel_ids: dict[int, int] = {}
        self.global_commands: list[JSON] = []
        self.guild_commands: dict[int, list[JSON]] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self._interactions_by_token: dict[str, InteractionRecord] = {}
        self.cdn: dict[int, RecordedFile] = {}

        #: Every REST request, in arrival order.
        self.requests: list[RecordedRequest] = []
        #: "METHOD /path" of requests no route matched (answered 404). check() fails on them.
        self.unknown_routes: list[str] = []
        #: Tracebacks of exceptions inside the fake itself. check() fails on them.
        self.errors: list[str] = []
        #: user id -> the JSON code a DM to them is refused with (403).
        self.blocked_dm_users: dict[int, int] = {}
        self.faults: list[Fault] = []
        #: Forum channels' tags and flags, and posts' applied tags (forum.py).
        self.forums = forum.ForumState()
        #: Opt-in enforcement of Discord's rate limits (see ratelimits.py); None: off.
        self.ratelimiter: RateLimiter | None = None
        if rate_limits is not None:
            self.enforce_rate_limits(rate_limits)

        self.gateway = GatewayServer(self)
        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self._register_routes()
        self._runner: web.AppRunner | None = None
        self.host = "127.0.0.1"
        self.port = 0

    # ------------------------------------------------------------------------------------
    # lifecycle
    # ------------------------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_route("*", "/{tail:.*}", self._entry)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base_url(self) -> str:
        """Assign to ``discord.http.Route.BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Assign (as a yarl.URL) to ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return f"ws://{self.host}:{self.port}/gateway"

    def check(self) -> None:
        """Raise AssertionError if the bot hit unknown routes, the fake itself failed, or the
        bot sent a payload over one of Discord's limits (unless the test expects that)."""
        problems: list[str] = []
        if self.unknown_routes:
            problems.append("unknown routes: " + ", ".join(self.unknown_routes))
        if self.errors:
            problems.append("fakediscord internal errors:\n" + "\n".join(self.errors))
        if self.limit_refusals and not self.expect_limit_refusals:
            problems.append(
                "payloads over Discord's limits (refused as Discord would):\n"
                + "\n".join(self.limit_refusals)
            )
        if problems:
            raise AssertionError("fakediscord: " + "\n".join(problems))

    # ------------------------------------------------------------------------------------
    # state building (call before or after the bot connects)
    # ------------------------------------------------------------------------------------
    def add_user(
        self,
        username: str,
        *,
        id: int | None = None,
        bot: bool = False,
        global_name: str | None = None,
    ) -> FakeUser:
        user = FakeUser(
            id=id or self.snowflake(), username=username, bot=bot, global_name=global_name
        )
        self.users[user.id] = user
        return user

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
        guild = FakeGuild(id=gid, name=name, owner_id=owner, locale=locale)
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
    ) -> FakeMember:
        """Add a member; ``user`` may be a user id, a FakeUser, or a new username."""
        guild = self.guilds[guild_id]
        if isinstance(user, str):
            user = self.add_user(user)
        elif isinstance(user, int):
            user = self.users[user]
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

    def _make_text_channel(
        self,
        guild_id: int,
        name: str,
        *,
        id: int | None = None,
        parent_id: int | None = None,
        topic: str | None = None,
    ) -> FakeChannel:
        guild = self.guilds[guild_id]
        ch = FakeChannel(
            id=id or self.snowflake(),
            type=CHANNEL_TEXT,
            name=name,
            guild_id=guild_id,
            parent_id=parent_id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self.channels[ch.id] = ch
        guild.channel_ids.append(ch.id)
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

    # ------------------------------------------------------------------------------------
    # permissions
    # ------------------------------------------------------------------------------------
    def member_permissions(self, guild_id: int, user_id: int) -> int:
        guild = self.guilds[guild_id]
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user_id)
        perms = guild.everyone_role.permissions
        if member is not None:
            for rid in member.role_ids:
                role = guild.roles.get(rid)
                if role is not None:
                    perms |= role.permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def bot_permissions(self, guild_id: int) -> int:
        return self.member_permissions(guild_id, self.bot_user.id)

    def _require_bot_perms(self, guild_id: int | None, needed: int) -> None:
        if guild_id is None:
            return
        if self.bot_permissions(guild_id) & needed != needed:
            raise ApiError(403, 50013, "Missing Permissions")

    # ------------------------------------------------------------------------------------
    # assertions / queries
    # ------------------------------------------------------------------------------------
    def requests_to(self, method: str, path: str) -> list[RecordedRequest]:
        """Recorded requests; ``path`` is exact ("/users/@me"), a template
        ("/channels/{channel_id}/messages") or uses * for one segment. method "*" = any."""
        rx = path_regex(path)
        return [r for r in self.requests if _method_matches(method, r.method) and rx.match(r.path)]

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

    async def wait_for_requests(
        self, method: str, path: str, count: int = 1, timeout: float = 5.0
    ) -> list[RecordedRequest]:
        def check() -> list[RecordedRequest] | None:
            found = [r for r in self.requests_to(method, path) if r.status]
            return found if len(found) >= count else None

        return await wait_until(check, timeout, lambda: f"{count} x {method} {path}")

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

    async def wait_until_connected(self, shards: int | None = None, timeout: float = 5.0) -> None:
        """Wait until ``shards`` (default: shard_count) gateway sessions are connected."""
        want = shards if shards is not None else self.shard_count

        def check() -> bool | None:
            live = [s for s in self.gateway.live_sessions() if s.connected]
            return True if len(live) >= want else None

        await wait_until(check, timeout, lambda: f"{want} connected gateway session(s)")

    # ------------------------------------------------------------------------------------
    # fault injection
    # ------------------------------------------------------------------------------------
    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int = 500,
        times: int | None = 1,
        *,
        code: int = 0,
        message: str | None = None,
        body: JSON | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status`` (times=None: forever)."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=status,
            times=times,
            body=body
            if body is not None
            else {"message": message or f"{status}: fakediscord fault", "code": code},
        )
        self.faults.append(fault)
        return fault

    def rate_limit_next(
        self,
        method: str,
        path_pattern: str,
        retry_after: float = 0.05,
        times: int | None = 1,
        *,
        is_global: bool = False,
        via: bool = True,
    ) -> Fault:
        """Answer 429 like Discord does (with Via; without it discord.py treats it as a
        Cloudflare ban and raises instead of retrying)."""
        headers = {
            "Retry-After": str(max(1, int(retry_after + 0.999))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Scope": "global" if is_global else "user",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=429,
            times=times,
            body={
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": is_global,
            },
            headers=headers,
        )
        if not via:
            fault.headers["X-No-Via"] = "1"
        self.faults.append(fault)
        return fault

    def delay(
        self, method: str, path_pattern: str, seconds: float, times: int | None = None
    ) -> Fault:
        """Delay matching responses by ``seconds`` (then answer normally)."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=0,
            times=times,
            body={},
            delay=seconds,
        )
        self.faults.append(fault)
        return fault

    def drop_response_next(
        self, method: str, path_pattern: str, times: int | None = 1, *, delay: float = 0.0
    ) -> Fault:
        """The next ``times`` matching requests that succeed take effect, but their answer
        is lost: after ``delay`` seconds the connection is cut, and the client sees a
        connection error (a ``delay`` past its timeout: a timeout). A post whose response is
        dropped has landed; a retry must not post it twice."""
        fault = Fault(
            method=method,
            pattern=path_regex(path_pattern),
            status=0,
            times=times,
            body={},
            delay=delay,
            drop_response=True,
        )
        self.faults.append(fault)
        return fault

    def enforce_rate_limits(self, limits: RateLimits | None = None) -> RateLimiter:
        """Answer requests over Discord's global and per-route limits with 429 (see
        ratelimits.py); ``fake.rate_limited`` lists the 429s sent."""
        self.ratelimiter = RateLimiter(limits or RateLimits(), self.application_id)
        return self.ratelimiter

    @property
    def rate_limited(self) -> list[RateLimitHit]:
        """The 429s sent by rate-limit enforcement (not by ``rate_limit_next``)."""
        return [] if self.ratelimiter is None else self.ratelimiter.hits

    def clear_faults(self) -> None:
        self.faults.clear()

    def block_dms(self, user_id: int, code: int = CANNOT_DM) -> None:
        """POST /channels/{dm}/messages to this user answers 403 with ``code``: 50007 (the
        user's DMs are closed to the bot, the default) or 50278 (no server in common)."""
        if code not in DM_REFUSALS:
            raise ValueError(f"Discord refuses DMs with {sorted(DM_REFUSALS)}, not {code}")
        self.blocked_dm_users[user_id] = code

    def unblock_dms(self, user_id: int) -> None:
        self.blocked_dm_users.pop(user_id, None)

    async def drop_connection(self, shard_id: int | None = None, code: int = 4000) -> None:
        """Close gateway socket(s); discord.py then RESUMEs at resume_gateway_url."""
        await self.gateway.drop(shard_id, code)

    async def send_reconnect(self, shard_id: int | None = None) -> None:
        """Send op 7 RECONNECT; the client closes and RESUMEs."""
        for s in self.gateway.live_sessions():
            if shard_id is None or s.shard_id == shard_id:
                await s.send_raw({"op": 7, "d": None})

    async def invalidate_session(
        self, shard_id: int | None = None, resumable: bool = False
    ) -> None:
        """Send op 9; with resumable=False the client re-IDENTIFYs (new READY)."""
        for s in self.gateway.live_sessions():
            if shard_id is None or s.shard_id == shard_id:
                if not resumable:
                    s.invalidated = True
                await s.send_raw({"op": 9, "d": resumable})

    # ------------------------------------------------------------------------------------
    # dispatch helpers
    # ------------------------------------------------------------------------------------
    def _session_for(self, event: str, guild_id: int | None) -> GatewaySession | None:
        session = self.gateway.session_for(guild_id)
        if session is None or not session.wants(event, guild_id):
            return None
        return session

    def _emit_guild_event(
        self, event: str, build: Callable[[], JSON], guild_id: int | None
    ) -> None:
        """Fire-and-forget dispatch used by the sync state builders (only when a loop runs)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        session = self._session_for(event, guild_id)
        if session is not None:
            session.dispatch(event, build())

    def _emit_member_update(self, member: FakeMember) -> None:
        self._emit_guild_event(
            "GUILD_MEMBER_UPDATE",
            lambda: {**member.to_payload(), "guild_id": str(member.guild_id)},
            member.guild_id,
        )

    async def dispatch(self, event: str, data: JSON, guild_id: int | None = None) -> None:
        """Send any DISPATCH event to the shard owning ``guild_id`` (shard 0 for None)."""
        session = self.gateway.session_for(guild_id)
        if session is None:
            raise RuntimeError("fakediscord: no gateway session (is the bot connected?)")
        if session.wants(event, guild_id):
            await session.dispatch(event, data)

    def _echo(self, event: str, msg: FakeMessage) -> None:
        if not self.echo_bot_messages or msg.ephemeral:
            return
        if event == "MESSAGE_DELETE":
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            self._emit_guild_event(event, lambda: data, msg.guild_id)
        else:
            self._emit_guild_event(event, lambda: P.message(self, msg, gateway=True), msg.guild_id)

    # ------------------------------------------------------------------------------------
    # event injection (the user side)
    # ------------------------------------------------------------------------------------
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
            self.users[int(u)] for u in _MENTION.findall(content) if int(u) in self.users
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
        locale: str = "en-US",
        require_registered: bool = True,
        enforce_limits: bool = True,
    ) -> InteractionHandle:
        """Run a slash command as ``user_id``: INTERACTION_CREATE type 2.

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
        locale: str = "en-US",
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
        locale: str = "en-US",
    ) -> InteractionHandle:
        """A user clicks a button (or picks ``values`` in a select) on ``message``:
        INTERACTION_CREATE type 3 carrying the message. In a DM or a guild, per the message."""
        user = self._user(user_id)
        msg = message if isinstance(message, FakeMessage) else self.messages[message]
        comp = msg.find_component(custom_id)
        if comp is None and require_component:
            raise LookupError(
                f"fakediscord: message {msg.id} has no component {custom_id!r}; "
                f"it has {msg.custom_ids()}"
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
        locale: str = "en-US",
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
        locale: str,
    ) -> InteractionHandle:
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

    # ------------------------------------------------------------------------------------
    # HTTP plumbing
    # ------------------------------------------------------------------------------------
    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self._routes.append((method, path_regex(template), template, fn))
            return fn

        return deco

    def _match(self, method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
        for m, rx, template, fn in self._routes:
            if m != method:
                continue
            hit = rx.match(path)
            if hit:
                return template, hit.groupdict(), fn
        return None

    async def _read_body(self, request: web.Request) -> tuple[Any, list[RecordedFile]]:
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            payload: Any = None
            files: list[RecordedFile] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue  # nested multipart: not used by discord.py
                raw = await part.read()
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(raw.decode())
                else:
                    files.append(
                        RecordedFile(
                            field_name=name,
                            filename=part.filename or name,
                            content_type=part.headers.get("Content-Type"),
                            data=bytes(raw),
                        )
                    )
            return payload, files
        raw_bytes = await request.read()
        if not raw_bytes:
            return None, []
        if ctype == "application/json":
            return json.loads(raw_bytes.decode()), []
        return raw_bytes.decode(errors="replace"), []

    def _response(
        self, status: int, body: Any, template: str | None, extra: Mapping[str, str] | None = None
    ) -> web.Response:
        bucket = hashlib.sha1((template or "unknown").encode()).hexdigest()[:16]
        headers = {
            "Via": "1.1 google",
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "49",
            "X-RateLimit-Reset-After": "1.000",
            "X-RateLimit-Reset": f"{time.time() + 1:.3f}",
        }
        if extra:
            headers.update(extra)
        if headers.pop("X-No-Via", None):
            headers.pop("Via", None)
        if status == 204 or body is None:
            return web.Response(status=204, headers=headers)
        headers["Content-Type"] = "application/json"  # exactly; discord.py compares equality
        return web.Response(status=status, body=json.dumps(body).encode(), headers=headers)

    async def _entry(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        cdn = re.match(r"^/attachments/\d+/(\d+)/[^/]+$", path)
        if cdn and request.method == "GET":
            rf = self.cdn.get(int(cdn.group(1)))
            if rf is None:
                return web.Response(status=404)
            return web.Response(
                body=rf.data, content_type=rf.content_type or "application/octet-stream"
            )
        api = re.match(r"^/api/v\d+(/.*)$", path)
        if not api:
            self.unknown_routes.append(f"{request.method} {path}")
            return self._response(404, {"message": "404: Not Found", "code": 0}, None)
        path = api.group(1)
        try:
            body, files = await self._read_body(request)
        except Exception:
            self.errors.append(traceback.format_exc())
            body, files = None, []
        match = self._match(request.method, path)
        rec = RecordedRequest(
            method=request.method,
            path=path,
            route=match[0] if match else None,
            query=dict(request.query),
            headers=dict(request.headers),
            json=body,
            files=files,
        )
        self.requests.append(rec)
        template = match[0] if match else None

        extra: dict[str, str] = {}
        status, out = await self._handle(request, rec, match, extra)
        rec.status = status
        rec.response = out
        drop = self._drop_fault(rec) if status < 300 else None
        if drop is not None:
            if drop.delay:
                await asyncio.sleep(drop.delay)
            rec.dropped = True
            if request.transport is not None:
                request.transport.abort()  # the answer never reaches the client
            raise ConnectionResetError("fakediscord: response dropped (fault injection)")
        return self._response(status, out, template, extra)

    def _drop_fault(self, rec: RecordedRequest) -> Fault | None:
        for fault in self.faults:
            if not fault.drop_response:
                continue
            if not (_method_matches(fault.method, rec.method) and fault.pattern.match(rec.path)):
                continue
            if fault.times is not None and fault.hits >= fault.times:
                continue
            fault.hits += 1
            return fault
        return None

    async def _handle(
        self,
        request: web.Request,
        rec: RecordedRequest,
        match: tuple[str, dict[str, str], Handler] | None,
        extra: dict[str, str],
    ) -> tuple[int, Any]:
        # faults first: they model Discord/Cloudflare failing before any routing
        for fault in list(self.faults):
            if fault.drop_response:
                continue  # applied after the request took effect (_drop_fault)
            if not (_method_matches(fault.method, rec.method) and fault.pattern.match(rec.path)):
                continue
            if fault.times is not None and fault.hits >= fault.times:
                continue
            fault.hits += 1
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.status:
                extra.update(fault.headers)
                return fault.status, fault.body
        if match is None:
            self.unknown_routes.append(f"{rec.method} {rec.path}")
            log.warning("fakediscord: unknown route %s %s", rec.method, rec.path)
            return 404, {"message": "404: Not Found", "code": 0}
        template, params, fn = match
        auth = request.headers.get("Authorization")
        needs_auth = not (
            template.startswith("/webhooks/{webhook_id}/{token}")
            or template.startswith("/interactions/")
        )
        if (needs_auth and auth is None) or (auth is not None and auth != f"Bot {self.token}"):
            return 401, {"message": "401: Unauthorized", "code": 0}
        if self.ratelimiter is not None:
            verdict = self.ratelimiter.check(
                rec.method, rec.path, template, params, authorized=auth is not None
            )
            if isinstance(verdict, tuple):
                status, body, headers = verdict
                extra.update(headers)
                return status, body
            extra.update(verdict)
        ctx = Ctx(rec.method, rec.path, params, request.query, rec.json, rec.files, request.headers)
        try:
            check_unicode(ctx.body)  # Discord's strings are UTF-8: no lone surrogate anywhere
            out = await fn(ctx)
        except LimitRefused as err:
            self.limit_refusals.append(f"{rec.method} {rec.path}: {json.dumps(err.body)}")
            return err.status, err.body
        except ApiError as err:
            return err.status, err.body
        except Exception:
            tb = traceback.format_exc()
            self.errors.append(f"{rec.method} {rec.path}\n{tb}")
            log.error("fakediscord internal error on %s %s\n%s", rec.method, rec.path, tb)
            # 400, not 500: discord.py would retry a 5xx for ~16 s
            return 400, {"message": "fakediscord internal error (see fake.errors)", "code": 0}
        if isinstance(out, NoContent):
            return 204, None
        return 200, out

    # ------------------------------------------------------------------------------------
    # lookups that raise Discord errors
    # ------------------------------------------------------------------------------------
    def _channel(self, cid: int) -> FakeChannel:
        ch = self.channels.get(cid)
        if ch is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return ch

    def _guild(self, gid: int) -> FakeGuild:
        g = self.guilds.get(gid)
        if g is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return g

    def _message(self, ch: FakeChannel, mid: int) -> FakeMessage:
        m = self.messages.get(mid)
        if m is None or m.deleted or m.channel_id != ch.id:
            raise ApiError(404, 10008, "Unknown Message")
        return m

    # ------------------------------------------------------------------------------------
    # messages
    # ------------------------------------------------------------------------------------
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
                self.users[int(u)] for u in _MENTION.findall(msg.content) if int(u) in self.users
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

    def _register_routes(self) -> None:
        r = self.route

        # -- login / gateway ----------------------------------------------------------------
        @r("GET", "/users/@me")
        async def get_me(ctx: Ctx) -> Any:
            return self.bot_user.to_payload() | {
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            }

        @r("GET", "/oauth2/applications/@me")
        async def get_app(ctx: Ctx) -> Any:
            return P.application(self)

        @r("GET", "/applications/@me")
        async def get_app2(ctx: Ctx) -> Any:
            return P.application(self)

        @r("GET", "/gateway")
        async def get_gateway(ctx: Ctx) -> Any:
            return {"url": self.gateway_url}

        @r("GET", "/gateway/bot")
        async def get_gateway_bot(ctx: Ctx) -> Any:
            return {
                "url": self.gateway_url,
                "shards": self.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }

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

        @r("GET", "/guilds/{guild_id}/webhooks")
        async def guild_webhooks(ctx: Ctx) -> Any:
            gid = self._guild(ctx.int_param("guild_id")).id
            self._require_bot_perms(gid, MANAGE_WEBHOOKS)
            return [self._webhook_payload(w) for w in self.webhooks.values() if w.guild_id == gid]

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

        @r("POST", "/channels/{channel_id}/messages")
        async def post_message(ctx: Ctx) -> Any:
            ch = self._channel(ctx.int_param("channel_id"))
            forum.refuse_message(ch)
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

        forum.register_routes(self)

    # ------------------------------------------------------------------------------------
    # route helpers
    # ------------------------------------------------------------------------------------
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

    def _normalize_command(self, raw: JSON, old: list[JSON], guild_id: int | None) -> JSON:
        validate_command(raw)
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
        out = [self._normalize_command(raw, old, guild_id) for raw in new]
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

    def guild_create_payload(self, guild: FakeGuild) -> JSON:
        return P.guild_create(self, guild)


def _thread_name(body: JSON) -> str:
    name = str(body.get("name") or "")
    if not 1 <= len(name) <= 100:
        raise invalid_form("name", "Must be between 1 and 100 in length.", "BASE_TYPE_BAD_LENGTH")
    return name


__all__ = ["ApiError", "FakeDiscord", "Fault", "NoContent", "path_regex"]


def _check_typed(content: str, *, has_attachments: bool) -> None:
    """What a member sends is what a Discord client lets them type: ValueError otherwise."""
    if not isinstance(content, str):
        raise TypeError(f"fakediscord: content must be a string, not {type(content).__name__}")
    if not content.strip() and not has_attachments:
        raise ValueError("fakediscord: content: empty (Discord sends no empty message)")
    problem = typed_text_problem(content)
    if problem is not None:
        raise ValueError(f"fakediscord: content: {problem}")
