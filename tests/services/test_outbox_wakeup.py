"""The unit of work tells the poster about new posts after its commit (issue 12): no call
site has to remember to wake it."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.db.models import OutboxPost, utcnow
from bot.services.container import Services
from bot.services.errors import DomainError
from tests.services.helpers import (
    ALICE,
    BOB,
    CAROL,
    COMMANDER,
    DAVE,
    GUILD,
    give_stats,
    new_duel,
)


class Wakes:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


async def test_every_service_write_of_a_post_wakes_once_after_commit(
    services: Services, database: Database
) -> None:
    wakes = Wakes()
    services.outbox.on_written(wakes)
    await give_stats(services, ALICE, BOB)
    assert wakes.count == 0  # a profile change queues no post
    duel = await new_duel(services, stats=False)
    assert wakes.count == 1  # duel_start
    await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    assert wakes.count == 2  # round_open and both DMs: one commit, one wake
    await services.duels.submit_move(user_id=ALICE.user_id, move="evade", via="slash")
    assert wakes.count == 2  # a move queues nothing
    await services.duels.close_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    assert wakes.count == 3  # round_result
    await services.duels.history(duel.id, guild_id=GUILD)
    assert wakes.count == 3  # reads never wake


async def test_a_rolled_back_post_wakes_nobody(services: Services, database: Database) -> None:
    wakes = Wakes()
    services.outbox.on_written(wakes)
    duel = await new_duel(services)
    await services.duels.end_duel(
        duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="done"
    )
    assert wakes.count == 2
    with pytest.raises(DomainError):  # already ended: refused, rolled back
        await services.duels.end_duel(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="again"
        )
    assert wakes.count == 2

    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        async with database.transaction() as session:
            session.add(
                OutboxPost(
                    dedupe_key="rolled-back",
                    kind="duel_end",
                    target="channel",
                    target_id=1,
                    payload={},
                    status="pending",
                    attempts=0,
                    next_attempt_at=utcnow(),
                )
            )
            await session.flush()
            raise Boom
    assert wakes.count == 2


async def test_a_failing_listener_neither_loses_the_post_nor_stops_the_others(
    services: Services, database: Database
) -> None:
    def broken() -> None:
        raise RuntimeError("listener bug")

    wakes = Wakes()
    services.outbox.on_written(broken)
    stop = services.outbox.on_written(wakes)
    await new_duel(services)
    assert wakes.count == 1
    assert await services.outbox.pending_count() == 1
    stop()
    await new_duel(services, CAROL, DAVE)
    assert wakes.count == 1  # stopped
    assert await services.outbox.pending_count() == 2
