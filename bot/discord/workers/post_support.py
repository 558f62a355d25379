"""What the poster's delivery paths share: a post that no longer applies, the marker and
nonce that keep a post from going out twice, and the look for what an earlier attempt of a
post already left in a channel (see bot/discord/workers/poster.py)."""

from __future__ import annotations

import logging
from datetime import timedelta

import discord

from bot.discord.workers.webhooks import transient
from bot.i18n.context import _
from bot.i18n.translate import N_
from bot.presentation.discord_posts import marker_ids
from bot.services.outbox import REROUTED_CHANNEL, REROUTED_DM
from bot.services.views import OutboxItem

log = logging.getLogger("bot.discord.workers.poster")

#: One page of history (Discord's largest), read oldest first from the post's first attempt:
#: an earlier attempt's message is among the first there, however busy the channel is since.
HISTORY_LIMIT = 100
#: How much earlier than the first attempt the look starts: Discord's clock (a message id's
#: time) and this host's may differ by this much.
CLOCK_SLACK = timedelta(seconds=10)
#: Discord's 404 codes for a channel post whose thread or forum post was deleted: Unknown
#: Channel, Unknown Message. Retrying never helps; the post goes where the commander sees it.
HOME_GONE = (10003, 10008)
HOME_GONE_NOTE = N_(
    "The thread or forum post of duel #{duel_id} is gone, so this is posted here instead."
)

Channel = discord.abc.Messageable


class PostSkipped(Exception):
    """The post no longer applies (e.g. a reminder for a round that has closed)."""


def with_home_gone_note(content: str | None, post: OutboxItem) -> str | None:
    """A re-sent post says why it is here (its dedupe key carries the reroute suffix)."""
    if post.duel_id is None or not post.dedupe_key.endswith((REROUTED_CHANNEL, REROUTED_DM)):
        return content
    note = _(HOME_GONE_NOTE, duel_id=post.duel_id)
    return note if not content else f"{note}\n{content}"


def carries(message: discord.Message, post: OutboxItem) -> bool:
    """Whether a message carries the ``duelbot post #<id>`` marker of this post."""
    return any(post.id in marker_ids(embed.footer.text) for embed in message.embeds)


def nonce(post: OutboxItem) -> str:
    """The message nonce of a post (<= 25 characters). discord.py 2.7 sends every nonce with
    ``enforce_nonce: true``, so Discord answers a repeated send with the first message."""
    return f"duelbot:{post.id}"


async def already_posted(
    bot: discord.Client,
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
    {message_id}), which returns them in full.

    Read oldest first from just before the post's first attempt (``first_attempt_at``): the
    newest messages of a busy channel had scrolled past an attempt made seconds earlier,
    and the post went out twice (tests/reliability/test_crash.py)."""
    me = bot.user
    candidates: list[int] = []
    since = post.first_attempt_at
    history = (
        channel.history(limit=HISTORY_LIMIT)
        if since is None
        else channel.history(
            limit=HISTORY_LIMIT,
            after=discord.Object(id=discord.utils.time_snowflake(since - CLOCK_SLACK)),
            oldest_first=True,
        )
    )
    try:
        async for message in history:
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
