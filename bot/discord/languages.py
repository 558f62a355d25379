"""Which language the Discord layer writes in (issue 28; the rules: bot/i18n/choice.py), and
the member's language remembered for their DMs.

- An interaction (a slash command, an autocomplete, a button): everything it answers is in
  the member's own Discord language, ``answering(interaction, ...)``. It is opened where an
  interaction's own task starts, so it covers that task and ends with it: for the
  slash commands and autocompletes once, in the command tree (bot/discord/client.py
  ``DuelTree``); for the move buttons in the intake's listener, for the leaderboard's
  pages in their item's callback.
- An outbox post: the language chosen when it was queued (``post_language``), the duel's for
  a channel post, the member's for a DM.
- A DM the member sends (the DM move intake): ``dm_reply_language``, the language the
  member last used with the bot, else the one the bot's last DM to them spoke (the services
  chose it by the same rule: theirs, else the duel's), else what the services have stored
  (theirs, else their newest live duel's).
  A DM move is on the hot path (tests/discord/test_move_trace.py): what this process knows
  costs no call into the services.

Every interaction remembers the member's language (``MemberLanguages.heard``): at no cost
when it did not change (known in this process), else stored in the background, so the
answer never waits for the database.

What the services expose for this: ``Services.languages`` (remember, dm_language_of),
``OutboxItem.language`` and the ``guild_locale`` keyword of the calls that start a duel.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import discord

from bot.i18n.choice import dm_language, reply_language
from bot.i18n.context import speaking
from bot.services.container import Services
from bot.services.errors import Unavailable
from bot.services.views import OutboxItem

log = logging.getLogger(__name__)

#: How long the members heard from are gathered before their languages are stored.
STORE_DELAY = 0.5
#: Members whose language this process remembers having stored (least recently heard
#: from dropped first); forgetting one costs one more store, not a wrong language.
KEPT = 50_000


def locale_of(locale: discord.Locale | None) -> str | None:
    """A Discord locale as a string (``"de"``, ``"en-US"``); None when Discord gave none."""
    return None if locale is None else locale.value


def interaction_language(interaction: discord.Interaction[Any]) -> str:
    """The language an interaction is answered in: the member's own Discord language."""
    return reply_language(locale_of(interaction.locale))


class MemberLanguages:
    """The language each member last used with the bot, told to the services
    (``Services.languages.remember``) when it changes."""

    def __init__(self, services: Services, kept: int = KEPT) -> None:
        self._services = services
        self._kept = kept
        self._known: OrderedDict[int, str] = OrderedDict()
        # user id -> the language of the last DM this process sent them
        self._sent: OrderedDict[int, str] = OrderedDict()
        # heard from, not stored yet: user id -> their Discord locale
        self._pending: dict[int, str | None] = {}
        self._flusher: asyncio.Task[None] | None = None

    def known(self, user_id: int) -> str | None:
        """The language ``user_id`` speaks as far as this process knows, without the
        database: the one they last used here, else that of the last DM sent to them."""
        return self._known.get(user_id) or self._sent.get(user_id)

    def sent_dm(self, user_id: int, language: str | None) -> None:
        """A DM in ``language`` went to ``user_id`` (the poster)."""
        if language is None:
            return
        self._sent[user_id] = language
        self._sent.move_to_end(user_id)
        while len(self._sent) > self._kept:
            self._sent.popitem(last=False)

    def heard(self, user_id: int, locale: str | None) -> None:
        """``user_id`` used the bot in Discord locale ``locale``: stored in the background
        when it is not what this process last stored for them; else nothing is done."""
        language = reply_language(locale)
        if self._known.get(user_id) == language:
            self._known.move_to_end(user_id)
            return
        self._known[user_id] = language
        while len(self._known) > self._kept:
            self._known.popitem(last=False)
        self._pending[user_id] = locale
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(
                self._store_soon(), name="duelbot-member-languages"
            )

    async def _store_soon(self) -> None:
        # Members heard from within STORE_DELAY are stored in one write: a burst of
        # first clicks (a round opening for many duels) is one transaction, not hundreds
        # taking the database's write lock between the moves.
        await asyncio.sleep(STORE_DELAY)
        while self._pending:
            heard, self._pending = self._pending, {}
            try:
                await self._services.languages.remember_many(heard)
            except Exception as exc:  # the database: told again at their next interaction
                log.warning("Cannot store the language of %d member(s): %s", len(heard), exc)
                for user_id, locale in heard.items():
                    if self._known.get(user_id) == reply_language(locale):
                        del self._known[user_id]

    async def settled(self) -> None:
        """Wait until what was heard so far is stored (tests, shutdown)."""
        while self._flusher is not None and not self._flusher.done():
            await asyncio.gather(self._flusher, return_exceptions=True)


@contextmanager
def answering(
    interaction: discord.Interaction[Any], languages: MemberLanguages | None
) -> Iterator[str]:
    """Everything built inside answers ``interaction``: it speaks the member's Discord
    language. The member's language is remembered (``languages``) on the way in."""
    locale = locale_of(interaction.locale)
    if languages is not None:
        languages.heard(interaction.user.id, locale)
    with speaking(reply_language(locale)) as language:
        yield language


def post_language(post: OutboxItem) -> str | None:
    """The language an outbox post is rendered in (chosen when it was queued)."""
    return post.language


def guild_locale(interaction: discord.Interaction[Any]) -> str | None:
    """The server's preferred locale, for the calls that start a duel (the duel's language
    when /config language chose none)."""
    return locale_of(interaction.guild_locale)


async def dm_reply_language(
    services: Services, languages: MemberLanguages | None, user_id: int
) -> str:
    """The language to answer a DM from ``user_id`` in: what this process knows of them
    (``MemberLanguages.known``), else the language stored as the one they last used,
    else their newest live duel's, else English."""
    known = languages.known(user_id) if languages is not None else None
    if known is not None:
        return known
    try:
        language = await services.languages.dm_language_of(user_id)
    except Unavailable:  # the database: the answer itself says what is wrong
        return dm_language(None, None, None)
    if languages is not None:
        languages.sent_dm(user_id, language)  # their next DM asks the services nothing
    return language
