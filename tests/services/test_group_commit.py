"""Group commit of moves (issue 14, bot/services/move_intake.py): moves that arrive together
share one transaction, each is answered only after that transaction committed, a refusal
in a batch leaves the other moves of it alone, and a failed commit acknowledges none."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.services import Services
from bot.services.errors import InvalidInput, MoveAlreadyLocked, Unavailable
from bot.services.views import MemberRef
from tests.services.helpers import (
    ALICE,
    BOB,
    COMMANDER,
    GUILD,
    duel_with_round,
    give_stats,
    submissions,
)


async def test_moves_arriving_together_share_a_commit(
    services: Services, database: Database
) -> None:
    pairs = [(MemberRef(500 + 2 * i, f"A{i}"), MemberRef(501 + 2 * i, f"B{i}")) for i in range(10)]
    await give_stats(services, *(m for pair in pairs for m in pair))
    duel_ids = [await duel_with_round(services, a, b) for a, b in pairs]
    batcher = services.duels._group_commit()
    before = batcher.batches
    receipts = await asyncio.gather(
        *(
            services.duels.submit_move(user_id=m.user_id, move="ev", via="dm_button", duel_id=d)
            for d, pair in zip(duel_ids, pairs, strict=True)
            for m in pair
        )
    )
    assert [r.move for r in receipts] == ["evade"] * 20
    assert {(r.duel_id, r.side) for r in receipts} == {(d, s) for d in duel_ids for s in "ab"}
    assert len(await submissions(database)) == 20
    assert batcher.batched_moves >= 20
    assert batcher.batches - before < 20  # some moves shared a transaction


async def test_a_refusal_in_a_batch_leaves_the_others(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    results = await asyncio.gather(
        # change of choice is off: Alice's second move is refused, with its details
        services.duels.submit_move(user_id=ALICE.user_id, move="ss", via="dm_text"),
        services.duels.submit_move(user_id=BOB.user_id, move="nonsense", via="dm_text"),
        services.duels.submit_move(
            user_id=BOB.user_id, move="ffs", via="dm_button", duel_id=duel_id
        ),
        return_exceptions=True,
    )
    assert isinstance(results[0], MoveAlreadyLocked) and results[0].duel_id == duel_id
    assert isinstance(results[1], InvalidInput)
    assert not isinstance(results[2], BaseException) and results[2].move == "full_frontal_strike"
    stored = sorted((s.side, s.move) for s in await submissions(database))
    assert stored == [("a", "evade"), ("b", "full_frontal_strike")]
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.result["choices"] == {"a": "evade", "b": "full_frontal_strike"}


async def test_a_failed_commit_acknowledges_no_move(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = Services.create(database, DuelSettings())
    await duel_with_round(services)
    real_commit = Connection._commit_impl

    def failing(self: Connection) -> Any:
        raise OperationalError("COMMIT", {}, Exception("disk I/O error"))

    monkeypatch.setattr(Connection, "_commit_impl", failing)
    results = await asyncio.gather(
        services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text"),
        services.duels.submit_move(user_id=BOB.user_id, move="ev", via="dm_text"),
        return_exceptions=True,
    )
    monkeypatch.setattr(Connection, "_commit_impl", real_commit)
    assert all(isinstance(r, Unavailable) for r in results), results
    assert await submissions(database) == []
    # and the next moves go through
    receipt = await services.duels.submit_move(user_id=ALICE.user_id, move="ev", via="dm_text")
    assert receipt.move == "evade" and len(await submissions(database)) == 1
