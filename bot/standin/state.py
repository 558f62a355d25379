"""The stand-in's shared state (StandinState): its configuration, the in-memory Discord
(users, guilds, channels, messages, webhooks, commands, interactions), the request record, the
route table, and the lookups and permission checks every resource module needs.

The resource modules are a chain of mixins over this class, each importing only the ones
below it (docs/standin.md, "Module map"); server.py's FakeDiscord is the top of the chain."""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import ApiError
from .forum_model import ForumState
from .interactions import InteractionRecord, wait_until
from .localizations import check_locale
from .models import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    CHANNEL_TEXT,
    JSON,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    FakeWebhook,
    RecordedFile,
    RecordedRequest,
    SnowflakeFactory,
)
from .ratelimits import RateLimiter
from .routing import Fault, Handler, method_matches, path_regex


class StandinState:
    """The data every resource mixin reads and writes; built by FakeDiscord.__init__."""

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
        self.forums = ForumState()
        #: Opt-in enforcement of Discord's rate limits (see ratelimits.py); None: off.
        self.ratelimiter: RateLimiter | None = None
        #: (method, path regex, template, handler), matched in registration order.
        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self.host = "127.0.0.1"
        self.port = 0

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

    def add_user(
        self,
        username: str,
        *,
        id: int | None = None,
        bot: bool = False,
        global_name: str | None = None,
        locale: str = "en-US",
    ) -> FakeUser:
        """A user; ``locale`` is their Discord client's language (the ``locale`` of their
        interactions; ``set_user_locale`` changes it later)."""
        check_locale(locale)
        user = FakeUser(
            id=id or self.snowflake(),
            username=username,
            bot=bot,
            global_name=global_name,
            locale=locale,
        )
        self.users[user.id] = user
        return user

    # Here rather than in channels.py: forum.py (below the channel layer) builds forums on it.
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

    def requests_to(self, method: str, path: str) -> list[RecordedRequest]:
        """Recorded requests; ``path`` is exact ("/users/@me"), a template
        ("/channels/{channel_id}/messages") or uses * for one segment. method "*" = any."""
        rx = path_regex(path)
        return [r for r in self.requests if method_matches(method, r.method) and rx.match(r.path)]

    async def wait_for_requests(
        self, method: str, path: str, count: int = 1, timeout: float = 5.0
    ) -> list[RecordedRequest]:
        def check() -> list[RecordedRequest] | None:
            found = [r for r in self.requests_to(method, path) if r.status]
            return found if len(found) >= count else None

        return await wait_until(check, timeout, lambda: f"{count} x {method} {path}")

    # Each resource mixin registers its handlers here (its _register_*_routes method).
    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self._routes.append((method, path_regex(template), template, fn))
            return fn

        return deco

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
