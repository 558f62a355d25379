"""Races: exactly-once close, no lost submissions, a submission racing the close.

On SQLite transactions are serialised (BEGIN IMMEDIATE, one connection); on PostgreSQL the
services rely on row locks, and the close race is also run across two engines ("processes").
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.util import await_

from bot.config import DuelSettings
from bot.db import queries
from bot.db.engine import Database
from bot.db.models import Duel, Round, Submission
from bot.services.container import Services
from bot.services.errors import RoundNotOpen
from bot.services.published import Sides
from bot.services.views import MemberRef, RoundClosed
from tests.services.helpers import (
    ALICE,
    BOB,
    CHANNEL,
    COMMANDER,
    GUILD,
    duel_with_round,
    give_stats,
    outbox_rows,
    submissions,
)


def _split(results: list[Any]) -> tuple[list[RoundClosed], list[BaseException]]:
    won = [r for r in results if isinstance(r, RoundClosed)]
    lost = [r for r in results if isinstance(r, BaseException)]
    return won, lost


async def test_fifty_concurrent_closes_close_once(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    results = await asyncio.gather(
        *(
            services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
            for _ in range(50)
        ),
        return_exceptions=True,
    )
    won, lost = _split(results)
    assert len(won) == 1 and len(lost) == 49
    assert all(isinstance(e, RoundNotOpen) for e in lost), {type(e) for e in lost}
    assert len(await outbox_rows(database, kind="round_result")) == 1
    async with database.transaction() as s:
        duel = await s.get(Duel, duel_id)
        assert duel is not None and duel.rounds_played == 1


async def test_close_race_across_two_engines(
    database: Database, make_db: Callable[..., Database], db_backend: str
) -> None:
    # Two engines = two processes: row locks on PostgreSQL, BEGIN IMMEDIATE on SQLite.
    one = Services.create(database)
    two = Services.create(make_db())
    duel_id = await duel_with_round(one)
    closes = [
        svc.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
        for svc in (one, two)
        for _ in range(25)
    ]
    random.shuffle(closes)
    won, lost = _split(await asyncio.gather(*closes, return_exceptions=True))
    assert len(won) == 1 and len(lost) == 49
    assert all(isinstance(e, RoundNotOpen) for e in lost)
    assert len(await outbox_rows(database, kind="round_result")) == 1


async def test_hundred_concurrent_submissions_across_fifty_duels(
    services: Services, database: Database
) -> None:
    pairs = [
        (MemberRef(1000 + 2 * i, f"A{i}"), MemberRef(1001 + 2 * i, f"B{i}")) for i in range(50)
    ]
    await give_stats(services, *(m for pair in pairs for m in pair))
    duel_ids = []
    for a, b in pairs:
        duel = await services.duels.start_duel(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=a, b=b
        )
        await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
        duel_ids.append(duel.id)
    calls = []
    for i, (duel_id, (a, b)) in enumerate(zip(duel_ids, pairs, strict=True)):
        # Half name the duel, half rely on it being the member's only open round.
        named = duel_id if i % 2 else None
        calls.append(
            services.duels.submit_move(user_id=a.user_id, move="ffs", via="slash", duel_id=named)
        )
        calls.append(
            services.duels.submit_move(user_id=b.user_id, move="ev", via="dm_text", duel_id=named)
        )
    random.shuffle(calls)
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert not [r for r in results if isinstance(r, BaseException)]
    rows = await submissions(database)
    assert len(rows) == 100
    for duel_id in duel_ids:
        status = await services.duels.round_status(duel_id, GUILD)
        assert status.submitted == {"a": True, "b": True}
    closed = await asyncio.gather(
        *(
            services.duels.close_round(duel_id=d, guild_id=GUILD, actor_id=COMMANDER)
            for d in duel_ids
        )
    )
    assert all(c.result.choices == Sides("full_frontal_strike", "evade") for c in closed)


async def test_concurrent_changes_of_choice_keep_one_current(database: Database) -> None:
    # Room for every change: the cap has its own race test (tests/services/test_change_cap.py).
    services = Services.create(database, DuelSettings(change_of_choice=True, max_move_changes=19))
    duel_id = await duel_with_round(services)
    moves = ["ffs", "ss", "la", "ev", "flee"] * 4
    await asyncio.gather(
        *(
            services.duels.submit_move(user_id=ALICE.user_id, move=m, via="slash", duel_id=duel_id)
            for m in moves
        )
    )
    rows = await submissions(database)
    assert len(rows) == 20
    assert len([r for r in rows if r.superseded_at is None]) == 1


async def test_variant_off_concurrent_duplicates_keep_one(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    results = await asyncio.gather(
        *(
            services.duels.submit_move(user_id=BOB.user_id, move=m, via="slash", duel_id=duel_id)
            for m in ["ffs", "ss", "la", "ev"] * 5
        ),
        return_exceptions=True,
    )
    assert len([r for r in results if not isinstance(r, BaseException)]) == 1
    assert len(await submissions(database)) == 1


async def test_submission_racing_the_close_is_used_or_refused(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    rng = random.Random(2024)
    stored_and_used = refused = 0
    for round_no in range(1, 31):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="ss", via="slash", duel_id=duel_id
        )

        async def submit(delay: float) -> Any:
            await asyncio.sleep(delay)
            return await services.duels.submit_move(
                user_id=BOB.user_id, move="ev", via="dm_text", duel_id=duel_id
            )

        async def close(delay: float) -> RoundClosed:
            await asyncio.sleep(delay)
            return await services.duels.close_round(
                duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER
            )

        sub, closed = await asyncio.gather(
            submit(rng.random() * 0.004),
            close(rng.random() * 0.004),
            return_exceptions=True,
        )
        assert isinstance(closed, RoundClosed), closed
        assert closed.round_no == round_no
        async with database.transaction() as s:
            rnd = (
                await s.execute(
                    select(Round).where(Round.duel_id == duel_id, Round.number == round_no)
                )
            ).scalar_one()
            bob_rows = list(
                (
                    await s.execute(
                        select(Submission).where(
                            Submission.round_id == rnd.id, Submission.side == "b"
                        )
                    )
                ).scalars()
            )
        if isinstance(sub, BaseException):
            assert isinstance(sub, RoundNotOpen), sub
            assert bob_rows == []
            assert closed.result.choices.b is None
            refused += 1
        else:
            assert len(bob_rows) == 1
            assert closed.result.choices.b == "evade"
            stored_and_used += 1
        await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert stored_and_used + refused == 30


async def test_a_dm_move_locks_its_round_before_a_close_can_take_it(
    database: Database,
    make_db: Callable[..., Database],
    db_backend: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A move without a duel id finds the sender's open round WITH its row locks, so a close
    racing it waits, and the move is in the result (never stored in a round that closed
    without it)."""
    if db_backend != "postgres":
        pytest.skip("SQLite serialises whole transactions (BEGIN IMMEDIATE)")
    services = Services.create(database, DuelSettings())
    other = Services.create(make_db(), DuelSettings())
    duel_id = await duel_with_round(services)
    looked_up, go_on = asyncio.Event(), asyncio.Event()
    original = queries.move_targets  # the move's one read of its duel and round

    def paused(conn: Any, **where: Any) -> Any:
        found = original(conn, **where)
        looked_up.set()
        # the step is sync (Work.run); on PostgreSQL it runs in run_sync's greenlet, where
        # SQLAlchemy's await_ waits on the event loop
        await_(go_on.wait())
        return found

    monkeypatch.setattr(queries, "move_targets", paused)
    move = asyncio.create_task(
        services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    )
    await looked_up.wait()
    monkeypatch.setattr(queries, "move_targets", original)
    closing = asyncio.create_task(
        other.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    )
    await asyncio.sleep(0.3)
    assert not closing.done(), "the close did not wait for the move's row locks"
    go_on.set()
    receipt = await move
    closed = await closing
    assert receipt.round_no == 1 and closed.round_no == 1
    assert closed.result.choices.a == "evade"
