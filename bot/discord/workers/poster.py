"""The outbox poster.

It claims due outbox posts (a lease, so several bot processes never take the same
one), delivers each, and marks it posted, failed (retried with backoff) or "DM closed".
Delivery is by target: bot/discord/workers/channel_posts.py posts in a duel's channel
(through the channel's webhook on behalf of the commander, or as the bot);
bot/discord/workers/dm_posts.py sends DMs and disables the move buttons of a round that has
closed (a ``buttons_closed`` edit).

Posting twice is guarded without the MESSAGE_CONTENT intent (which the bot does not have):
bot messages carry ``nonce=duelbot:<post id>`` with ``enforce_nonce`` (Discord answers a
repeated send within a few minutes with the first message), and every embed carries the
marker ``duelbot post #<id>``. A post being tried again (attempts > 1: an earlier attempt may
have landed before a timeout, a lost response or a crash) is first looked for in the
channel's recent messages (bot/discord/workers/post_support.py, ``already_posted``).

A DM refused with 403, whatever its code (50007 the user's DMs are closed, 50278 no mutual
server, ...), is "DMs closed": marked once, and the duel's channel is told once. A thread or
forum post that is gone (404 10003/10008) has its post re-sent where the commander sees it.
The loop logs and carries on after any error, including the database being unavailable.
Nothing here opens a database transaction: the services own theirs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import Awaitable
from datetime import timedelta
from functools import partial
from typing import Any, Literal

import aiohttp
import discord
from discord.ext import commands

from bot.discord import pacing
from bot.discord.client import DuelBot
from bot.discord.languages import post_language
from bot.discord.workers.channel_posts import ChannelPosts
from bot.discord.workers.dm_posts import DmPosts, PromptInFlight
from bot.discord.workers.forum_posts import ForumPosts
from bot.discord.workers.loops import guarded, sleep_until_woken, stop_worker
from bot.discord.workers.post_support import HOME_GONE, PostSkipped
from bot.discord.workers.webhooks import WEBHOOK_NAME, ChannelWebhooks
from bot.i18n.context import speaking
from bot.services.messages import ButtonsClosed, MessageFormatError
from bot.services.views import OutboxItem

log = logging.getLogger(__name__)

BATCH = 10
PARALLEL = 8  # posts to different targets delivered at once (one target: in order)
POST_TIMEOUT = 60.0  # seconds for one post, discord.py's own 429/5xx retries included
LEASE = timedelta(seconds=BATCH * POST_TIMEOUT + 60)

Outcome = Literal["retry", "permanent", "dm_closed"]


def classify(exc: BaseException, post: OutboxItem) -> Outcome:
    """What a failed attempt means: retry later, give up, or a DM that cannot be delivered."""
    if isinstance(exc, discord.Forbidden):
        # Any 403 on a DM means the user cannot get it (50007 DMs closed, 50278 no mutual
        # server, ...): retrying changes nothing, the channel is told instead.
        # An edit (buttons_closed) is no new DM: nothing to tell the channel.
        dm = post.target == "user" and post.kind != ButtonsClosed.KIND
        return "dm_closed" if dm else "permanent"
    if isinstance(exc, discord.NotFound):
        return "permanent"
    if isinstance(exc, discord.HTTPException):
        if exc.status >= 500 or exc.status == 429:
            return "retry"
        return "permanent"  # 400s: the request itself is wrong; repeating it will not help
    if isinstance(exc, MessageFormatError):
        return "permanent"  # a payload this version cannot read (logged as an error)
    return "retry"  # timeouts, connection errors, rate limits, the database, anything else


def home_gone(exc: BaseException, post: OutboxItem) -> bool:
    """A duel's channel post refused because its thread or forum post no longer exists."""
    return (
        post.target == "channel"
        and post.duel_id is not None
        and isinstance(exc, discord.NotFound)
        and exc.code in HOME_GONE
    )


class Poster(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self.services = bot.services
        self.settings = bot.settings
        self.worker_id = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"
        self.webhooks = ChannelWebhooks(bot, bot.services)
        self.forum_posts = ForumPosts(bot)
        self.channels = ChannelPosts(bot, self.webhooks, self.forum_posts)
        self.dms = DmPosts(bot)
        self._task: asyncio.Task[None] | None = None
        self.outbox_wakeup = bot.outbox_wakeup

    # -- lifecycle ------------------------------------------------------------------------

    async def cog_load(self) -> None:
        self._task = asyncio.create_task(self._outbox_loop(), name="duelbot-outbox")

    async def cog_unload(self) -> None:
        task, self._task = self._task, None
        await stop_worker(task)

    # -- the loop -------------------------------------------------------------------------

    async def _outbox_loop(self) -> None:
        pacing.BULK.set(True)  # this task's REST requests yield to interactive ones
        await self.bot.wait_until_ready()
        woken = True  # at the start: claim at once (what an earlier run left, dead claims)
        while not self.bot.is_closed():
            self.outbox_wakeup.clear()
            pause = await guarded("outbox", partial(self.drain_once, look_first=not woken))
            if pause > 0:
                await sleep_until_woken(self.outbox_wakeup, pause)
            # woken by a commit that queued posts, or more may be waiting: claim; a poll
            # that only timed out looks first (a read) and claims only if something is due
            woken = pause == 0 or self.outbox_wakeup.is_set()

    # -- claiming and marking -------------------------------------------------------------

    async def drain_once(self, *, look_first: bool = False) -> float:
        """Claim and post one batch; returns how long to sleep (0: more may be waiting).
        ``look_first``: claim only if a post is due (``OutboxService.any_due``, a read)."""
        if look_first and not await self.services.outbox.any_due():
            return self.settings.workers.outbox_poll_seconds
        posts = await self.services.outbox.claim(self.worker_id, limit=BATCH, lease=LEASE)
        # Posts to one target (a channel, a user) go out in order; different targets at once,
        # so a batch costs about its slowest target rather than the sum of its round trips.
        groups: dict[tuple[str, int], list[OutboxItem]] = {}
        for post in posts:
            groups.setdefault((post.target, post.target_id), []).append(post)
        done: set[int] = set()
        gate = asyncio.Semaphore(PARALLEL)

        async def run(group: list[OutboxItem]) -> None:
            async with gate:
                for post in group:
                    await self.deliver(post)
                    done.add(post.id)

        try:
            await asyncio.gather(*(run(group) for group in groups.values()))
        except asyncio.CancelledError:
            await self._release([p for p in posts if p.id not in done])
            raise
        return 0.0 if len(posts) == BATCH else self.settings.workers.outbox_poll_seconds

    async def _release(self, posts: list[OutboxItem]) -> None:
        """On shutdown, hand unfinished claims back instead of holding them for the lease."""
        for post in posts:
            try:
                await asyncio.wait_for(
                    self.services.outbox.mark_failed(
                        post.id, "interrupted by shutdown"  # i18n: not shown
                    ),
                    5,
                )
            except Exception:  # best effort: the lease runs out anyway
                return

    async def deliver(self, post: OutboxItem) -> None:
        # Every text of the post in the language chosen when it was queued: the duel's for a
        # channel post, the member's for a DM (its re-sent copy and notes included).
        with speaking(post_language(post)):
            await self._deliver(post)

    async def _deliver(self, post: OutboxItem) -> None:
        try:
            message_id = await asyncio.wait_for(self._post(post), timeout=POST_TIMEOUT)
        except asyncio.CancelledError:
            raise
        except PostSkipped as skipped:
            log.info("Outbox post %s (%s) skipped: %s", post.id, post.kind, skipped)
            await self._mark(self.services.outbox.mark_posted(post.id, None))
            return
        except Exception as exc:
            await self._failed(post, exc)
            return
        await self._mark(self.services.outbox.mark_posted(post.id, message_id))

    async def _mark(self, call: Awaitable[Any]) -> Any:
        try:
            return await call
        except asyncio.CancelledError:
            raise
        except Exception:
            # The lease runs out and the post is tried again; the marker check then finds
            # what was already posted.
            log.exception("Could not record an outbox result")
            return None

    async def _failed(self, post: OutboxItem, exc: BaseException) -> None:
        if home_gone(exc, post) and await self._reroute(post, exc):
            return
        outcome = classify(exc, post)
        error = f"{type(exc).__name__}: {exc}"[:500]
        if outcome == "dm_closed":
            log.info("User %s cannot receive DMs (outbox post %s)", post.target_id, post.id)
            await self._mark(self.services.outbox.mark_dm_closed(post.id))
            return
        permanent = outcome == "permanent"
        if isinstance(exc, MessageFormatError):
            # Written by another duelbot version, or damaged: never posted; say so loudly.
            log.error("Outbox post %s (%s) cannot be read: %s", post.id, post.kind, exc)
        expected = (
            discord.HTTPException | TimeoutError | OSError | aiohttp.ClientError | PromptInFlight
        )
        if permanent or not isinstance(exc, expected):
            log.warning(
                "Outbox post %s (%s to %s %s) failed: %s",
                post.id,
                post.kind,
                post.target,
                post.target_id,
                error,
                exc_info=exc if not isinstance(exc, discord.HTTPException) else None,
            )
        else:
            log.info("Outbox post %s (%s) will be retried: %s", post.id, post.kind, error)
        retried = await self._mark(
            self.services.outbox.mark_failed(post.id, error, permanent=permanent)
        )
        if retried is False and not permanent:
            log.warning(
                "Outbox post %s (%s) gave up after %s attempts", post.id, post.kind, post.attempts
            )

    async def _reroute(self, post: OutboxItem, exc: BaseException) -> bool:
        """The duel's thread or forum post is gone: the post is queued again in the channel
        the duel was started from (when it is a channel that takes messages) or the
        commander's DM, and the duel's audit says so. False: not done (retried as usual)."""
        error = f"{type(exc).__name__}: {exc}"[:500]
        try:
            fallback = await self._fallback_channel(post)
            where = await self.services.outbox.reroute(post.id, error, channel_id=fallback)
        except asyncio.CancelledError:
            raise
        except Exception:
            # Not re-sent yet (the database, a lookup): tried again later, never given up.
            log.exception("Cannot re-send outbox post %s elsewhere; retried", post.id)
            await self._mark(self.services.outbox.mark_failed(post.id, error))
            return True
        log.warning(
            "Outbox post %s (%s) of duel #%s: its thread or post is gone (%s); re-sent to %s",
            post.id,
            post.kind,
            post.duel_id,
            error,
            where or "nowhere",
        )
        return where is not None

    async def _fallback_channel(self, post: OutboxItem) -> int | None:
        """The duel's own channel when it takes messages and is not what failed: a text
        channel the duel was started from (a forum takes no messages; a thread may be the
        very thing that is gone)."""
        if post.duel_id is None:
            return None
        duel = await self.services.duels.get_duel(post.duel_id)
        if duel.channel_id == post.target_id or duel.channel_id == duel.thread_id:
            return None
        try:
            channel = await self.channels.channel(duel.channel_id)
        except discord.HTTPException:
            return None
        if isinstance(channel, discord.TextChannel | discord.VoiceChannel):
            return int(channel.id)
        return None

    async def _post(self, post: OutboxItem) -> int | None:
        if post.kind == ButtonsClosed.KIND and isinstance(post.message, ButtonsClosed):
            return await self.dms.close_buttons(post, post.message)
        if post.target == "user":
            message_id = await self.dms.post(post)
            # Their DM replies speak it too, while they have not used the bot themselves.
            self.bot.member_languages.sent_dm(post.target_id, post_language(post))
            return message_id
        return await self.channels.post(post)


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Poster(bot))


__all__ = ["WEBHOOK_NAME", "Poster", "classify", "setup"]
