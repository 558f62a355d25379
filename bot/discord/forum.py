"""Forum channels (issue 13): where a new duel lives, what the duel forum must allow the
bot, and which of a forum's tags mark open and ended duels.

- ``/config duel-forum channel:`` names the server's duel forum. It must be a forum channel,
  and the bot must have there what it uses: View Channel, Send Messages (in a forum that is
  "Create Posts"), Send Messages in Threads, Embed Links (the duel card and results are
  embeds), Read Message History (the poster looks for what an interrupted attempt posted),
  Manage Webhooks (posts go out on behalf of the commander through the forum's webhook), and
  Manage Threads when a tag the bot sets is moderated. A forum that requires a tag must have
  an "open" tag. Without ``channel`` the setting is cleared.
- ``/duel start`` in a thread or a forum post keeps the duel there; elsewhere, with a duel
  forum set, the duel gets its own post in that forum (the duel's channel is the forum until
  the poster has made the post and recorded its thread); else it stays in the channel (and
  ``thread_per_duel`` makes it a thread there).
- Tags: the forum's tag named "open" or "ongoing" (case and spaces ignored) is set on a new
  post; when the duel ends it is replaced by the tag named "ended" or "finished". A forum
  without such tags gets posts without them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import discord

from bot.i18n.context import _, _n
from bot.i18n.translate import N_
from bot.services.views import SettingsView

OPEN_TAG_NAMES = ("open", "ongoing")
ENDED_TAG_NAMES = ("ended", "finished")
MAX_APPLIED_TAGS = 5

#: What the bot needs in the duel forum, with the names Discord's settings show (in the
#: member's language: Discord's own names of the permissions there).
FORUM_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("view_channel", N_("View Channel")),
    ("send_messages", N_("Create Posts (Send Messages)")),
    ("send_messages_in_threads", N_("Send Messages in Posts (Send Messages in Threads)")),
    ("embed_links", N_("Embed Links")),
    ("read_message_history", N_("Read Message History")),
    ("manage_webhooks", N_("Manage Webhooks")),
)

#: A channel that is no forum, by its type's name: the first sentence of the refusal.
NOT_A_FORUM: dict[str, str] = {
    "text": N_("{channel} is a text channel, not a forum channel."),
    "news": N_("{channel} is an announcement channel, not a forum channel."),
    "voice": N_("{channel} is a voice channel, not a forum channel."),
    "stage_voice": N_("{channel} is a stage channel, not a forum channel."),
    "category": N_("{channel} is a category, not a forum channel."),
    "media": N_("{channel} is a media channel, not a forum channel."),
    "public_thread": N_("{channel} is a thread, not a forum channel."),
    "private_thread": N_("{channel} is a thread, not a forum channel."),
    "news_thread": N_("{channel} is a thread, not a forum channel."),
}
NOT_A_FORUM_OTHER = N_("{channel} is not a forum channel.")


def _plain(name: str) -> str:
    return " ".join(name.split()).casefold()


def find_tag(tags: Iterable[discord.ForumTag], names: Sequence[str]) -> discord.ForumTag | None:
    """The first of ``tags`` whose name is one of ``names`` (case and spacing ignored), in
    the order of ``names``."""
    by_name: dict[str, discord.ForumTag] = {}
    for tag in tags:
        by_name.setdefault(_plain(tag.name), tag)
    for name in names:
        if name in by_name:
            return by_name[name]
    return None


def open_tag(forum: discord.ForumChannel) -> discord.ForumTag | None:
    return find_tag(forum.available_tags, OPEN_TAG_NAMES)


def ended_tag(forum: discord.ForumChannel) -> discord.ForumTag | None:
    return find_tag(forum.available_tags, ENDED_TAG_NAMES)


def tags_for(
    forum: discord.ForumChannel, applied: Sequence[discord.ForumTag], *, ended: bool
) -> list[discord.ForumTag] | None:
    """The tags of a duel's post once it is running (``ended`` False) or over: the other
    state's tag removed, this state's added where the forum has one, the rest kept. None
    when nothing changes (or when a forum that requires a tag would be left without one)."""
    wanted, other = (
        (ended_tag(forum), open_tag(forum)) if ended else (open_tag(forum), ended_tag(forum))
    )
    tags = [t for t in applied if other is None or t.id != other.id]
    if wanted is not None and all(t.id != wanted.id for t in tags):
        tags = [*tags[: MAX_APPLIED_TAGS - 1], wanted]
    if not tags and forum.flags.require_tag:
        return None
    if [t.id for t in tags] == [t.id for t in applied]:
        return None
    return tags


def missing_permissions(forum: discord.ForumChannel, me: discord.Member) -> list[str]:
    """What the bot lacks in ``forum`` (names as Discord's settings show them)."""
    perms = forum.permissions_for(me)
    missing = [_(label) for attr, label in FORUM_PERMISSIONS if not getattr(perms, attr)]
    moderated = [t for t in (open_tag(forum), ended_tag(forum)) if t is not None and t.moderated]
    if moderated and not perms.manage_threads:
        missing.append(
            _n(
                "Manage Threads (the tag {tags} is moderated)",
                "Manage Threads (the tags {tags} are moderated)",
                len(moderated),
                tags=", ".join(f'"{t.name}"' for t in moderated),
            )
        )
    return missing


def forum_refusal(channel: object, me: discord.Member | None) -> str | None:
    """Why ``channel`` cannot be the duel forum, or None when it can."""
    mention = getattr(channel, "mention", None) or _("that channel")
    if not isinstance(channel, discord.ForumChannel) or channel.type != discord.ChannelType.forum:
        kind = getattr(getattr(channel, "type", None), "name", "other")
        first = _(NOT_A_FORUM.get(kind, NOT_A_FORUM_OTHER), channel=mention)
        pick = _(
            "Pick a forum channel (Create Channel > Forum): each duel gets its own post "
            "there. Nothing was changed."
        )
        return f"{first} {pick}"
    if me is None:
        return _(
            "I cannot see my own permissions in this server right now; try again in a minute."
        )
    missing = missing_permissions(channel, me)
    if missing:
        return _(
            "I am missing permissions in {channel}: {permissions}. Give them to my role in "
            "the forum's settings (Permissions), then run this again. Nothing was changed.",
            channel=mention,
            permissions=", ".join(missing),
        )
    if channel.flags.require_tag and open_tag(channel) is None:
        # Translators: the tag names stay English ("open", "ongoing", "ended"): the bot
        # looks for tags of these names.
        return _(
            '{channel} requires a tag on every post, and it has no tag named "open" or '
            '"ongoing" for me to set. Add one (and an "ended" tag for finished duels), or '
            'turn off "Require people to select tags". Nothing was changed.',
            channel=mention,
        )
    return None


async def bot_member(guild: discord.Guild, client: discord.Client) -> discord.Member | None:
    """The bot as a member of ``guild`` (with its roles), from the cache or from Discord."""
    if guild.me is not None:
        return guild.me
    if client.user is None:
        return None
    try:
        return await guild.fetch_member(client.user.id)
    except discord.HTTPException:
        return None


@dataclass(frozen=True)
class DuelHome:
    """Where a new duel lives: ``channel_id`` (a forum, until its post exists), the thread
    if it starts in one, and a sentence for the commander when that is not the obvious."""

    channel_id: int
    thread_id: int | None
    note: str = ""


def duel_home(
    channel: object,
    channel_id: int,
    guild: discord.Guild | None,
    settings: SettingsView,
    *,
    thread_per_duel: bool,
) -> DuelHome:
    """Where ``/duel start`` run in ``channel`` puts the duel (see the module's doc)."""
    if isinstance(channel, discord.Thread):
        note = ""
        if thread_per_duel:
            note = " " + _(
                "This is already a thread, so the duel stays in it (thread_per_duel makes "
                "threads only from channels)."
            )
        return DuelHome(channel.parent_id, channel.id, note)
    forum_id = settings.duel_forum_id
    if forum_id is not None:
        forum = guild.get_channel(forum_id) if guild is not None else None
        if isinstance(forum, discord.ForumChannel):
            opens = _("Its post opens in {forum} in a moment.", forum=forum.mention)
            return DuelHome(forum.id, None, f" {opens}")
        gone = _(
            "The duel forum set with /config duel-forum no longer exists, so the duel stays "
            "in this channel; an admin can name another forum."
        )
        return DuelHome(channel_id, None, f" {gone}")
    return DuelHome(channel_id, None)


__all__ = [
    "ENDED_TAG_NAMES",
    "OPEN_TAG_NAMES",
    "DuelHome",
    "bot_member",
    "duel_home",
    "ended_tag",
    "find_tag",
    "forum_refusal",
    "open_tag",
    "tags_for",
]
