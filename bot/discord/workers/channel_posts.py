"""Posts in a duel's channel, thread or forum post (the poster's channel path): on behalf of
the commander through the channel's "duelbot" webhook under their display name and avatar
or, where the bot may not manage webhooks (or while its webhook is backed off,
bot/discord/workers/webhooks.py), as a bot embed saying "on behalf of ..."; a duel's card
starts its thread (config thread_per_duel) or its forum post."""

from __future__ import annotations

import logging
import time
from typing import Any

import discord

from bot.config import Settings
from bot.discord.client import ALLOWED_MENTIONS, DuelBot
from bot.discord.workers.forum_posts import ForumPosts
from bot.discord.workers.post_support import HOME_GONE, already_posted, nonce, with_home_gone_note
from bot.discord.workers.webhooks import (
    UNKNOWN_WEBHOOK,
    ChannelWebhooks,
    transient,
    webhook_username,
)
from bot.i18n.context import _
from bot.i18n.translate import N_
from bot.presentation.discord_posts import render_message, thread_name
from bot.services.messages import DuelStart, OutboxMessage
from bot.services.views import OutboxItem

log = logging.getLogger("bot.discord.workers.poster")

NAME_TTL = 300.0  # seconds a commander's display name and avatar are reused
#: The name a post goes out under when the commander's cannot be looked up.
FALLBACK_NAME = N_("DDA Commander")
THREAD_ALREADY_EXISTS = 160004


class ChannelPosts:
    """Delivers one channel post; the poster claims, marks and retries."""

    def __init__(self, bot: DuelBot, webhooks: ChannelWebhooks, forum_posts: ForumPosts) -> None:
        self.bot = bot
        self.services = bot.services
        self.settings: Settings = bot.settings
        self.webhooks = webhooks
        self.forum_posts = forum_posts
        # (server, commander) -> (until, display name or None: not found, avatar)
        self._names: dict[tuple[int, int], tuple[float, str | None, str | None]] = {}

    async def channel(
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
            raise discord.ClientException(
                f"channel {channel_id} is not a server channel"  # i18n: not shown
            )
        return channel

    async def post(self, post: OutboxItem) -> int:
        message = post.message  # parsed once (MessageFormatError before anything is sent)
        channel = await self.channel(post.target_id)
        if isinstance(channel, discord.ForumChannel):
            # A duel in the duel forum: its card makes its post, the rest go to that post.
            if isinstance(message, DuelStart):
                behalf = None
                if post.on_behalf_of is not None and post.guild_id is not None:
                    behalf, _avatar = await self._display(post.guild_id, post.on_behalf_of)
                return await self.forum_posts.start(channel, post, message, behalf)
            channel = await self.channel(await self.forum_posts.post_of(post))
        if not isinstance(channel, discord.abc.Messageable):
            raise discord.ClientException(
                f"cannot post in channel {post.target_id}"  # i18n: not shown
            )
        message_id: int | None = None
        if post.attempts > 1:
            message_id = await self._find_earlier(channel, post)
        if message_id is None:
            if post.kind == "dm_closed" or post.on_behalf_of is None or post.guild_id is None:
                # The bot's own notice, not the commander's words.
                message_id = await self._send_as_bot(channel, post, message, behalf=None)
            else:
                name, avatar = await self._display(post.guild_id, post.on_behalf_of)
                if not isinstance(channel, discord.PartialMessageable):
                    message_id = await self._send_via_webhook(
                        channel, post, message, name, avatar
                    )
                if message_id is None:
                    message_id = await self._send_as_bot(channel, post, message, behalf=name)
        start = message
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
        return await already_posted(self.bot, channel, post, hook=hook, thread=thread)

    async def _send_as_bot(
        self,
        channel: discord.abc.Messageable,
        post: OutboxItem,
        message: OutboxMessage,
        *,
        behalf: str | None,
    ) -> int:
        rendered = render_message(
            message,
            post_id=post.id,
            behalf=behalf,
            archive_base_url=self.settings.archive.base_url,
        )
        sent = await channel.send(
            content=with_home_gone_note(rendered.content, post),
            embeds=rendered.embeds,
            nonce=nonce(post),
            allowed_mentions=ALLOWED_MENTIONS,
        )
        return int(sent.id)

    async def _send_via_webhook(
        self,
        channel: discord.abc.GuildChannel | discord.Thread,
        post: OutboxItem,
        message: OutboxMessage,
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
            message, post_id=post.id, archive_base_url=self.settings.archive.base_url
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
        for _attempt in range(2):
            hook = await self.webhooks.for_channel(parent)
            if hook is None:
                return None
            try:
                sent = await hook.send(**kwargs)
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
            return int(sent.id)
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
            return cached[1] or _(FALLBACK_NAME), cached[2]
        name: str | None = None
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
        return name or _(FALLBACK_NAME), avatar

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
