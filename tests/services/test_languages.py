"""The services and languages (issue 28): a duel keeps the server's language from its start,
every outbox row is written with the language it is to be rendered in (a channel post the
duel's, a DM its member's), a member's language is remembered without a write per click,
errors speak the scope they are raised in, and a close builds what it stores in the duel's
language whoever closes it. On both backends, with real databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from bot.config import DuelSettings
from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Duel, MemberLanguage
from bot.i18n.context import current_language, speaking
from bot.services import rounds
from bot.services.clock import utcnow
from bot.services.container import Services
from bot.services.errors import ConflictOfInterest, InvalidInput, NotFound
from bot.services.languages import LanguageService
from bot.services.views import ChallengeOutcome, MemberRef, window_text
from tests.services.helpers import (
    ALICE,
    BOB,
    CHANNEL,
    COMMANDER,
    GUILD,
    give_stats,
    outbox_rows,
)


async def _start(services: Services, **kwargs: Any) -> int:
    await give_stats(services, ALICE, BOB)
    duel = await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=BOB, **kwargs
    )
    return duel.id


async def _stored_language(database: Database, duel_id: int) -> str | None:
    async with database.transaction() as session:
        duel = await session.get(Duel, duel_id)
        assert duel is not None
        return duel.language


async def _german_server(services: Services) -> None:
    await services.settings.set_language(GUILD, COMMANDER, "de")


# -- the duel's language -----------------------------------------------------------------


async def test_a_duel_in_a_german_server_stores_german(
    services: Services, database: Database
) -> None:
    await _german_server(services)
    # The /config language wins over the server's preferred locale.
    duel_id = await _start(services, guild_locale="en-US")
    assert await _stored_language(database, duel_id) == "de"
    assert (await services.duels.get_duel(duel_id, GUILD)).language == "de"
    history = await services.exports.duel_export(duel_id, GUILD)
    assert history.duel.language == "de"


async def test_without_config_language_the_guild_locale_decides(
    services: Services, database: Database
) -> None:
    german = await _start(services, guild_locale="de")
    english = await _start(services, guild_locale="fr")  # no French catalog: English
    unknown = await _start(services)
    assert await _stored_language(database, german) == "de"
    assert await _stored_language(database, english) == "en"
    assert await _stored_language(database, unknown) == "en"


async def test_the_duel_keeps_its_language_when_the_server_changes(
    services: Services, database: Database
) -> None:
    await _german_server(services)
    duel_id = await _start(services)
    await services.settings.set_language(GUILD, COMMANDER, None)
    await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert await _stored_language(database, duel_id) == "de"
    opened = await outbox_rows(database, kind="round_open")
    assert [row.language for row in opened] == ["de"]


# -- the outbox rows' languages ----------------------------------------------------------


async def test_channel_posts_speak_the_duels_language_and_dms_the_members(
    services: Services, database: Database
) -> None:
    await _german_server(services)
    # Alice last used the bot in English; Bob never told it anything.
    await services.languages.remember(ALICE.user_id, "en-GB")
    duel_id = await _start(services)
    await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)

    rows = await outbox_rows(database, duel_id=duel_id)
    channel = [row for row in rows if row.target == "channel"]
    assert {row.kind for row in channel} == {"duel_start", "round_open", "round_result"}
    assert {row.language for row in channel} == {"de"}
    dms = {(row.kind, row.target_id): row.language for row in rows if row.target == "user"}
    assert dms == {
        ("round_dm", ALICE.user_id): "en",
        ("round_dm", BOB.user_id): "de",
        ("buttons_closed", ALICE.user_id): "en",
        ("buttons_closed", BOB.user_id): "de",
    }


async def test_an_english_servers_dms_follow_a_german_member(
    services: Services, database: Database
) -> None:
    await services.languages.remember(BOB.user_id, "de")
    duel_id = await _start(services)
    await services.duels.open_round(
        duel_id=duel_id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(minutes=30),
    )
    assert await services.scheduler.enqueue_due_reminders([timedelta(hours=1)]) == 2
    rows = await outbox_rows(database, duel_id=duel_id)
    assert {row.language for row in rows if row.target == "channel"} == {"en"}
    languages = {
        (row.kind, row.target_id): row.language for row in rows if row.target == "user"
    }
    assert languages == {
        ("round_dm", ALICE.user_id): "en",
        ("round_dm", BOB.user_id): "de",
        ("reminder_dm", ALICE.user_id): "en",
        ("reminder_dm", BOB.user_id): "de",
    }
    # The poster gets the language with the post.
    claimed = await services.outbox.claim("test-worker", limit=50)
    assert {(item.kind, item.target_id, item.language) for item in claimed} >= {
        ("reminder_dm", BOB.user_id, "de"),
        ("round_open", CHANNEL, "en"),
    }


async def test_a_bounced_dms_notice_speaks_the_duels_language(
    services: Services, database: Database
) -> None:
    await _german_server(services)
    await services.languages.remember(BOB.user_id, "en-US")
    duel_id = await _start(services)
    await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    (prompt,) = [
        row
        for row in await outbox_rows(database, kind="round_dm")
        if row.target_id == BOB.user_id
    ]
    assert prompt.language == "en"
    await services.outbox.mark_dm_closed(prompt.id)
    (notice,) = await outbox_rows(database, kind="dm_closed")
    assert notice.language == "de"


# -- remembering a member's language -----------------------------------------------------


async def _member_row(database: Database, user_id: int) -> MemberLanguage | None:
    async with database.transaction() as session:
        return await session.get(MemberLanguage, user_id)


async def _overwrite(database: Database, user_id: int, language: str, at: datetime) -> None:
    """Change the stored row behind the service's back (what a write would undo)."""
    async with database.transaction() as session:
        await session.execute(
            update(MemberLanguage)
            .where(MemberLanguage.user_id == user_id)
            .values(language=language, updated_at=at)
        )


async def test_remember_writes_once_and_not_again_for_the_same_language(
    services: Services, database: Database
) -> None:
    assert await services.languages.language_of(ALICE.user_id) is None
    assert await services.languages.remember(ALICE.user_id, "de") == "de"
    row = await _member_row(database, ALICE.user_id)
    assert row is not None and row.language == "de"
    assert await services.languages.language_of(ALICE.user_id) == "de"

    # The same language again: no write (the row changed behind its back stays changed).
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    await _overwrite(database, ALICE.user_id, "xx", long_ago)
    assert await services.languages.remember(ALICE.user_id, "de-DE") == "de"
    row = await _member_row(database, ALICE.user_id)
    assert row is not None and (row.language, row.updated_at) == ("xx", long_ago)

    # Another language: one write.
    assert await services.languages.remember(ALICE.user_id, "en-US") == "en"
    row = await _member_row(database, ALICE.user_id)
    assert row is not None and row.language == "en" and row.updated_at > long_ago


async def test_a_fresh_process_reads_once_and_writes_only_a_change(database: Database) -> None:
    first = LanguageService(database)
    await first.remember(BOB.user_id, "de")
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    await _overwrite(database, BOB.user_id, "de", long_ago)

    restarted = LanguageService(database)  # an empty cache: it reads the row first
    assert await restarted.remember(BOB.user_id, "de") == "de"
    row = await _member_row(database, BOB.user_id)
    assert row is not None and row.updated_at == long_ago  # same language: not written
    # An unknown locale is English, and that is a change.
    assert await restarted.remember(BOB.user_id, "tlh") == "en"
    async with database.transaction() as session:
        stored = (await session.execute(select(MemberLanguage.language))).scalars().all()
    assert stored == ["en"]


# -- errors speak their scope ------------------------------------------------------------


async def test_a_domain_error_speaks_the_scope_it_is_raised_in(services: Services) -> None:
    with speaking("de"), pytest.raises(NotFound) as german:
        await services.duels.get_duel(424242, GUILD)
    assert german.value.message == "Auf diesem Server gibt es kein Duell #424242."
    with pytest.raises(NotFound) as english:
        await services.duels.get_duel(424242, GUILD)
    assert english.value.message == "There is no duel #424242 in this server."
    assert isinstance(german.value.message, str)


async def test_refusals_with_fields_and_plurals_in_german(services: Services) -> None:
    duel_id = await _start(services)
    with speaking("de"), pytest.raises(InvalidInput) as ended:
        await services.duels.end_duel(
            duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER, reason="x" * 301
        )
    assert ended.value.message == "Der Grund ist zu lang (301 Zeichen, höchstens 300)."
    with speaking("de"), pytest.raises(ConflictOfInterest) as refused:
        await services.duels.open_round(
            duel_id=duel_id, guild_id=GUILD, actor_id=ALICE.user_id
        )
    assert refused.value.message.startswith("Du bist Duellant A in Duell #")
    with pytest.raises(ConflictOfInterest) as english:
        await services.duels.open_round(
            duel_id=duel_id, guild_id=GUILD, actor_id=ALICE.user_id
        )
    assert english.value.message.startswith("You are duellist A in duel #")


def test_a_time_window_in_german() -> None:
    window = timedelta(days=2, hours=6, minutes=5)
    assert window_text(window) == "2 d 6 h 5 min"
    with speaking("de"):
        assert window_text(window) == "2 T. 6 Std. 5 Min."


# -- a close speaks the duel's language --------------------------------------------------


async def test_a_german_duels_round_is_closed_in_german_by_an_english_caller(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules are asked at the close inside the duel's language, whoever closes the
    round, and what the close stores and posts is in it (when the rulesets' own texts are
    German, the published round is)."""
    services = Services.create(database, DuelSettings(close_when_all_submitted=True))
    asked_in: list[str] = []
    adjudicate = rounds.adjudicate

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked_in.append(current_language())
        return adjudicate(*args, **kwargs)

    monkeypatch.setattr(rounds, "adjudicate", spy)
    await _german_server(services)
    duel_id = await _start(services)
    await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    with speaking("en"):  # the duellists' own language: English
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
        )
        receipt = await services.duels.submit_move(
            user_id=BOB.user_id, move="evade", via="slash", duel_id=duel_id
        )
        assert current_language() == "en"
    assert receipt.closed is not None
    assert asked_in == ["de"]
    (posted,) = await outbox_rows(database, kind="round_result")
    assert posted.language == "de"
    # A service-built text of the close in the duel's language: its status in the view.
    assert receipt.closed.duel.language == "de"
    with speaking(receipt.closed.duel.language):
        assert receipt.closed.duel.live_text.startswith("läuft")


# -- a challenge speaks the server's language --------------------------------------------


async def test_a_challenge_posts_and_starts_its_duel_in_the_servers_language(
    services: Services, database: Database
) -> None:
    king, duke = MemberRef(11, "King"), MemberRef(12, "Duke")
    await services.profiles.set_sheet(GUILD, COMMANDER, king, "by-this-axe", {"character": "hero"})
    await services.profiles.set_sheet(
        GUILD, COMMANDER, duke, "by-this-axe", {"character": "champion", "leader": True}
    )

    async def challenge(accepted: bool) -> ChallengeOutcome:
        return await services.duels.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            actor_id=COMMANDER,
            challenger=king,
            challenged=duke,
            inputs={"accepted": accepted, "contact": False},
            guild_locale="de",  # no /config language: the server's preferred locale
        )

    refused = await challenge(False)
    fought = await challenge(True)
    assert refused.duel is None and refused.language == "de"
    assert fought.duel is not None and fought.duel.language == "de"
    assert await _stored_language(database, fought.duel.id) == "de"
    posts = await outbox_rows(database, kind="challenge")
    assert [post.language for post in posts] == ["de", "de"]


async def test_remember_many_stores_the_changed_members_in_one_transaction(
    services: Services, database: Database
) -> None:
    languages = services.languages
    heard = {900 + n: ("de" if n % 2 else "en-US") for n in range(20)}
    remembered = await languages.remember_many(heard)
    assert remembered == {u: ("de" if (u - 900) % 2 else "en") for u in heard}
    async with database.transaction() as session:
        stored = await queries.member_languages(session, list(heard))
    assert stored == remembered
    # a member never heard from is read once, then known to have nothing stored
    assert await languages.language_of(999_999) is None
    assert 999_999 in languages._never_heard
    await languages.remember(999_999, "de")
    assert await languages.language_of(999_999) == "de"
