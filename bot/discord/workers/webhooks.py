"""The channel webhooks the poster posts through, on behalf of the commander: one
"duelbot" webhook per channel (threads use their parent's), created on first use, kept in
the database and in memory.

A channel whose webhook is refused (the bot lost Manage Webhooks, a REST proxy without
webhooks, any 4xx other than "unknown webhook") is backed off: no webhook is used there
until the back-off is over (posts go out as the bot meanwhile), then the webhook is tried
again; each refusal in a row doubles the wait, up to an hour, and a post that goes through
resets it. Without this, a cached webhook that Discord refuses was tried on every post.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

import discord

from bot.i18n.context import _
from bot.services.container import Services

log = logging.getLogger(__name__)

WEBHOOK_NAME = "duelbot"
UNKNOWN_WEBHOOK = 10015
FIRST_BACKOFF = 60.0  # seconds without the webhook after a first refusal
MAX_BACKOFF = 3600.0

WebhookParent = discord.TextChannel | discord.ForumChannel | discord.VoiceChannel


USERNAME_MAX = 80
FORBIDDEN_IN_USERNAME = ("discord", "clyde")  # anywhere, in any case (Discord: 50035)
_FORBIDDEN = re.compile("|".join(FORBIDDEN_IN_USERNAME), re.IGNORECASE)


def webhook_username(name: str) -> str:
    """A webhook username Discord accepts: 1-80 characters, no "discord" or "clyde" in any
    case, not "everyone"/"here".

    Each forbidden word is broken with a hyphen until none is left: one pass is not enough
    when matches overlap ("discordiscord" -> "disc-ordiscord" still holds "discord"), so it
    repeats to a fixed point (each pass adds a hyphen inside a match, and a hyphen is in no
    forbidden word, so it ends). Cutting to 80 characters cannot make a new match."""
    text = " ".join(name.split())
    while (match := _FORBIDDEN.search(text)) is not None:
        middle = match.start() + 4  # "disc-ord", "clyd-e"
        text = f"{text[:middle]}-{text[middle:]}"
    if text.casefold() in ("everyone", "here", ""):
        text = f"{text} (commander)".strip()
    text = text[:USERNAME_MAX].strip()
    return text or "commander"


def transient(exc: discord.HTTPException) -> bool:
    """A failure worth retrying the same request for later (the post is retried)."""
    return exc.status >= 500 or exc.status == 429


class ChannelWebhooks:
    def __init__(
        self,
        client: discord.Client,
        services: Services,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.services = services
        self.clock = clock
        self.first_backoff = FIRST_BACKOFF
        self.max_backoff = MAX_BACKOFF
        self._hooks: dict[int, discord.Webhook] = {}
        self._refusals: dict[int, int] = {}  # channel id -> refusals in a row
        self._backed_off_until: dict[int, float] = {}

    def backed_off(self, channel_id: int) -> bool:
        return self._backed_off_until.get(channel_id, 0.0) > self.clock()

    def refused(self, channel_id: int, status: int) -> None:
        """The webhook of this channel (or its creation) was refused: post as the bot there
        for a while."""
        refusals = self._refusals.get(channel_id, 0) + 1
        self._refusals[channel_id] = refusals
        wait = min(self.max_backoff, self.first_backoff * 2 ** (refusals - 1))
        self._backed_off_until[channel_id] = self.clock() + wait
        log.info(
            "Webhook refused in channel %s (HTTP %s, %s in a row): posting as the bot for %.0f s",
            channel_id,
            status,
            refusals,
            wait,
        )

    def worked(self, channel_id: int) -> None:
        self._refusals.pop(channel_id, None)
        self._backed_off_until.pop(channel_id, None)

    async def for_channel(self, parent: WebhookParent) -> discord.Webhook | None:
        """The channel's webhook; None while it is backed off (post as the bot)."""
        if self.backed_off(parent.id):
            return None
        hook = await self.known(parent.id)
        if hook is not None:
            return hook
        try:
            hook = await parent.create_webhook(
                name=WEBHOOK_NAME,
                # Shown in the server's audit log, in the duel's language (the post's).
                reason=_("duelbot posts duel results on behalf of the commander"),
            )
        except discord.HTTPException as exc:
            if transient(exc):
                raise  # the post is retried later
            # Forbidden (no Manage Webhooks), or a REST proxy without webhooks: post as the bot.
            self.refused(parent.id, exc.status)
            return None
        if hook.token is None:  # pragma: no cover - a webhook the bot creates has a token
            return None
        await self.services.outbox.save_webhook(parent.id, hook.id, hook.token)
        self._hooks[parent.id] = hook
        return hook

    async def known(self, channel_id: int) -> discord.Webhook | None:
        """The channel's webhook if one was made (memory, then the database), backed off or
        not; never creates one. Any process finds it: it is kept in the database."""
        hook = self._hooks.get(channel_id)
        if hook is not None:
            return hook
        stored = await self.services.outbox.get_webhook(channel_id)
        if stored is None:
            return None
        hook = discord.Webhook.partial(stored.webhook_id, stored.webhook_token, client=self.client)
        self._hooks[channel_id] = hook
        return hook

    async def forget(self, channel_id: int) -> None:
        """The webhook was deleted (10015): the next post makes a new one."""
        self._hooks.pop(channel_id, None)
        await self.services.outbox.forget_webhook(channel_id)
