"""In-memory state of the fake Discord and the JSON payloads built from it.

Everything here is plain data: no I/O, no asyncio. Payload shapes follow what discord.py 2.7.1
reads (see discord/state.py, message.py, member.py, channel.py, threads.py).
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions)
CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
MANAGE_ROLES = 1 << 28
MANAGE_WEBHOOKS = 1 << 29
USE_APPLICATION_COMMANDS = 1 << 31
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 53) - 1

#: What @everyone gets by default in a fresh guild (a realistic subset).
DEFAULT_EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)

#: What the bot's managed role gets unless the test says otherwise.
DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_EVERYONE_PERMISSIONS
    | MANAGE_WEBHOOKS
    | MANAGE_MESSAGES
    | MANAGE_ROLES
    | MANAGE_CHANNELS
)

# Gateway intents
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Channel types
CHANNEL_TEXT = 0
CHANNEL_DM = 1
CHANNEL_CATEGORY = 4
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = (10, CHANNEL_PUBLIC_THREAD, CHANNEL_PRIVATE_THREAD)

# Message flags
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7


class SnowflakeFactory:
    """Monotonic, realistic snowflakes (timestamp << 22 | worker << 17 | increment)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = 0
        self._inc = itertools.count()

    def __call__(self) -> int:
        with self._lock:
            ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
            value = (ms << 22) | (1 << 17) | (next(self._inc) & 0x1FFFF)
            if value <= self._last:
                value = self._last + 1
            self._last = value
            return value


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def snowflake_time(snowflake: int) -> str:
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat()


@dataclass
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    avatar: str | None = None
    #: The language of the user's Discord client: every interaction they send carries it
    #: as ``locale`` (developers/reference#locales), unless the call names another.
    locale: str = "en-US"

    def to_payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": self.avatar,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "primary_guild": None,
            "collectibles": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    hoist: bool = False
    managed: bool = False
    mentionable: bool = False
    bot_id: int | None = None
    integration_id: int | None = None  # a Twitch/YouTube-style integration's role
    premium_subscriber: bool = False  # the Server Booster role

    def to_payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": self.hoist,
            "managed": self.managed,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        tags: JSON = {}
        if self.bot_id is not None:
            tags["bot_id"] = str(self.bot_id)
        if self.integration_id is not None:
            tags["integration_id"] = str(self.integration_id)
        if self.premium_subscriber:
            tags["premium_subscriber"] = None  # Discord marks it by the key, with null
        if tags:
            data["tags"] = tags
        return data


@dataclass
class FakeMember:
    guild_id: int
    user: FakeUser
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def to_payload(self, *, include_user: bool = True, permissions: int | None = None) -> JSON:
        data: JSON = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if include_user:
            data["user"] = self.user.to_payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class FakeChannel:
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient_ids: list[int] = field(default_factory=list)
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    last_message_id: int | None = None
    message_count: int = 0
    #: Thread members (user ids); unused for other channel types.
    member_ids: list[int] = field(default_factory=list)
    #: Thread type only: the message the thread was started from.
    starter_message_id: int | None = None

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    #: The server's primary language (Server Settings, Community, Overview): the guild's
    #: ``preferred_locale`` and every interaction's ``guild_locale`` from it.
    locale: str = "en-US"

    @property
    def everyone_role(self) -> FakeRole:
        return self.roles[self.id]


@dataclass
class RecordedFile:
    """A file part of a multipart request."""

    field_name: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class FakeMessage:
    id: int
    channel_id: int
    author: FakeUser
    content: str = ""
    guild_id: int | None = None
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[JSON] = field(default_factory=list)
    files: list[RecordedFile] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    webhook_id: int | None = None
    #: Username / avatar_url a webhook execution was posted with (None when not a webhook).
    username: str | None = None
    avatar_url: str | None = None
    application_id: int | None = None
    interaction_id: int | None = None
    message_reference: JSON | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    deleted: bool = False
    thread_id: int | None = None
    reactions: list[str] = field(default_factory=list)
    #: The nonce it was created with (returned in the create response, as on Discord).
    nonce: str | None = None
    #: Every body this message had, oldest first (creation, then each edit).
    history: list[JSON] = field(default_factory=list)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def from_webhook(self) -> bool:
        return self.webhook_id is not None and self.interaction_id is None

    def custom_ids(self) -> list[str]:
        """All custom_ids of the message's components (buttons, selects), in order."""
        found: list[str] = []

        def walk(items: list[JSON]) -> None:
            for item in items:
                if "custom_id" in item:
                    found.append(str(item["custom_id"]))
                walk(item.get("components", []))
                if isinstance(item.get("accessory"), dict):
                    walk([item["accessory"]])

        walk(self.components)
        return found

    def find_component(self, custom_id: str) -> JSON | None:
        def walk(items: list[JSON]) -> JSON | None:
            for item in items:
                if item.get("custom_id") == custom_id:
                    return item
                inner = walk(item.get("components", []))
                if inner is not None:
                    return inner
                acc = item.get("accessory")
                if isinstance(acc, dict) and acc.get("custom_id") == custom_id:
                    return acc
            return None

        return walk(self.components)


@dataclass
class FakeWebhook:
    id: int
    channel_id: int
    guild_id: int | None
    name: str
    token: str
    avatar: str | None = None
    creator_id: int | None = None
    application_id: int | None = None

    def to_payload(self, creator: FakeUser | None, *, with_token: bool = True) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "type": 1,
            "guild_id": str(self.guild_id) if self.guild_id else None,
            "channel_id": str(self.channel_id),
            "name": self.name,
            "avatar": self.avatar,
            "application_id": str(self.application_id) if self.application_id else None,
        }
        if with_token:
            data["token"] = self.token
        if creator is not None:
            data["user"] = creator.to_payload()
        return data


@dataclass
class RecordedRequest:
    """One REST request the client made, as the fake received it."""

    method: str
    path: str
    route: str | None
    query: dict[str, str]
    headers: dict[str, str]
    json: Any
    files: list[RecordedFile]
    status: int = 0
    response: Any = None
    at: float = field(default_factory=time.monotonic)
    #: The request took effect but its answer was cut off (``drop_response_next``).
    dropped: bool = False

    @property
    def body(self) -> Any:
        """The JSON body, or the parsed payload_json of a multipart body."""
        return self.json

    def __repr__(self) -> str:
        return f"<RecordedRequest {self.method} {self.path} -> {self.status}>"
