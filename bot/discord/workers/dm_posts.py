"""Direct messages (the poster's DM path): a round's prompt and reminders with their move
buttons, a step's private note, and the edit that disables the buttons of a round that has
closed (``buttons_closed``, written in the transaction of the close).

The edit needs the message id of each prompt, which exists only once the prompt is posted:
the poster looks the round's DMs up in the outbox when it delivers the edit (due a second
after the close, so the result post goes first). A prompt still held by a worker (its send
may be under way) holds the edit back: it is retried. A prompt not posted by then never is
(it is skipped: its round is closed), so there is nothing to edit. A prompt that cannot be
edited (deleted: 404 10008; refused: 403) is passed over: a press on its buttons is still
refused by the services.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

import discord

from bot.discord.client import DuelBot
from bot.discord.intake_buttons import MoveButton
from bot.discord.workers.post_support import (
    PostSkipped,
    already_posted,
    nonce,
    with_home_gone_note,
)
from bot.presentation.discord_posts import dm_buttons, render_message
from bot.services.messages import (
    ButtonsClosed,
    DirectMessage,
    MoveChoice,
    PrivateNote,
    Reminder,
    RoundPrompt,
)
from bot.services.views import OutboxItem

log = logging.getLogger("bot.discord.workers.poster")

DM_CHANNELS_KEPT = 20_000  # user id -> DM channel id, to skip POST /users/@me/channels


class PromptInFlight(Exception):
    """A prompt whose buttons are to be disabled is being sent right now: edit it later."""


def move_buttons(
    duel_id: int, round_no: int, moves: tuple[MoveChoice, ...], *, disabled: bool = False
) -> discord.ui.View:
    """The move buttons of a prompt or reminder (persistent: their custom ids carry the
    duel, round and move); ``disabled`` as Discord shows them once the round is over."""
    view = discord.ui.View(timeout=None)
    for move_id, label in dm_buttons(moves):
        button = MoveButton(duel_id, round_no, move_id, label)
        button.item.disabled = disabled
        view.add_item(button)
    # Stopped before it is sent: discord.py keeps a sent view that is still listening for
    # the life of the process (one per prompt: it grew with every round opened) and
    # rebuilds the message's components for each click. The intake reads a click from
    # its custom_id instead (bot/discord/intake_buttons.py).
    view.stop()
    return view


class DmPosts:
    """Delivers one DM (or DM edit); the poster claims, marks and retries."""

    def __init__(self, bot: DuelBot) -> None:
        self.bot = bot
        self.services = bot.services
        self._dm_channels: OrderedDict[int, int] = OrderedDict()

    async def _still_relevant(self, post: OutboxItem) -> None:
        """Skip prompts for a round that has closed, and reminders to who has moved since.
        A private note is about a step that has closed: it always goes out."""
        message = post.message
        if not isinstance(message, DirectMessage) or isinstance(message, PrivateNote):
            return
        status = await self.services.duels.round_status(message.duel_id)
        if not status.is_open or status.round_no != message.round_no:
            where = f"round {message.round_no} of duel #{message.duel_id}"  # i18n: not shown
            raise PostSkipped(f"{where} is not open")  # i18n: not shown
        if isinstance(message, Reminder) and status.submitted.get(message.side):
            raise PostSkipped("the duellist has moved")  # i18n: not shown

    async def post(self, post: OutboxItem) -> int | None:
        await self._still_relevant(post)
        channel = await self.dm_channel(post.target_id)
        if post.attempts > 1:
            found = await already_posted(self.bot, channel, post)
            if found is not None:
                return found
        prompt = post.message
        rendered = render_message(prompt, post_id=post.id)
        view = discord.ui.View(timeout=None)
        if isinstance(prompt, RoundPrompt | Reminder):
            view = move_buttons(prompt.duel_id, prompt.round_no, prompt.moves)
        message = await channel.send(
            content=with_home_gone_note(rendered.content, post),
            embeds=rendered.embeds,
            view=view,
            nonce=nonce(post),
        )
        return int(message.id)

    async def dm_channel(self, user_id: int) -> discord.DMChannel | discord.PartialMessageable:
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

    async def close_buttons(self, post: OutboxItem, edit: ButtonsClosed) -> int | None:
        """PATCH each posted prompt and reminder of the round with its buttons disabled.
        Returns the first message edited (None: there was nothing to edit)."""
        edited: int | None = None
        targets = await self.services.outbox.button_messages(edit.round_id, edit.side)
        if any(target.in_flight for target in targets):
            raise PromptInFlight(
                f"a prompt of round {edit.round_no} is being sent"  # i18n: not shown
            )
        for target in targets:
            prompt = target.message
            if target.message_id is None or not isinstance(prompt, RoundPrompt | Reminder):
                continue  # never posted (skipped once the round closed), or unreadable
            if not dm_buttons(prompt.moves):
                continue  # a prompt with too many moves for buttons has none to disable
            channel = await self.dm_channel(post.target_id)
            message = channel.get_partial_message(target.message_id)
            view = move_buttons(prompt.duel_id, prompt.round_no, prompt.moves, disabled=True)
            try:
                await message.edit(view=view)
            except (discord.NotFound, discord.Forbidden) as exc:
                log.info(
                    "Cannot disable the buttons of DM %s (outbox post %s): %s",
                    target.message_id,
                    target.post_id,
                    exc,
                )
                continue
            edited = edited or target.message_id
        return edited
