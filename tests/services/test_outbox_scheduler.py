"""Outbox (claim, post, fail with backoff, leases, DMs closed) and the scheduler."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select, update

from bot.db.engine import Database
from bot.db.models import OutboxPost, Round, utcnow
from bot.services.container import Services
from bot.services.outbox import MAX_ATTEMPTS, backoff
from tests.services.helpers import (
    ALICE,
    BOB,
    CHANNEL,
    COMMANDER,
    GUILD,
    audit_rows,
    duel_with_round,
    new_duel,
    outbox_rows,
)


async def _enqueue(database: Database, n: int, kind: str = "test") -> list[int]:
    async with database.transaction() as s:
        rows = [
            OutboxPost(
                dedupe_key=f"{kind}:{i}",
                guild_id=GUILD,
                kind=kind,
                target="channel",
                target_id=CHANNEL,
                payload={"i": i},
                status="pending",
                attempts=0,
                next_attempt_at=utcnow(),
            )
            for i in range(n)
        ]
        s.add_all(rows)
        await s.flush()
        return [r.id for r in rows]


async def _row(database: Database, post_id: int) -> OutboxPost:
    async with database.transaction() as s:
        row = await s.get(OutboxPost, post_id)
        assert row is not None
        return row


async def test_claim_post_and_never_again(services: Services, database: Database) -> None:
    ids = await _enqueue(database, 3)
    claimed = await services.outbox.claim("w1", limit=10)
    assert [c.id for c in claimed] == ids
    assert all(c.attempts == 1 and c.kind == "test" for c in claimed)
    row = await _row(database, ids[0])
    assert row.claimed_by == "w1" and row.claimed_until is not None
    assert await services.outbox.claim("w2") == []  # leased
    await services.outbox.mark_posted(ids[0], 4242)
    await services.outbox.mark_posted(ids[0], 9999)  # idempotent
    row = await _row(database, ids[0])
    assert (row.status, row.posted_message_id, row.claimed_by) == ("posted", 4242, None)
    assert row.posted_at is not None
    assert await services.outbox.pending_count() == 2


async def test_claim_respects_limit_and_order(services: Services, database: Database) -> None:
    ids = await _enqueue(database, 7)
    first = await services.outbox.claim("w", limit=3)
    second = await services.outbox.claim("w", limit=3)
    third = await services.outbox.claim("w", limit=3)
    assert [c.id for c in first + second + third] == ids


async def test_mark_failed_backs_off_then_retries(services: Services, database: Database) -> None:
    [post_id] = await _enqueue(database, 1)
    [item] = await services.outbox.claim("w")
    before = utcnow()
    assert await services.outbox.mark_failed(item.id, "HTTP 500") is True
    row = await _row(database, post_id)
    assert row.status == "pending" and row.last_error == "HTTP 500" and row.claimed_by is None
    wait = row.next_attempt_at - before
    assert backoff(1) - timedelta(seconds=1) <= wait <= backoff(1) + timedelta(seconds=1)
    assert await services.outbox.claim("w") == []  # not due yet
    async with database.transaction() as s:
        await s.execute(update(OutboxPost).values(next_attempt_at=utcnow() - timedelta(seconds=1)))
    [again] = await services.outbox.claim("w")
    assert again.id == post_id and again.attempts == 2
    assert await services.outbox.mark_failed(post_id, "HTTP 500") is True
    assert (await _row(database, post_id)).next_attempt_at - utcnow() > backoff(1)


def test_backoff_grows_and_caps() -> None:
    values = [backoff(n) for n in range(1, 15)]
    assert values == sorted(values)
    assert values[0] == timedelta(seconds=2) and values[-1] == timedelta(minutes=10)


async def test_mark_failed_permanent_and_max_attempts(
    services: Services, database: Database
) -> None:
    a, b = await _enqueue(database, 2)
    await services.outbox.claim("w")
    assert await services.outbox.mark_failed(a, "403 Missing Access", permanent=True) is False
    assert (await _row(database, a)).status == "failed"
    async with database.transaction() as s:
        await s.execute(update(OutboxPost).where(OutboxPost.id == b).values(attempts=MAX_ATTEMPTS))
    assert await services.outbox.mark_failed(b, "HTTP 500") is False
    assert (await _row(database, b)).status == "failed"
    assert await services.outbox.mark_failed(b, "again") is False  # no longer pending
    assert await services.outbox.claim("w") == []


async def test_expired_lease_is_claimed_again(services: Services, database: Database) -> None:
    [post_id] = await _enqueue(database, 1)
    [item] = await services.outbox.claim("dead-worker")
    assert await services.outbox.claim("w2") == []
    async with database.transaction() as s:
        await s.execute(update(OutboxPost).values(claimed_until=utcnow() - timedelta(seconds=1)))
    [again] = await services.outbox.claim("w2")
    assert again.id == item.id and again.attempts == 2
    assert (await _row(database, post_id)).claimed_by == "w2"


async def test_concurrent_claimers_never_share_a_post(
    database: Database, make_db: Callable[..., Database]
) -> None:
    ids = set(await _enqueue(database, 60))
    workers = [Services.create(database).outbox, Services.create(make_db()).outbox]
    got: dict[str, list[int]] = {}

    async def work(name: str, index: int) -> None:
        outbox = workers[index % 2]
        mine = got.setdefault(name, [])
        while True:
            items = await outbox.claim(name, limit=3)
            if not items:
                return
            mine.extend(i.id for i in items)
            await asyncio.sleep(0)

    await asyncio.gather(*(work(f"w{i}", i) for i in range(6)))
    claimed = [post for posts in got.values() for post in posts]
    assert len(claimed) == len(set(claimed)) == 60
    assert set(claimed) == ids
    async with database.transaction() as s:
        attempts = (await s.execute(select(OutboxPost.attempts))).scalars().all()
    assert set(attempts) == {1}


async def test_mark_dm_closed_tells_the_channel(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    dms = await outbox_rows(database, kind="round_dm")
    alice_dm = next(p for p in dms if p.target_id == ALICE.user_id)
    await services.outbox.mark_dm_closed(alice_dm.id)
    row = await _row(database, alice_dm.id)
    assert row.status == "failed" and row.last_error is not None and "50007" in row.last_error
    [notice] = await outbox_rows(database, kind="dm_closed")
    assert (notice.target, notice.target_id, notice.status) == ("channel", CHANNEL, "pending")
    assert notice.payload == {
        "version": 1, "duel_id": duel_id, "round_no": 1, "user_id": ALICE.user_id
    }
    [audit] = await audit_rows(database, "dm.closed")
    assert audit.details["user_id"] == ALICE.user_id
    await services.outbox.mark_dm_closed(alice_dm.id)  # already failed: nothing more
    assert len(await outbox_rows(database, kind="dm_closed")) == 1


async def test_second_closed_dm_in_a_round_does_not_crash(
    services: Services, database: Database
) -> None:
    """The round DM and then the reminder to the same duellist both bounce (50007)."""
    duel_id = await new_duel(services)
    await services.duels.open_round(
        duel_id=duel_id.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(minutes=30),
    )
    assert await services.scheduler.enqueue_due_reminders([timedelta(hours=1)]) == 2
    bounced = [
        p
        for p in await outbox_rows(database)
        if p.kind in ("round_dm", "reminder_dm") and p.target_id == BOB.user_id
    ]
    assert len(bounced) == 2
    for post in bounced:
        await services.outbox.mark_dm_closed(post.id)
    for post in bounced:
        assert (await _row(database, post.id)).status == "failed"
    assert len(await outbox_rows(database, kind="dm_closed")) == 1


# -- scheduler ---------------------------------------------------------------------------


async def _set_deadline(database: Database, duel_id: int, when: object) -> None:
    async with database.transaction() as s:
        await s.execute(
            update(Round)
            .where(Round.duel_id == duel_id, Round.status == "open")
            .values(deadline=when)
        )


async def test_due_closes(services: Services, database: Database) -> None:
    due = await duel_with_round(services)
    later = await duel_with_round(services)
    never = await duel_with_round(services)
    closed = await duel_with_round(services)
    await _set_deadline(database, due, utcnow() - timedelta(seconds=5))
    await _set_deadline(database, later, utcnow() + timedelta(hours=1))
    await _set_deadline(database, closed, utcnow() - timedelta(seconds=9))
    await services.duels.close_round(duel_id=closed, guild_id=GUILD, actor_id=COMMANDER)
    found = await services.scheduler.due_closes()
    assert [(d.duel_id, d.round_no) for d in found] == [(due, 1)]
    assert never not in {d.duel_id for d in found}
    next_in = await services.scheduler.next_deadline_in()
    assert next_in is not None and next_in < timedelta(0)
    await services.duels.close_round(duel_id=due, guild_id=GUILD, actor_id=None, reason="deadline")
    assert await services.scheduler.due_closes() == []
    next_in = await services.scheduler.next_deadline_in()
    assert next_in is not None and timedelta(minutes=59) < next_in <= timedelta(hours=1)


async def test_reminders_only_to_who_has_not_moved_and_never_twice(
    services: Services, database: Database
) -> None:
    duel = await new_duel(services)
    await services.duels.open_round(
        duel_id=duel.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(hours=3),
    )
    offsets = [timedelta(hours=24), timedelta(hours=1)]
    await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="slash", duel_id=duel.id)
    assert await services.scheduler.enqueue_due_reminders(offsets) == 1
    [reminder] = await outbox_rows(database, kind="reminder_dm")
    assert (reminder.target, reminder.target_id) == ("user", BOB.user_id)
    assert reminder.payload["opponent"] == "Alice" and reminder.payload["round_no"] == 1
    # The reminder offers the legal moves (its buttons) but never names the one Alice sent.
    sealed = {k: v for k, v in reminder.payload.items() if k != "moves"}
    assert "evade" not in str(sealed)
    assert {m["id"] for m in reminder.payload["moves"]} >= {"evade", "side_swipe"}
    assert await services.scheduler.enqueue_due_reminders(offsets) == 0  # never twice
    # One hour before the deadline the 1h reminder is due, once.
    await _set_deadline(database, duel.id, utcnow() + timedelta(minutes=50))
    assert await services.scheduler.enqueue_due_reminders(offsets) == 1
    assert await services.scheduler.enqueue_due_reminders(offsets) == 0
    reminders = await outbox_rows(database, kind="reminder_dm")
    assert [r.target_id for r in reminders] == [BOB.user_id, BOB.user_id]
    assert len({r.dedupe_key for r in reminders}) == 2


async def test_reminders_skip_rounds_without_deadline_or_closed(
    services: Services, database: Database
) -> None:
    await duel_with_round(services)  # no deadline
    closed = await new_duel(services)
    await services.duels.open_round(
        duel_id=closed.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(minutes=10),
    )
    # Both move, so the commander may close before the deadline (issue 23).
    for user in (ALICE, BOB):
        await services.duels.submit_move(
            user_id=user.user_id, move="evade", via="slash", duel_id=closed.id
        )
    await services.duels.close_round(duel_id=closed.id, guild_id=GUILD, actor_id=COMMANDER)
    assert await services.scheduler.enqueue_due_reminders([timedelta(hours=1)]) == 0
    assert await services.scheduler.enqueue_due_reminders([]) == 0
    assert await outbox_rows(database, kind="reminder_dm") == []


async def test_concurrent_reminder_runs_send_once(
    database: Database, make_db: Callable[..., Database]
) -> None:
    one, two = Services.create(database), Services.create(make_db())
    duel = await new_duel(one)
    await one.duels.open_round(
        duel_id=duel.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(minutes=5),
    )
    offsets = [timedelta(hours=1)]
    counts = await asyncio.gather(
        *(svc.scheduler.enqueue_due_reminders(offsets) for svc in (one, two, one, two))
    )
    assert sum(counts) == 2
    assert len(await outbox_rows(database, kind="reminder_dm")) == 2


async def test_a_close_queues_the_edit_of_every_dm_with_buttons_of_that_round(
    services: Services, database: Database
) -> None:
    """Written in the close's own transaction: per duellist, one buttons_closed row, due a
    moment after the result; delivered, it finds that round's prompt and reminders to them
    (never another round's DMs)."""
    duel = await new_duel(services)
    await services.duels.open_round(
        duel_id=duel.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(minutes=50),
    )
    assert await services.scheduler.enqueue_due_reminders([timedelta(hours=1)]) == 2
    assert await outbox_rows(database, kind="buttons_closed") == []
    await services.duels.close_round(
        duel_id=duel.id, guild_id=GUILD, actor_id=None, reason="deadline"
    )
    dms = [p for p in await outbox_rows(database) if p.kind in ("round_dm", "reminder_dm")]
    [result] = await outbox_rows(database, kind="round_result")
    edits = await outbox_rows(database, kind="buttons_closed")
    assert sorted((e.target_id, e.payload["side"]) for e in edits) == sorted(
        [(ALICE.user_id, "a"), (BOB.user_id, "b")]
    )
    for edit in edits:
        assert edit.next_attempt_at > result.next_attempt_at  # the result goes out first
        assert edit.payload["round_no"] == 1 and edit.payload["reason"] == "closed"
        found = await services.outbox.button_messages(
            edit.payload["round_id"], edit.payload["side"]
        )
        theirs = sorted(p.id for p in dms if p.target_id == edit.target_id)
        assert len(theirs) == 2 and [m.post_id for m in found] == theirs
        assert all(m.message_id is None and not m.in_flight for m in found)  # not posted
    # Round 2 opens; its close finds round 2's prompts only.
    await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    await services.duels.close_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    first_ids = {e.id for e in edits}
    all_edits = await outbox_rows(database, kind="buttons_closed")
    second = [e for e in all_edits if e.id not in first_ids]
    earlier = {p.id for p in dms}
    assert len(second) == 2
    for edit in second:
        found = await services.outbox.button_messages(
            edit.payload["round_id"], edit.payload["side"]
        )
        assert len(found) == 1 and found[0].post_id not in earlier


async def test_any_due_tells_what_a_claim_would_find_and_changes_nothing(
    services: Services, database: Database
) -> None:
    """The poster's idle look (issue 27): true exactly when ``claim`` would take a post
    (pending, due, not held under a live lease), and it claims nothing itself."""
    assert not await services.outbox.any_due()
    (first,) = await _enqueue(database, 1)
    assert await services.outbox.any_due()
    assert await services.outbox.any_due()  # looking twice claims nothing
    row = await _row(database, first)
    assert row.attempts == 0 and row.claimed_by is None
    claimed = await services.outbox.claim("w1", limit=10)
    assert [c.id for c in claimed] == [first]
    assert not await services.outbox.any_due()  # held under its lease
    await services.outbox.mark_failed(first, "boom")  # retried later, after its backoff
    assert not await services.outbox.any_due()
    async with database.transaction() as s:
        await s.execute(
            update(OutboxPost)
            .where(OutboxPost.id == first)
            .values(next_attempt_at=utcnow() - timedelta(seconds=1))
        )
    assert await services.outbox.any_due()
    await services.outbox.mark_posted(first, 123)
    assert not await services.outbox.any_due()
