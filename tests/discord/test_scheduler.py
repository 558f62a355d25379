"""The scheduler (auto-close at the deadline, reminders) and the heartbeat, driven through
the real bot against the fake Discord."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.config import DuelSettings
from bot.db.engine import Database, DatabaseUnavailable
from bot.db.models import utcnow
from bot.discord import health
from bot.rules.rule_2_14.moves import MOVES
from tests.discord.workers_support import eventually, fake_server, running_bot
from tests.fakediscord import FakeDiscord


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with fake_server() as server:
        yield server


def embed_text(message: Any) -> str:
    return "\n".join(
        f"{e.get('title') or ''}\n{e.get('description') or ''}" for e in message.embeds
    )


async def test_a_round_closes_itself_at_its_deadline_once(
    fake: FakeDiscord, database: Database
) -> None:
    async with running_bot(fake, database, duels=DuelSettings(reminders=())) as world:
        duel = await world.start_duel()
        # The service refuses past deadlines: open with one a moment ahead.
        round_no = await world.open_round(duel.id, deadline=utcnow() + timedelta(seconds=1.5))
        await world.move(world.alice, duel.id, "side_swipe")
        [result] = await world.posted("round_result", timeout=30)
        assert result.status == "posted"
        assert result.payload["reason"] == "deadline"
        assert result.payload["round_no"] == round_no
        assert result.payload["closed_by"] is None
        # posted on behalf of the commander who opened the round
        assert result.on_behalf_of == world.commander.id

        # More scheduler passes (the loop's and explicit ones, concurrently) change nothing.
        await asyncio.gather(*(world.scheduler.schedule_once() for _ in range(3)))
        world.wake_scheduler()
        await asyncio.sleep(0.6)
        assert len(await world.outbox(kind="round_result")) == 1
        assert len(world.with_marker(world.channel_id, result.id)) == 1
        status = await world.services.duels.round_status(duel.id)
        assert not status.is_open
        [entry] = await world.audit("round.close")
        assert entry.details["reason"] == "deadline"


async def test_no_auto_close_when_disabled(fake: FakeDiscord, database: Database) -> None:
    duels = DuelSettings(auto_close=False, reminders=())
    async with running_bot(fake, database, duels=duels) as world:
        duel = await world.start_duel()
        await world.open_round(duel.id, deadline=utcnow() + timedelta(seconds=0.5))
        await asyncio.sleep(1.5)
        world.wake_scheduler()
        await asyncio.sleep(0.5)
        assert await world.outbox(kind="round_result") == []
        assert (await world.services.duels.round_status(duel.id)).is_open


async def test_reminders_go_only_to_the_duellist_who_has_not_moved(
    fake: FakeDiscord, database: Database
) -> None:
    duels = DuelSettings(reminders=("1h",), auto_close=True)
    async with running_bot(fake, database, duels=duels) as world:
        duel = await world.start_duel()
        round_no = await world.open_round(duel.id, deadline=utcnow() + timedelta(hours=30))
        await world.posted("round_dm", count=2)
        await world.move(world.alice, duel.id, "evade")
        # The deadline draws near (moved directly in the database: no waiting an hour).
        deadline = utcnow() + timedelta(minutes=30)
        await world.set_deadline(duel.id, round_no, deadline)
        world.wake_scheduler()

        [reminder] = await world.posted("reminder_dm", timeout=20)
        assert reminder.status == "posted"
        assert reminder.target_id == world.bob.id
        dms = await fake.wait_for_dms(world.bob.id, count=2, timeout=15)
        text = embed_text(dms[-1])
        assert "Reminder" in text
        assert f"<t:{int(deadline.timestamp())}:R>" in text
        assert "Alice" in text
        assert dms[-1].custom_ids() == [
            f"duelbot:move:{duel.id}:{round_no}:{spec.id}" for spec in MOVES
        ]

        # Once per offset: later passes queue nothing more, and alice never hears of it.
        await world.scheduler.schedule_once()
        world.wake_scheduler()
        await asyncio.sleep(0.6)
        assert len(await world.outbox(kind="reminder_dm")) == 1
        assert len(fake.dms_to(world.alice.id)) == 1
        assert len(fake.dms_to(world.bob.id)) == 2


async def test_a_reminder_for_a_closed_round_is_not_sent(
    fake: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bot's own scheduler sends no reminders here: the test queues them itself.
    async with running_bot(fake, database, duels=DuelSettings(reminders=())) as world:
        duel = await world.start_duel()
        round_no = await world.open_round(duel.id, deadline=utcnow() + timedelta(hours=30))
        await world.posted("round_dm", count=2)
        await world.set_deadline(duel.id, round_no, utcnow() + timedelta(minutes=30))
        # Queue the reminders and close the round before the poster gets to them: the
        # commit wakes the poster at once, so it is held until the round has closed.
        gate = asyncio.Event()
        drain = world.poster.drain_once

        async def held(*, look_first: bool = False) -> float:
            await gate.wait()
            return await drain(look_first=look_first)

        monkeypatch.setattr(world.poster, "drain_once", held)
        queued = await world.services.scheduler.enqueue_due_reminders([timedelta(hours=1)])
        assert queued == 2
        # Both move, so a commander may close before the deadline (issue 23).
        await world.move(world.alice, duel.id, "evade")
        await world.move(world.bob, duel.id, "evade")
        await world.close(duel.id)
        gate.set()
        rows = await world.posted("reminder_dm", count=2)
        assert all(r.status == "posted" and r.posted_message_id is None for r in rows)
        assert len(fake.dms_to(world.alice.id)) == 1
        assert len(fake.dms_to(world.bob.id)) == 1


async def test_the_scheduler_survives_database_errors(
    fake: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_bot(fake, database, duels=DuelSettings(reminders=())) as world:
        scheduler = world.services.scheduler
        real = scheduler.due_closes
        failures = {"left": 2}

        async def flaky(*args: Any, **kwargs: Any) -> Any:
            if failures["left"] > 0:
                failures["left"] -= 1
                raise DatabaseUnavailable("database is locked")
            return await real(*args, **kwargs)

        monkeypatch.setattr(scheduler, "due_closes", flaky)
        duel = await world.start_duel()
        await world.open_round(duel.id, deadline=utcnow() + timedelta(seconds=1))
        [result] = await world.posted("round_result", timeout=30)
        assert result.status == "posted"
        assert failures["left"] == 0


async def test_heartbeat_while_connected(
    fake: FakeDiscord, database: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beat_file = tmp_path / "heartbeat"
    monkeypatch.setenv(health.ENV_VAR, str(beat_file))
    assert health.check() == 1  # nothing yet
    async with running_bot(fake, database):
        await eventually(beat_file.exists, 10, "the heartbeat file")
        assert health.check() == 0
    health.beat(beat_file, now=0.0)  # a beat from long ago
    assert health.check() == 1
