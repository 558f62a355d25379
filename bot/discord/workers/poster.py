"""The outbox poster.

It claims due outbox posts (a lease, so several bot processes never take the same
one), posts each, and marks it posted, failed (retried with backoff) or "DM closed". Posts
for a duel's channel go out on behalf of the commander: through the channel's "duelbot"
webhook under the commander's display name and avatar or, where the bot may not manage
webhooks (or while its webhook is backed off, bot/discord/workers/webhooks.py), as a bot
embed saying "on behalf of ...".

Posting twice is guarded without the MESSAGE_CONTENT intent (which the bot does not have):
bot messages carry ``nonce=duelbot:<post id>`` with ``enforce_nonce`` (Discord answers a
repeated send within a few minutes with the first message), and every embed carries the
marker ``duelbot post #<id>``. A post being tried again (attempts > 1: an earlier attempt may
have landed before a timeout, a lost response or a crash) is first looked for in the
channel's recent messages: the bot's own messages are checked as read, and the messages of
the channel's webhook, which a bot-token read returns blank, are read again through the
webhook's own token (see ``_already_posted``).

A DM refused with 403, whatever its code (50007 the user's DMs are closed, 50278 no mutual
server, ...), is "DMs closed": marked once, and the duel's channel is told once. The loop
logs and carries on after any error, including the database being unavailable. Nothing
here opens a database transaction: the services own theirs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from collections import OrderedDict
from collections.abc import Awaitable
from datetime import timedelta
from typing import Any, Literal

import aiohttp
import discord
from discord.ext import commands

from bot.discord import pacing
from bot.discord.client import ALLOWED_MENTIONS, DuelBot
from bot.discord.intake_buttons import MoveButton
from bot.discord.workers.forum_posts import ForumPosts
from bot.discord.workers.loops import guarded, sleep_until_woken
from bot.discord.workers.webhooks import (
    UNKNOWN_WEBHOOK,
    WEBHOOK_NAME,
    ChannelWebhooks,
    transient,
    webhook_username,
)
from bot.presentation.discord_posts import dm_buttons, marker_ids, render_message, thread_name
from bot.services.messages import (
    DirectMessage,
    DuelStart,
    MessageFormatError,
    PrivateNote,
    Reminder,
    RoundPrompt,
)
from bot.services.outbox import REROUTED_CHANNEL, REROUTED_DM
from bot.services.views import OutboxItem

log = logging.getLogger(__name__)

BATCH = 10
PARALLEL = 8  # posts to different targets delivered at once (one target: in order)
POST_TIMEOUT = 60.0  # seconds for one post, discord.py's own 429/5xx retries included
LEASE = timedelta(seconds=BATCH * POST_TIMEOUT + 60)
DM_CHANNELS_KEPT = 20_000  # user id -> DM channel id, to skip POST /users/@me/channels
HISTORY_LIMIT = 50
NAME_TTL = 300.0  # seconds a commander's display name and avatar are reused
FALLBACK_NAME = "DDA Commander"
THREAD_ALREADY_EXISTS = 160004
#: Discord's 404 codes for a channel post whose thread or forum post was deleted: Unknown
#: Channel, Unknown Message. Retrying never helps; the post goes where the commander sees it.
HOME_GONE = (10003, 10008)
HOME_GONE_NOTE = (
    "The thread or forum post of duel #{duel_id} is gone, so this is posted here instead."
)

Outcome = Literal["retry", "permanent", "dm_closed"]
Channel = discord.abc.Messageable


class PostSkipped(Exception):
    """The post no longer applies (e.g. a reminder for a round that has closed)."""


def classify(exc: BaseException, post: OutboxItem) -> Outcome:
    """What a failed attempt means: retry later, give up, or a DM that cannot be delivered."""
    if isinstance(exc, discord.Forbidden):
        # Any 403 on a DM means the user cannot get it (50007 DMs closed, 50278 no mutual
        # server, ...): retrying changes nothing, the channel is told instead.
        return "dm_closed" if post.target == "user" else "permanent"
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


def with_home_gone_note(content: str | None, post: OutboxItem) -> str | None:
    """A re-sent post says why it is here (its dedupe key carries the reroute suffix)."""
    if post.duel_id is None or not post.dedupe_key.endswith((REROUTED_CHANNEL, REROUTED_DM)):
        return content
    note = HOME_GONE_NOTE.format(duel_id=post.duel_id)
    return note if not content else f"{note}\n{content}"


def carries(message: discord.Message, post: OutboxItem) -> bool:
    """Whether a message carries the ``duelbot post #<id>`` marker of this post."""
    return any(post.id in marker_ids(embed.footer.text) for embed in message.embeds)


def nonce(post: OutboxItem) -> str:
    """The message nonce of a post (<= 25 characters). discord.py 2.7 sends every nonce with
    ``enforce_nonce: true``, so Discord answers a repeated send with the first message."""
    return f"duelbot:{post.id}"


class Poster(commands.Cog):
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self.services = bot.services
        self.settings = bot.settings
        self.worker_id = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"
        self.webhooks = ChannelWebhooks(bot, bot.services)
        self.forum_posts = ForumPosts(bot)
        self._task: asyncio.Task[None] | None = None
        self._names: dict[tuple[int, int], tuple[float, str, str | None]] = {}
        self._dm_channels: OrderedDict[int, int] = OrderedDict()
        self.outbox_wakeup = bot.outbox_wakeup

    # -- lifecycle ------------------------------------------------------------------------

    async def cog_load(self) -> None:
        self._task = asyncio.create_task(self._outbox_loop(), name="duelbot-outbox")

    async def cog_unload(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    # -- the loop -------------------------------------------------------------------------

    async def _outbox_loop(self) -> None:
        pacing.BULK.set(True)  # this task's REST requests yield to interactive ones
        await self.bot.wait_until_ready()
        while not self.bot.is_closed():
            self.outbox_wakeup.clear()
            pause = await guarded("outbox", self.drain_once)
            if pause > 0:
                await sleep_until_woken(self.outbox_wakeup, pause)

    # -- claiming and marking -------------------------------------------------------------

    async def drain_once(self) -> float:
        """Claim and post one batch; returns how long to sleep (0: more may be waiting)."""
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
                    self.services.outbox.mark_failed(post.id, "interrupted by shutdown"), 5
                )
            except Exception:  # best effort: the lease runs out anyway
                return

    async def deliver(self, post: OutboxItem) -> None:
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
        expected = discord.HTTPException | TimeoutError | OSError | aiohttp.ClientError
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
            channel = await self._channel(duel.channel_id)
        except discord.HTTPException:
            return None
        if isinstance(channel, discord.TextChannel | discord.VoiceChannel):
            return int(channel.id)
        return None

    async def _post(self, post: OutboxItem) -> int | None:
        if post.target == "user":
            return await self._post_dm(post)
        return await self._post_channel(post)

    # -- finding what an earlier attempt posted -------------------------------------------

    async def _already_posted(
        self,
        channel: Channel,
        post: OutboxItem,
        *,
        hook: discord.Webhook | None = None,
        thread: discord.Thread | None = None,
    ) -> int | None:
        """The id of the message an earlier attempt of this post left in the channel, if any.

        The bot has no MESSAGE_CONTENT intent: a bot-token read of channel history shows the
        content and embeds of the bot's own messages only; a webhook's messages come back
        blank (whether an app's own webhook is exempt is not reliable). So the history is
        read for what it shows reliably (author and webhook id): the bot's own messages are
        checked for the marker there, and the messages of the channel's webhook are each
        read again through the webhook's own token (GET /webhooks/{id}/{token}/messages/
        {message_id}), which returns them in full. Newest first."""
        me = self.bot.user
        candidates: list[int] = []
        try:
            async for message in channel.history(limit=HISTORY_LIMIT):
                if message.webhook_id is None:
                    if me is not None and message.author.id == me.id and carries(message, post):
                        return int(message.id)
                elif hook is not None and message.webhook_id == hook.id:
                    candidates.append(message.id)
        except discord.HTTPException as exc:
            if transient(exc):
                raise  # cannot tell now: the post is retried later rather than posted twice
            log.warning(
                "Cannot read the history of channel %s to check post %s", post.target_id, post.id
            )
            return None
        for message_id in candidates:
            if hook is None:  # pragma: no cover - candidates exist only with a webhook
                break
            try:
                if thread is not None:
                    full = await hook.fetch_message(message_id, thread=thread)
                else:
                    full = await hook.fetch_message(message_id)
            except discord.NotFound:
                continue  # deleted meanwhile, or the webhook was replaced
            except discord.HTTPException as exc:
                if transient(exc):
                    raise
                log.warning(
                    "Cannot read message %s through the webhook of channel %s (post %s)",
                    message_id,
                    post.target_id,
                    post.id,
                )
                return None
            if carries(full, post):
                return int(full.id)
        return None

    # -- direct messages ------------------------------------------------------------------

    async def _still_relevant(self, post: OutboxItem) -> None:
        """Skip prompts for a round that has closed, and reminders to who has moved since.
        A private note is about a step that has closed: it always goes out."""
        message = post.message
        if not isinstance(message, DirectMessage) or isinstance(message, PrivateNote):
            return
        status = await self.services.duels.round_status(message.duel_id)
        if not status.is_open or status.round_no != message.round_no:
            raise PostSkipped(f"round {message.round_no} of duel #{message.duel_id} is not open")
        if isinstance(message, Reminder) and status.submitted.get(message.side):
            raise PostSkipped("the duellist has moved")

    async def _post_dm(self, post: OutboxItem) -> int | None:
        await self._still_relevant(post)
        channel = await self._dm_channel(post.target_id)
        if post.attempts > 1:
            found = await self._already_posted(channel, post)
            if found is not None:
                return found
        prompt = post.message
        rendered = render_message(prompt, post_id=post.id)
        view = discord.ui.View(timeout=None)
        if isinstance(prompt, RoundPrompt | Reminder):
            for move_id, label in dm_buttons(prompt.moves):
                view.add_item(MoveButton(prompt.duel_id, prompt.round_no, move_id, label))
        message = await channel.send(
            content=with_home_gone_note(rendered.content, post),
            embeds=rendered.embeds,
            view=view,
            nonce=nonce(post),
        )
        return int(message.id)

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        """The DM channel with a user. Its id never changes, so it is remembered: a later DM
        costs one request instead of two (discord.py keeps only 128 DM channels)."""
        channel_id = self._dm_channels.get(user_id)
        if channel_id is not None:
            self._dm_channels.move_to_end(user_id)
            return self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)
        channel = await self.bot.create_dm(discord.Object(id=user_id))
        self._dm_channels[user_id] = channel.id
        if len(self._dm_channels) > DM_CHANNELS_KEPT:
            self._dm_channels.popitem(last=False)
        return channel

    # -- channel posts --------------------------------------------------------------------

    async def _channel(
        self, channel_id: int
    ) -> discord.abc.GuildChannel | discord.Thread | discord.PartialMessageable:
        """The channel to post in. When it cannot be looked up (not cached, and the REST
        lookup is refused, e.g. by a proxy without that route), a partial channel still lets
        the post go out as the bot."""
        channel = self.bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.bot.fetch_channel(channel_id)
            except discord.HTTPException as exc:
                if exc.status >= 500 or exc.status == 429:
                    raise
                return self.bot.get_partial_messageable(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            raise discord.ClientException(f"channel {channel_id} is not a server channel")
        return channel

    async def _post_channel(self, post: OutboxItem) -> int:
        channel = await self._channel(post.target_id)
        if isinstance(channel, discord.ForumChannel):
            # A duel in the duel forum: its card makes its post, the rest go to that post.
            if isinstance(post.message, DuelStart):
                behalf = None
                if post.on_behalf_of is not None and post.guild_id is not None:
                    behalf, _ = await self._display(post.guild_id, post.on_behalf_of)
                return await self.forum_posts.start(channel, post, post.message, behalf)
            channel = await self._channel(await self.forum_posts.post_of(post))
        if not isinstance(channel, discord.abc.Messageable):
            raise discord.ClientException(f"cannot post in channel {post.target_id}")
        message_id: int | None = None
        if post.attempts > 1:
            message_id = await self._find_earlier(channel, post)
        if message_id is None:
            if post.kind == "dm_closed" or post.on_behalf_of is None or post.guild_id is None:
                # The bot's own notice, not the commander's words.
                message_id = await self._send_as_bot(channel, post, behalf=None)
            else:
                name, avatar = await self._display(post.guild_id, post.on_behalf_of)
                if not isinstance(channel, discord.PartialMessageable):
                    message_id = await self._send_via_webhook(channel, post, name, avatar)
                if message_id is None:
                    message_id = await self._send_as_bot(channel, post, behalf=name)
        start = post.message
        if (
            isinstance(start, DuelStart)
            and start.make_thread
            and not isinstance(channel, discord.PartialMessageable)
        ):
            await self._start_thread(channel, message_id, start)
        if isinstance(channel, discord.Thread):
            await self.forum_posts.follow_state(channel, post)  # "open"/"ended" tags
        return message_id

    async def _find_earlier(
        self, channel: discord.abc.Messageable, post: OutboxItem
    ) -> int | None:
        """What an earlier attempt of a channel post left there: as the bot, or through the
        channel's webhook (a thread's posts go through its parent's)."""
        hook: discord.Webhook | None = None
        thread = channel if isinstance(channel, discord.Thread) else None
        parent_id = thread.parent_id if thread is not None else getattr(channel, "id", None)
        if isinstance(channel, discord.abc.GuildChannel | discord.Thread) and parent_id:
            hook = await self.webhooks.known(parent_id)
        return await self._already_posted(channel, post, hook=hook, thread=thread)

    async def _send_as_bot(
        self, channel: discord.abc.Messageable, post: OutboxItem, *, behalf: str | None
    ) -> int:
        rendered = render_message(
            post.message,
            post_id=post.id,
            behalf=behalf,
            archive_base_url=self.settings.archive.base_url,
        )
        message = await channel.send(
            content=with_home_gone_note(rendered.content, post),
            embeds=rendered.embeds,
            nonce=nonce(post),
            allowed_mentions=ALLOWED_MENTIONS,
        )
        return int(message.id)

    async def _send_via_webhook(
        self,
        channel: discord.abc.GuildChannel | discord.Thread,
        post: OutboxItem,
        name: str,
        avatar: str | None,
    ) -> int | None:
        """Post through the channel's webhook; None when the bot may not manage webhooks."""
        thread = channel if isinstance(channel, discord.Thread) else None
        parent = await self._parent(channel) if thread is not None else channel
        if not isinstance(
            parent, discord.TextChannel | discord.ForumChannel | discord.VoiceChannel
        ):
            return None
        rendered = render_message(
            post.message, post_id=post.id, archive_base_url=self.settings.archive.base_url
        )
        kwargs: dict[str, Any] = {
            "embeds": rendered.embeds,
            "username": webhook_username(name),
            "allowed_mentions": ALLOWED_MENTIONS,
            "wait": True,
        }
        content = with_home_gone_note(rendered.content, post)
        if content:
            kwargs["content"] = content
        if avatar:
            kwargs["avatar_url"] = avatar
        if thread is not None:
            kwargs["thread"] = thread
        for _ in range(2):
            hook = await self.webhooks.for_channel(parent)
            if hook is None:
                return None
            try:
                message = await hook.send(**kwargs)
            except discord.HTTPException as exc:
                if transient(exc):
                    raise  # retried later, with the marker check first
                if isinstance(exc, discord.NotFound) and exc.code in HOME_GONE:
                    raise  # the thread is gone, not the webhook: the post is re-sent elsewhere
                if isinstance(exc, discord.NotFound) and exc.code == UNKNOWN_WEBHOOK:
                    log.info("The webhook of channel %s was deleted; making a new one", parent.id)
                    await self.webhooks.forget(parent.id)
                    continue
                # Any other refusal of the webhook: the post still goes out, as the bot, and
                # the webhook rests (backed off) before it is tried again.
                self.webhooks.refused(parent.id, exc.status)
                return None
            self.webhooks.worked(parent.id)
            return int(message.id)
        return None

    async def _parent(self, thread: discord.abc.GuildChannel | discord.Thread) -> object:
        """A thread's channel. A process that does not hold the server's shard has not
        cached it: it is fetched, so that process too posts through the channel's webhook."""
        parent = getattr(thread, "parent", None)
        parent_id = getattr(thread, "parent_id", None)
        if parent is None and parent_id is not None:
            try:
                parent = await self.bot.fetch_channel(parent_id)
            except discord.HTTPException as exc:
                if transient(exc):
                    raise
                return None
        return parent

    async def _display(self, guild_id: int, user_id: int) -> tuple[str, str | None]:
        """The commander's display name and avatar in that server (cached briefly)."""
        key = (guild_id, user_id)
        cached = self._names.get(key)
        now = time.monotonic()
        if cached is not None and cached[0] > now:
            return cached[1], cached[2]
        name: str = FALLBACK_NAME
        avatar: str | None = None
        try:
            guild = self.bot.get_guild(guild_id) or await self.bot.fetch_guild(guild_id)
            member = await guild.fetch_member(user_id)
            name, avatar = member.display_name, member.display_avatar.url
        except discord.HTTPException:
            try:
                user = await self.bot.fetch_user(user_id)
                name, avatar = user.display_name, user.display_avatar.url
            except discord.HTTPException:
                pass  # the post still goes out, under a generic name
        self._names[key] = (now + NAME_TTL, name, avatar)
        if len(self._names) > 1000:
            self._names = {k: v for k, v in self._names.items() if v[0] > now}
        return name, avatar

    async def _start_thread(
        self, channel: discord.abc.GuildChannel | discord.Thread, message_id: int, start: DuelStart
    ) -> None:
        """config thread_per_duel: a public thread from the start card; the duel's posts go
        there from now on."""
        if not isinstance(channel, discord.TextChannel):
            return
        duel_id = start.duel_id
        try:
            thread = await channel.create_thread(
                name=thread_name(start),
                message=discord.Object(id=message_id),
                auto_archive_duration=10080,
                reason=f"duelbot: duel #{duel_id}",
            )
            thread_id = thread.id
        except discord.HTTPException as exc:
            if exc.code == THREAD_ALREADY_EXISTS:
                thread_id = message_id  # a thread started from a message shares its id
            elif isinstance(exc, discord.Forbidden):
                log.warning(
                    "Cannot create a thread for duel #%s in channel %s (missing permission); "
                    "its posts stay in the channel",
                    duel_id,
                    channel.id,
                )
                return
            else:
                raise
        await self.services.duels.attach_thread(duel_id=duel_id, thread_id=thread_id)


async def setup(bot: DuelBot) -> None:
    await bot.add_cog(Poster(bot))


__all__ = ["WEBHOOK_NAME", "Poster", "classify", "setup"]
