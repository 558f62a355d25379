"""The outbox poster, driven through the real bot against the fake Discord."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import insert

from bot.config import WorkerSettings
from bot.db.engine import Database, DatabaseUnavailable
from bot.db.models import OutboxPost, utcnow
from bot.rules.rule_2_14.moves import LABELS, MOVES
from bot.services.views import MemberRef
from tests.discord.workers_support import (
    COMMANDER_NICK,
    World,
    eventually,
    fake_server,
    running_bot,
)
from tests.fakediscord import FakeDiscord, FakeMessage

WEBHOOKS = "/channels/{channel_id}/webhooks"
EXECUTE = "/webhooks/{webhook_id}/{token}"
BOT_POST = "/channels/{channel_id}/messages"


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with fake_server() as server:
        yield server


def text_of(message: FakeMessage) -> str:
    """Everything visible in a message: content and every embed part."""
    parts = [message.content]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [(embed.get("author") or {}).get("name") or ""]
        parts += [(embed.get("footer") or {}).get("text") or ""]
        for f in embed.get("fields") or []:
            parts += [f.get("name") or "", f.get("value") or ""]
    return "\n".join(parts)


async def played_round(world: World) -> tuple[int, int]:
    """A duel with one round opened, both moved, closed by the commander."""
    duel = await world.start_duel()
    round_no = await world.open_round(duel.id)
    await world.move(world.alice, duel.id, "full_frontal_strike")
    await world.move(world.bob, duel.id, "evade")
    await world.close(duel.id)
    return duel.id, round_no


async def test_result_posted_via_webhook_as_the_commander(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        duel_id, _ = await played_round(world)
        [result] = await world.posted("round_result")
        assert result.status == "posted"
        await world.posted("duel_start")
        [opened] = await world.posted("round_open")

        messages = {m.id: m for m in fake.messages_in(world.channel_id)}
        posted = messages[result.posted_message_id]
        # through the channel's webhook, as the commander (server nickname and avatar)
        assert posted.webhook_id is not None
        assert posted.username == COMMANDER_NICK
        assert posted.avatar_url
        text = text_of(posted)
        assert "Full Frontal Strike" in text and "Evade" in text
        assert re.search(r"DICE-?\d+ = \*\*\d+\*\*", text)
        # the fairness data in short, with where to find it in full (issue 26)
        assert re.search(r"seed [0-9a-f]{8}\.\.\.[0-9a-f]{8}", text) and "/duel history" in text
        assert f"duelbot post #{result.id}" in text

        # the round-open post carries the commitment, never a move
        open_text = text_of(messages[opened.posted_message_id])
        assert opened.payload["commitment"] in open_text
        assert "<t:" not in open_text or opened.payload["deadline"] is not None

        # one webhook for the channel, created once and reused for every post
        assert len(fake.requests_to("POST", WEBHOOKS)) == 1
        assert len(fake.webhooks) == 1
        hook = next(iter(fake.webhooks.values()))
        assert hook.name == "duelbot"
        assert await world.services.outbox.get_webhook(world.channel_id) is not None
        assert {m.webhook_id for m in messages.values() if m.webhook_id} == {hook.id}
        # the commander's member record was fetched over REST (no members intent)
        assert fake.requests_to("GET", f"/guilds/{world.guild_id}/members/{world.commander.id}")
        assert duel_id


async def test_fallback_embed_when_webhooks_are_forbidden(
    fake: FakeDiscord, database: Database
) -> None:
    fake.fail_next("POST", WEBHOOKS, 403, times=None, code=50013, message="Missing Permissions")
    async with running_bot(fake, database) as world:
        await played_round(world)
        [result] = await world.posted("round_result")
        assert result.status == "posted"
        [posted] = [
            m for m in fake.messages_in(world.channel_id) if m.id == result.posted_message_id
        ]
        assert posted.webhook_id is None
        assert posted.author.id == fake.bot_user.id
        assert f"on behalf of {COMMANDER_NICK}" in text_of(posted)
        assert "Full Frontal Strike" in text_of(posted)
        # bot messages carry the post's nonce (discord.py sends it with enforce_nonce)
        bodies = [r.json for r in fake.requests_to("POST", BOT_POST) if isinstance(r.json, dict)]
        nonces = {b.get("nonce") for b in bodies}
        assert f"duelbot:{result.id}" in nonces
        assert all(b.get("enforce_nonce") is True for b in bodies)
        assert all(len(str(n)) <= 25 for n in nonces)
        assert not fake.webhooks


async def test_a_channel_full_of_webhooks_gets_the_post_as_the_bot(
    fake: FakeDiscord, database: Database
) -> None:
    # Discord allows 15 webhooks per channel; the 16th is refused with 400 / 30007.
    fake.expect_limit_refusals = True
    async with running_bot(fake, database) as world:
        for i in range(15):
            fake.add_webhook(world.channel_id, f"someone else's hook {i}")
        await world.start_duel()
        [start] = await world.posted("duel_start")
        assert start.status == "posted"
        messages = fake.messages_in(world.channel_id)
        [posted] = [m for m in messages if m.id == start.posted_message_id]
        assert posted.webhook_id is None and posted.author.id == fake.bot_user.id
        [create] = fake.requests_to("POST", WEBHOOKS)
        assert create.status == 400 and create.response["code"] == 30007
        assert len([h for h in fake.webhooks.values() if h.channel_id == world.channel_id]) == 15
        [refusal] = fake.limit_refusals
        assert "30007" in refusal


async def test_round_dm_has_one_button_per_move(
    fake: FakeDiscord, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        deadline = utcnow() + timedelta(hours=36)
        round_no = await world.open_round(duel.id, deadline=deadline)
        for user, opponent in ((world.alice, "Bob"), (world.bob, "Alice")):
            [dm] = await fake.wait_for_dms(user.id, timeout=15)
            assert dm.custom_ids() == [
                f"duelbot:move:{duel.id}:{round_no}:{spec.id}" for spec in MOVES
            ]
            labels = [c.get("label") for row in dm.components for c in row.get("components", [])]
            assert labels == [spec.label for spec in MOVES]
            text = text_of(dm)
            unix = int(deadline.timestamp())
            assert f"<t:{unix}:R>" in text and f"<t:{unix}:f>" in text
            assert opponent in text and f"#{duel.id}" in text and f"round {round_no}" in text
        await world.posted("round_dm", count=2)

        # the buttons work: a click records the move, read once from its custom_id by the
        # intake: discord.py was given no view to dispatch it to (its dynamic-item dispatch
        # would rebuild the message's components, then log the item it cannot make)
        [dm] = fake.dms_to(world.alice.id)
        await fake.click_button(world.alice.id, dm, f"duelbot:move:{duel.id}:{round_no}:evade")

        async def moved() -> bool:
            status = await world.services.duels.round_status(duel.id)
            return status.submitted.get("a", False)

        await eventually(moved, 10, "alice's button move")
        assert list(world.bot.persistent_views) == []
        assert [r.getMessage() for r in caplog.records if r.name.startswith("discord.ui")] == []


async def test_closed_dms_post_a_notice_and_an_audit_row(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        fake.block_dms(world.bob.id)
        duel = await world.start_duel()
        await world.open_round(duel.id)
        [notice_row] = await world.posted("dm_closed")
        assert notice_row.status == "posted"
        rows = {r.target_id: r for r in await world.outbox(kind="round_dm")}
        assert rows[world.bob.id].status == "failed"
        assert "50007" in (rows[world.bob.id].last_error or "")
        assert rows[world.alice.id].status == "posted"

        [notice] = [
            m for m in fake.messages_in(world.channel_id) if m.id == notice_row.posted_message_id
        ]
        text = text_of(notice)
        assert f"<@{world.bob.id}>" in notice.content
        assert f"/move duel:{duel.id} move:" in text
        assert "DM" in text or "direct message" in text
        # nothing about any move (nor the alice side) is revealed
        for label in LABELS.values():
            assert label not in text
        assert str(world.alice.id) not in text

        [entry] = await world.audit("dm.closed")
        assert entry.details["user_id"] == world.bob.id
        assert entry.duel_id == duel.id


async def test_rest_500_then_success_posts_exactly_once(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        [start] = await world.posted("duel_start")
        fake.fail_next("POST", EXECUTE, 500, times=1)
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open", timeout=30)
        assert opened.status == "posted"
        assert len(world.with_marker(world.channel_id, opened.id)) == 1
        statuses = [r.status for r in fake.requests_to("POST", EXECUTE)]
        assert statuses.count(500) == 1
        assert start.status == "posted"


async def test_rate_limit_with_retry_after_posts_exactly_once(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        await world.posted("duel_start")
        fake.rate_limit_next("POST", EXECUTE, retry_after=0.3, times=1)
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open", timeout=30)
        assert opened.status == "posted"
        assert len(world.with_marker(world.channel_id, opened.id)) == 1
        assert 429 in [r.status for r in fake.requests_to("POST", EXECUTE)]


async def test_raised_429_is_retried_by_the_poster_once(
    fake: FakeDiscord, database: Database
) -> None:
    """A 429 that discord.py raises (no Via: a Cloudflare-style block) goes through the
    poster's own backoff; the retry checks for an earlier landing and posts once."""
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        await world.posted("duel_start")
        fake.rate_limit_next("POST", EXECUTE, retry_after=0.1, times=1, via=False)
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open", timeout=30)
        assert opened.status == "posted"
        assert opened.attempts == 2
        assert len(world.with_marker(world.channel_id, opened.id)) == 1


async def test_a_post_whose_earlier_attempt_landed_is_not_posted_again(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database) as world:
        await world.start_duel()
        [start] = await world.posted("duel_start")
        first_id = start.posted_message_id
        executes = len(fake.requests_to("POST", EXECUTE))
        # As if the worker died after Discord accepted the post but before it was recorded.
        await world.set_outbox(
            start.id,
            status="pending",
            attempts=1,
            posted_message_id=None,
            posted_at=None,
            claimed_by=None,
            claimed_until=None,
            next_attempt_at=utcnow(),
        )
        world.wake()
        [again] = await world.posted("duel_start")
        assert again.status == "posted"
        assert again.attempts == 2
        assert again.posted_message_id == first_id
        assert len(world.with_marker(world.channel_id, start.id)) == 1
        assert len(fake.requests_to("POST", EXECUTE)) == executes
        assert fake.requests_to("GET", BOT_POST)  # it looked at the channel's history
        # ...which shows webhook messages blank (no MESSAGE_CONTENT intent): the candidate
        # was read again through the webhook's own token, where its marker shows.
        assert not fake.message_content_intent
        reads = fake.requests_to("GET", "/webhooks/{webhook_id}/{token}/messages/{message_id}")
        assert [r.path.rsplit("/", 1)[1] for r in reads] == [str(first_id)]


async def test_a_deleted_webhook_is_recreated(fake: FakeDiscord, database: Database) -> None:
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        await world.posted("duel_start")
        fake.webhooks.clear()  # someone deleted it in the channel settings
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open")
        assert opened.status == "posted"
        assert len(fake.requests_to("POST", WEBHOOKS)) == 2
        [hook] = fake.webhooks.values()
        stored = await world.services.outbox.get_webhook(world.channel_id)
        assert stored is not None and stored.webhook_id == hook.id


async def test_thread_per_duel_posts_into_the_thread(fake: FakeDiscord, database: Database) -> None:
    from bot.config import DuelSettings

    async with running_bot(fake, database, duels=DuelSettings(thread_per_duel=True)) as world:
        duel = await world.start_duel()
        [start] = await world.posted("duel_start")
        view = await world.services.duels.get_duel(duel.id)
        assert view.thread_id is not None
        thread = fake.channels[view.thread_id]
        assert thread.name == f"Duel #{duel.id}: Alice vs Bob"
        assert thread.parent_id == world.channel_id
        await world.open_round(duel.id)
        [opened] = await world.posted("round_open")
        assert opened.target_id == view.thread_id
        [message] = world.with_marker(view.thread_id, opened.id)
        assert message.webhook_id is not None and message.username == COMMANDER_NICK
        assert start.status == "posted"


async def test_the_poster_survives_database_errors(
    fake: FakeDiscord, database: Database, monkeypatch: Any
) -> None:
    async with running_bot(fake, database) as world:
        outbox = world.services.outbox
        real_claim = outbox.claim
        failures = {"left": 2}

        async def flaky_claim(*args: Any, **kwargs: Any) -> Any:
            if failures["left"] > 0:
                failures["left"] -= 1
                raise DatabaseUnavailable("connection refused")
            return await real_claim(*args, **kwargs)

        monkeypatch.setattr(outbox, "claim", flaky_claim)
        await world.start_duel()
        [start] = await world.posted("duel_start", timeout=30)
        assert start.status == "posted"
        # At least one claim failed before the post went out (a claim already running when
        # the patch went in may take the row first, so the second failure is not certain).
        assert failures["left"] < 2
        await asyncio.sleep(0)


# -- pure rendering ---------------------------------------------------------------------


def _embed_total(embed: dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    return total + sum(len(f["name"]) + len(f["value"]) for f in embed.get("fields") or [])


def test_names_are_escaped_and_embeds_fit_discord_limits() -> None:
    from bot.presentation.discord_posts import render_post

    evil = "**@everyone** <@123456789012345678> _x_ `y`" + "z" * 300
    rolls = [
        {"label": f"r{i}", "sides": 6, "value": 3, "for": "a", "purpose": "evade"}
        for i in range(200)
    ]
    payload = {
        "duel_id": 7,
        "round_no": 3,
        "a": {"user_id": 1, "name": evil, "str": 5, "agi": 6},
        "b": {"user_id": 2, "name": "Bob", "str": 4, "agi": 7},
        "result": {
            "ruleset": "rule-2.14",
            "outcome": "a_wins",
            "winner": "a",
            "ended": True,
            "locked": False,
            "choices": {"a": "full_frontal_strike", "b": "evade"},
            "rolls": rolls,
            "log": [f"2.14: {evil} does something {i}" for i in range(100)],
            # a stored result always carries the duel state (the winner's name is read there)
            "state": {
                "a": {"name": evil, "str": 5, "agi": 6},
                "b": {"name": "Bob", "str": 4, "agi": 7},
                "locked": False,
            },
        },
        "winner_name": evil,
        "seed": "ab" * 32,
        "commitment": "cd" * 32,
        "reason": "commander",
        "ended": True,
    }
    rendered = render_post("round_result", payload, post_id=99, behalf=evil)
    [embed] = [e.to_dict() for e in rendered.embeds]
    assert _embed_total(embed) <= 6000
    assert len(embed["title"]) <= 256 and len(embed["fields"]) <= 25
    assert all(len(f["value"]) <= 1024 for f in embed["fields"])
    everything = str(embed) + (rendered.content or "")
    assert "@everyone" not in everything.replace("@\u200beveryone", "")
    assert "<@123456789012345678>" not in everything
    assert "\\*\\*" in embed["title"]  # Markdown escaped, not rendered
    assert "duelbot post #99" in embed["footer"]["text"]
    assert embed["author"]["name"].startswith("Posted on behalf of ")
    # however long the rest, the fairness data stays, shortened (in full in /duel history)
    assert "cdcdcdcd...cdcdcdcd" in embed["footer"]["text"]
    assert "abababab...abababab" in embed["footer"]["text"]

    for kind, extra in (
        ("duel_start", {"make_thread": False}),
        ("round_open", {"commitment": "c" * 64, "deadline": "2030-01-01T00:00:00+00:00"}),
        ("round_undone", {"outcome": "a_wins"}),
        ("duel_end", {"reason": evil, "cancelled_round": 2}),
        ("dm_closed", {"user_id": 5}),
        ("round_dm", {"side": "a", "deadline": None}),
        ("reminder_dm", {"side": "b", "opponent": evil, "deadline": None}),
    ):
        out = render_post(kind, {**payload, **extra}, post_id=1)
        text = str([e.to_dict() for e in out.embeds]) + (out.content or "")
        assert "<@123456789012345678>" not in text, kind
        assert "duelbot post #1" in text, kind
        assert all(_embed_total(e.to_dict()) <= 6000 for e in out.embeds), kind
    open_text = str(render_post("round_open", {**payload, "deadline": None}).embeds[0].to_dict())
    assert "send your move to the bot by DM" in open_text


async def test_a_post_written_by_any_service_wakes_the_poster(
    fake: FakeDiscord, database: Database
) -> None:
    """No call site wakes the poster by hand any more: the commit of a transaction that
    queued a post does (issue 12). With a poll of a minute, only that wake-up posts within
    seconds: a start, an open and a close called straight on the services, and a reminder
    queued by the scheduler."""
    slow = WorkerSettings(outbox_poll_seconds=60.0, scheduler_poll_seconds=60.0)
    async with running_bot(fake, database, workers=slow) as world:
        await eventually(lambda: world.bot.is_ready(), 10, "bot ready")
        await asyncio.sleep(0.3)  # the poster's first (empty) drain is over: it now sleeps
        services = world.services
        a, b = MemberRef(world.alice.id, "Alice"), MemberRef(world.bob.id, "Bob")
        for member in (a, b):
            await services.profiles.set_stats(world.guild_id, world.commander.id, member, 5, 6)
        duel = await services.duels.start_duel(
            guild_id=world.guild_id,
            channel_id=world.channel_id,
            actor_id=world.commander.id,
            a=a,
            b=b,
        )
        await world.posted("duel_start", timeout=5)
        await services.duels.open_round(
            duel_id=duel.id, guild_id=world.guild_id, actor_id=world.commander.id
        )
        await world.posted("round_open", timeout=5)
        await world.posted("round_dm", count=2, timeout=5)
        await services.duels.close_round(
            duel_id=duel.id, guild_id=world.guild_id, actor_id=world.commander.id
        )
        (result,) = await world.posted("round_result", timeout=5)
        assert result.status == "posted"


async def _queue_raw(world: World, kind: str, target: str, target_id: int, payload: Any) -> int:
    """An outbox row as another duelbot version (or an older one) wrote it."""
    async with world.db.transaction() as session:
        row = OutboxPost(
            dedupe_key=f"raw:{kind}:{target_id}:{len(str(payload))}",
            guild_id=world.guild_id,
            duel_id=None,
            kind=kind,
            target=target,
            target_id=target_id,
            on_behalf_of=None,
            payload=payload,
            status="pending",
            attempts=0,
            next_attempt_at=utcnow(),
        )
        session.add(row)
        await session.flush()
        return int(row.id)


async def test_rows_written_before_payloads_had_a_version_still_post(
    fake: FakeDiscord, database: Database
) -> None:
    """Old rows (no version, no ruleset, no listed moves) are read as version 1, leniently:
    the round DM gets the default ruleset's every move as buttons."""
    async with running_bot(fake, database) as world:
        duel = await world.start_duel()
        round_no = await world.open_round(duel.id)
        await world.posted("round_dm", count=2)
        before = len(fake.dms_to(world.alice.id))
        await _queue_raw(
            world,
            "round_dm",
            "user",
            world.alice.id,
            {
                "duel_id": duel.id,
                "round_no": round_no,
                "commitment": "c" * 64,
                "deadline": None,
                "a": {"user_id": world.alice.id, "name": "Alice"},
                "b": {"user_id": world.bob.id, "name": "Bob"},
                "side": "a",
                "channel_id": world.channel_id,
            },
        )
        await _queue_raw(
            world,
            "duel_end",
            "channel",
            world.channel_id,
            {
                "duel_id": 4242,
                "reason": "an old row",
                "a": {"user_id": world.alice.id, "name": "Old Alice"},
                "b": {"user_id": world.bob.id, "name": "Old Bob"},
            },
        )
        world.wake()
        await eventually(lambda: len(fake.dms_to(world.alice.id)) > before, 10, "old DM")
        dm = fake.dms_to(world.alice.id)[-1]
        assert "You are duelling **Bob**" in text_of(dm)
        assert dm.custom_ids() == [
            f"duelbot:move:{duel.id}:{round_no}:{spec.id}" for spec in MOVES
        ]
        end = await eventually(
            lambda: [m for m in fake.messages_in(world.channel_id) if "#4242" in text_of(m)],
            10,
            "old channel post",
        )
        assert "Duel #4242 has ended: Old Alice vs Old Bob" in text_of(end[0])


async def test_a_payload_this_duelbot_cannot_read_is_never_posted_and_says_why(
    fake: FakeDiscord, database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(fake, database) as world:
        await eventually(lambda: world.bot.is_ready(), 10, "bot ready")
        future = await _queue_raw(
            world,
            "dm_closed",
            "channel",
            world.channel_id,
            {"version": 2, "duel_id": 1, "round_no": 1, "user_id": world.alice.id},
        )
        unknown = await _queue_raw(world, "fanfare", "channel", world.channel_id, {})
        for post_id in (future, unknown):
            row = await eventually(
                lambda pid=post_id: _failed_row(world, pid), 10, f"post {post_id} given up"
            )
            assert row.attempts == 1 and "MessageFormatError" in (row.last_error or "")
        assert fake.messages_in(world.channel_id) == []
        errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert any("version 2" in e for e in errors) and any("fanfare" in e for e in errors)


async def _failed_row(world: World, post_id: int) -> OutboxPost | None:
    [row] = await world.outbox(id=post_id)
    return row if row.status == "failed" else None


async def test_an_idle_poll_only_looks_and_a_post_from_elsewhere_is_still_found(
    fake: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poll that only timed out reads first (``OutboxService.any_due``) and claims
    nothing when nothing is due (issue 27: an empty claim took SQLite's write lock every
    second). A post written where no commit wakes this process (another process: a Core
    INSERT here) is still found by the next poll and posted once."""
    quick = WorkerSettings(outbox_poll_seconds=0.05, scheduler_poll_seconds=60.0)
    async with running_bot(fake, database, workers=quick) as world:
        await eventually(lambda: world.bot.is_ready(), 10, "bot ready")
        outbox = world.services.outbox
        counts = {"claims": 0, "looks": 0}
        claim, any_due = outbox.claim, outbox.any_due

        async def counted_claim(*args: Any, **kwargs: Any) -> Any:
            counts["claims"] += 1
            return await claim(*args, **kwargs)

        async def counted_look() -> bool:
            counts["looks"] += 1
            return await any_due()

        monkeypatch.setattr(outbox, "claim", counted_claim)
        monkeypatch.setattr(outbox, "any_due", counted_look)
        await asyncio.sleep(0.6)
        assert counts["looks"] >= 5 and counts["claims"] == 0
        async with database.engine.begin() as conn:
            await conn.execute(
                insert(OutboxPost).values(
                    dedupe_key="elsewhere:1",
                    guild_id=world.guild_id,
                    kind="duel_end",
                    target="channel",
                    target_id=world.channel_id,
                    payload={
                        "duel_id": 4343,
                        "reason": "from another process",
                        "a": {"user_id": world.alice.id, "name": "Alice"},
                        "b": {"user_id": world.bob.id, "name": "Bob"},
                    },
                    status="pending",
                    attempts=0,
                    next_attempt_at=utcnow(),
                    created_at=utcnow(),
                )
            )
        posted = await eventually(
            lambda: [m for m in fake.messages_in(world.channel_id) if "#4343" in text_of(m)],
            10,
            "the post from elsewhere",
        )
        assert len(posted) == 1 and counts["claims"] >= 1
