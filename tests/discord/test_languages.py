"""The Discord layer's languages (issue 28): an interaction is answered in the member's own
Discord language (German for ``de``, English for ``en-US``), whichever command, refusal or
error it is; an outbox post is rendered in its own language; a DM is answered in the
language the member last used; the member's language is told to the services once, not
at every click."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from discord import app_commands

from bot.db.engine import Database
from bot.discord.client import DuelTree
from bot.discord.languages import MemberLanguages, dm_reply_language
from bot.discord.workers.post_support import with_home_gone_note
from bot.discord.workers.poster import Poster
from bot.i18n.context import current_language
from bot.services.outbox import REROUTED_CHANNEL
from bot.services.views import OutboxItem
from tests.discord.harness import World, running_world
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord


async def slash_in(w: World, locale: str, user: Any, name: str, sub: str, **options: Any) -> Any:
    handle = await w.fake.invoke_slash(
        w.guild.id, w.channel_id, user.id, name, subcommand=sub, options=options, locale=locale
    )
    return await handle.reply()


async def test_a_german_member_gets_german_replies_and_an_english_one_english(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        # A refusal of the commander check.
        refused = await slash_in(w, "de", w.outsider, "stats", "show", member=w.ann.id)
        assert refused.ephemeral
        assert refused.content.startswith("Das kann nur ein Kommandant:"), refused.content
        refused = await slash_in(w, "en-US", w.outsider, "stats", "show", member=w.ann.id)
        assert refused.content.startswith("Only a commander can do this:"), refused.content

        # A success of an admin command.
        done = await slash_in(w, "de", w.commander, "config", "missing-move", policy="forfeit")
        assert done.ephemeral
        assert "Die Regel für fehlende Züge ist jetzt `forfeit`" in done.content, done.content
        done = await slash_in(w, "en-GB", w.commander, "config", "missing-move", policy="none")
        assert "Missing move policy is now `none`: no move is made." in done.content

        # An error raised in the Discord layer (a bot named as a duellist).
        bot_id = w.fake.bot_user.id
        started = await slash_in(w, "de", w.commander, "duel", "start", a=w.ann.id, b=bot_id)
        assert "ist ein Bot" in started.content, started.content
        started = await slash_in(w, "en-US", w.commander, "duel", "start", a=w.ann.id, b=bot_id)
        assert "is a bot: bots cannot duel" in started.content, started.content


async def test_the_language_does_not_leak_between_interactions_or_into_the_gateway(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        await slash_in(w, "de", w.outsider, "stats", "show", member=w.ann.id)
        assert current_language() == "en"
        reply = await slash_in(w, "fr", w.outsider, "stats", "show", member=w.ann.id)
        assert reply.content.startswith("Only a commander")  # no French catalog: English


def test_the_tree_opens_the_scope_where_discord_py_starts_the_interaction_task() -> None:
    # DuelTree overrides the method discord.py calls for every command and autocomplete;
    # a discord.py that renamed it would leave every reply in English.
    assert "_from_interaction" in vars(app_commands.CommandTree)
    assert "_from_interaction" in vars(DuelTree)


async def test_a_dm_is_answered_in_the_language_the_member_last_used(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        await slash_in(w, "de", w.ann, "duel", "list")
        before = len(fake.dms_to(w.ann.id))
        await fake.send_dm(w.ann.id, "duels")
        [answer] = (await fake.wait_for_dms(w.ann.id, before + 1))[before:]
        assert "Du hast gerade keine offene Runde." in answer.content, answer.content

        # Bob never used the bot: English.
        await fake.send_dm(w.bob.id, "duels")
        [answer] = await fake.wait_for_dms(w.bob.id, 1)
        assert "You have no open round right now." in answer.content, answer.content


class Remembered:
    def __init__(self) -> None:
        self.calls: list[tuple[int, str | None]] = []
        self.batches: list[dict[int, str | None]] = []
        self.stored: dict[int, str] = {}

    async def remember(self, user_id: int, locale: str | None) -> str:
        self.calls.append((user_id, locale))
        return locale or "en"

    async def remember_many(self, heard: dict[int, str | None]) -> dict[int, str]:
        self.batches.append(dict(heard))
        return {user_id: await self.remember(user_id, loc) for user_id, loc in heard.items()}

    async def language_of(self, user_id: int) -> str | None:
        return self.stored.get(user_id)

    async def dm_language_of(self, user_id: int) -> str:
        return self.stored.get(user_id) or "en"


async def test_a_member_language_is_stored_once_until_it_changes() -> None:
    service = Remembered()
    languages = MemberLanguages(cast(Any, SimpleNamespace(languages=service)), kept=2)
    for _ in range(5):
        languages.heard(1, "de")
    await languages.settled()
    assert service.calls == [(1, "de")]
    languages.heard(1, "en-US")
    languages.heard(1, "en-GB")  # the same catalog language: nothing new
    await languages.settled()
    assert service.calls == [(1, "de"), (1, "en-US")]
    assert languages.known(1) == "en"


async def test_members_heard_together_are_stored_in_one_write() -> None:
    service = Remembered()
    languages = MemberLanguages(cast(Any, SimpleNamespace(languages=service)))
    for user_id in range(1, 51):
        languages.heard(user_id, "de" if user_id % 2 else "en-US")
    await languages.settled()
    assert len(service.batches) == 1 and len(service.batches[0]) == 50
    languages.heard(1, "de")  # known: no write at all
    await languages.settled()
    assert len(service.batches) == 1


async def test_a_dm_reply_speaks_the_last_dm_sent_else_what_is_stored() -> None:
    service = Remembered()
    services = cast(Any, SimpleNamespace(languages=service))
    languages = MemberLanguages(services)
    assert await dm_reply_language(services, languages, 7) == "en"
    service.stored[7] = "de"
    # what the services answered is kept: the member's next DM asks them nothing
    assert await dm_reply_language(services, languages, 7) == "en"
    assert await dm_reply_language(services, MemberLanguages(services), 7) == "de"
    languages.sent_dm(8, "de")  # the bot's last DM to them was German
    assert await dm_reply_language(services, languages, 8) == "de"
    languages.heard(8, "en-US")  # ... but they use the bot in English
    assert await dm_reply_language(services, languages, 8) == "en"
    await languages.settled()


def outbox_item(language: str | None, **changes: Any) -> OutboxItem:
    fields = {
        "id": 41,
        "dedupe_key": "duel:3:round:1:result" + REROUTED_CHANNEL,
        "kind": "round_result",
        "target": "channel",
        "target_id": 5,
        "guild_id": 1,
        "duel_id": 3,
        "on_behalf_of": None,
        "payload": {},
        "attempts": 1,
        **changes,
    }
    # OutboxItem.language comes with the services' part of issue 28; the poster reads it by
    # name, so a stand-in with that field is what it gets from the outbox.
    return cast(OutboxItem, SimpleNamespace(**fields, language=language))


async def test_an_outbox_post_is_rendered_in_its_own_language() -> None:
    notes: list[tuple[str, str | None]] = []

    async def post(item: OutboxItem) -> int:
        notes.append((current_language(), with_home_gone_note(None, item)))
        return 99

    async def marked(*_args: Any, **_kwargs: Any) -> None:
        return None

    outbox = SimpleNamespace(mark_posted=marked, mark_failed=marked)
    poster = object.__new__(Poster)
    poster.services = cast(Any, SimpleNamespace(outbox=outbox))
    poster._post = post  # type: ignore[method-assign]

    await asyncio.gather(poster.deliver(outbox_item("de")), poster.deliver(outbox_item(None)))
    assert notes == [
        (
            "de",
            "Der Thread oder Forumsbeitrag von Duell #3 existiert nicht mehr, deshalb wird "
            "dies stattdessen hier gepostet.",
        ),
        (
            "en",
            "The thread or forum post of duel #3 is gone, so this is posted here instead.",
        ),
    ]
    assert current_language() == "en"


async def test_a_dm_move_from_a_member_not_known_here_finds_their_language_in_its_pass(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """After a restart (nothing known in this process), a DM move is answered in the
    language the member's DMs speak (theirs as stored, else their duel's) without any read
    before the move: the move's own pass reads it (issue 27). A refusal speaks it too."""
    fake = fake_discord
    async with running_world(fake, database) as w:
        fake.set_guild_locale(w.guild.id, "de")
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        # Bob once used the bot in English: stored as the language he last used.
        await w.services.languages.remember(w.bob.id, "en-US")
        # As after a restart: this process knows nobody's language.
        w.bot.member_languages = MemberLanguages(w.services)
        asked: list[int] = []

        async def asked_first(user_id: int) -> str:  # the read before a move, gone
            asked.append(user_id)
            return "en"

        w.services.languages.dm_language_of = asked_first  # type: ignore[method-assign]
        before = {u: len(fake.dms_to(u)) for u in (w.ann.id, w.bob.id)}

        await fake.send_dm(w.ann.id, "evadee")  # no such move: refused in the duel's German
        refused = (await fake.wait_for_dms(w.ann.id, before[w.ann.id] + 1, timeout=15))[-1]
        assert "evadee" in refused.content and "Zug" in refused.content, refused.content
        await fake.send_dm(w.ann.id, "evade")  # the receipt: German, her duel's language
        receipt = (await fake.wait_for_dms(w.ann.id, before[w.ann.id] + 2, timeout=15))[-1]
        assert "Runde 1" in receipt.content and "Duell" in receipt.content, receipt.content
        await fake.send_dm(w.bob.id, f"#{duel_id} side_swipe")  # English: his own
        answer = (await fake.wait_for_dms(w.bob.id, before[w.bob.id] + 1, timeout=15))[-1]
        assert "Move received" in answer.content and "Runde" not in answer.content, answer.content
        # What the pass found is kept: the next DM asks nothing (known in this process).
        assert w.bot.member_languages.known(w.ann.id) == "de"
        assert w.bot.member_languages.known(w.bob.id) == "en"
        assert asked == []
