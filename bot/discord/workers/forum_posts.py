"""The poster's part for duels in a forum (issue 13; bot/discord/forum.py says where a duel
lives and which tags mean what).

A duel started with a duel forum set has the forum as its channel until its post exists.
Discord refuses messages in a forum itself (40058), so:

- the duel card (DuelStart) creates the post: ``POST /channels/{forum}/threads`` with the
  card as its first message (as the bot, "on behalf of" the commander) and the forum's
  "open" tag; then the post's thread is recorded on the duel (DuelService.attach_thread),
  and every later post of the duel goes there (through the forum's webhook, as in a
  channel). A retried card first looks for a post made by an earlier attempt: the duel
  already has its thread, or a post of the bot named "Duel #N: ..." is among the forum's
  active threads (names are read without the message content intent);
- any other post that was queued for the forum (before the card was posted) goes to the
  duel's post; while there is none yet it waits (retried, the card goes first);
- after a post that may change whether the duel is running (a result that ends it, a
  commander's end, an undo) the post's tags follow the duel: "open" or "ended".
"""

from __future__ import annotations

import logging
from typing import Any, Literal

import discord

from bot.discord.client import ALLOWED_MENTIONS, DuelBot
from bot.discord.forum import open_tag, tags_for
from bot.i18n.context import _
from bot.presentation.discord_posts import render_message, thread_name
from bot.services.messages import DuelEnd, DuelStart, RoundResultPost, RoundUndone
from bot.services.views import OutboxItem

log = logging.getLogger(__name__)

AUTO_ARCHIVE_MINUTES: Literal[10080] = 10080  # a week: play-by-post rounds are slow


class PostNotMadeYet(Exception):
    """A duel's post is not there yet; retried after the duel card has made it."""


def thread_prefixes(duel_id: int) -> tuple[str, ...]:
    """How the name of a duel's post starts (``thread_name``: "Duel #7: A vs B"): in the
    post's language, and in English (a post made before languages)."""
    marker = "\x00"
    named = _("Duel #{duel}: {a} vs {b}", duel=duel_id, a=marker, b="").split(marker)[0]
    english = f"Duel #{duel_id}:"
    # A translation that names the duellists first tells nothing by its start.
    return (english, named.strip()) if str(duel_id) in named else (english,)


class ForumPosts:
    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self.services = bot.services

    # -- the card makes the post --------------------------------------------------------

    async def start(
        self, forum: discord.ForumChannel, post: OutboxItem, start: DuelStart, behalf: str | None
    ) -> int:
        """Create the duel's post with its card; returns the card's message id (the post's
        id: the first message of a forum post shares it)."""
        duel = await self.services.duels.get_duel(start.duel_id)
        if duel.thread_id is not None:
            return duel.thread_id  # an earlier attempt made the post and recorded it
        if post.attempts > 1:
            found = await self._find_post(forum, start.duel_id)
            if found is not None:
                await self.services.duels.attach_thread(duel_id=start.duel_id, thread_id=found)
                return found
        rendered = render_message(
            start,
            post_id=post.id,
            behalf=behalf,
            archive_base_url=self.bot.settings.archive.base_url,
        )
        tag = open_tag(forum)
        created = await forum.create_thread(
            name=thread_name(start),
            content=rendered.content,
            embeds=rendered.embeds,
            applied_tags=[tag] if tag is not None else [],
            allowed_mentions=ALLOWED_MENTIONS,
            auto_archive_duration=AUTO_ARCHIVE_MINUTES,
            reason=f"duelbot: duel #{start.duel_id}",
        )
        await self.services.duels.attach_thread(duel_id=start.duel_id, thread_id=created.thread.id)
        return int(created.message.id)

    async def _find_post(self, forum: discord.ForumChannel, duel_id: int) -> int | None:
        """A post of the bot for this duel made by an earlier attempt, by its name."""
        me = self.bot.user
        prefixes = thread_prefixes(duel_id)
        threads: list[discord.Thread] = list(forum.threads)
        try:
            threads += await forum.guild.active_threads()
        except discord.HTTPException:
            log.warning("Cannot list the active threads of server %s", forum.guild.id)
        for thread in threads:
            if (
                thread.parent_id == forum.id
                and thread.name.startswith(prefixes)
                and (me is None or thread.owner_id == me.id)
            ):
                return thread.id
        return None

    # -- later posts go to the post -----------------------------------------------------

    async def post_of(self, post: OutboxItem) -> int:
        """The duel's post for a post that was queued for the forum itself."""
        if post.duel_id is None:
            raise discord.ClientException(
                f"outbox post {post.id} is for forum {post.target_id}, "  # i18n: not shown
                "which takes no messages"
            )
        duel = await self.services.duels.get_duel(post.duel_id)
        if duel.thread_id is None:
            raise PostNotMadeYet(f"duel #{post.duel_id} has no forum post yet")  # i18n: not shown
        return duel.thread_id

    # -- tags follow the duel -----------------------------------------------------------

    @staticmethod
    def may_change_state(post: OutboxItem) -> bool:
        message = post.message
        return isinstance(message, DuelEnd | RoundUndone) or (
            isinstance(message, RoundResultPost) and message.ended
        )

    async def _applied_tags(
        self, thread: discord.Thread, forum: discord.ForumChannel
    ) -> list[discord.ForumTag]:
        """The post's tags through public API only: ``Thread.applied_tags`` when its forum is
        cached; else the thread as Discord gives it (one GET), its tag ids read by the forum."""
        if thread.parent is not None:
            return list(thread.applied_tags)
        try:
            raw: Any = await self.bot.http.get_channel(thread.id)
        except discord.HTTPException:
            return []
        ids = raw.get("applied_tags") or [] if isinstance(raw, dict) else []
        return [tag for tag in (forum.get_tag(int(i)) for i in ids) if tag is not None]

    async def follow_state(self, thread: discord.Thread, post: OutboxItem) -> None:
        """Set the post's "open"/"ended" tag after a post that may have changed it. A refusal
        is logged: the post itself went out."""
        if post.duel_id is None or not self.may_change_state(post):
            return
        forum: object = thread.parent
        if forum is None:
            try:
                forum = await self.bot.fetch_channel(thread.parent_id)
            except discord.HTTPException:
                return
        if not isinstance(forum, discord.ForumChannel):
            return
        duel = await self.services.duels.get_duel(post.duel_id)
        applied = await self._applied_tags(thread, forum)
        tags = tags_for(forum, applied, ended=duel.status != "live")
        if tags is None:
            return
        try:
            await thread.edit(applied_tags=tags, reason=f"duelbot: duel #{post.duel_id}")
        except discord.HTTPException as exc:
            log.warning(
                "Cannot set the tags of the post of duel #%s (HTTP %s %s)",
                post.duel_id,
                exc.status,
                exc.code,
            )


__all__ = ["ForumPosts", "PostNotMadeYet"]
