"""A protocol-level fake Discord (REST + gateway) for driving the real discord.py client.

See docs/standin.md. The tests import it as ``tests.fakediscord`` (a shim).
"""

from .errors import ApiError
from .interactions import InteractionHandle, InteractionRecord, InteractionReply
from .models import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    MANAGE_GUILD,
    MANAGE_ROLES,
    MANAGE_WEBHOOKS,
    SEND_MESSAGES,
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
)
from .options import Attachment
from .ratelimits import RateLimitHit, RateLimits
from .runner import patch_discord, run_bot
from .server import FakeDiscord, Fault

__all__ = [
    "ADMINISTRATOR",
    "ALL_PERMISSIONS",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_EVERYONE_PERMISSIONS",
    "MANAGE_GUILD",
    "MANAGE_ROLES",
    "MANAGE_WEBHOOKS",
    "SEND_MESSAGES",
    "VIEW_CHANNEL",
    "ApiError",
    "Attachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "FakeWebhook",
    "Fault",
    "InteractionHandle",
    "InteractionRecord",
    "InteractionReply",
    "RateLimitHit",
    "RateLimits",
    "RecordedFile",
    "RecordedRequest",
    "patch_discord",
    "run_bot",
]
