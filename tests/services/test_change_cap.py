"""Changes of move per round and side are capped (issue 10, class 8): at the cap the change
is refused with a typed error naming the author's current move, and nothing is stored."""

from __future__ import annotations

import asyncio

import pytest

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.services.container import Services
from bot.services.errors import TooManyChanges
from tests.services.helpers import ALICE, BOB, duel_with_round, submissions

MOVES = ("evade", "side_swipe", "full_frontal_strike", "lock_attempt", "retreat")


async def test_change_cap_refuses_the_change_past_the_cap(database: Database) -> None:
    services = Services.create(database, DuelSettings(change_of_choice=True, max_move_changes=3))
    duel_id = await duel_with_round(services)
    # The first move and three changes are stored.
    for i in range(4):
        receipt = await services.duels.submit_move(
            user_id=ALICE.user_id, move=MOVES[i], via="dm_text", duel_id=duel_id
        )
        assert receipt.move == MOVES[i]
    before = await submissions(database)
    assert len(before) == 4
    with pytest.raises(TooManyChanges) as refused:
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="retreat", via="dm_text", duel_id=duel_id
        )
    assert refused.value.message == (
        f"You have changed your move 3 times in round 1 of duel #{duel_id}, the most allowed; "
        "your current move stays Lock Attempt."
    )
    assert refused.value.changes == 3 and refused.value.current_move == "lock_attempt"
    after = await submissions(database)
    assert [(s.id, s.move, s.superseded_at) for s in after] == [
        (s.id, s.move, s.superseded_at) for s in before
    ]
    current = [s for s in after if s.superseded_at is None]
    assert [(s.side, s.move) for s in current] == [("a", "lock_attempt")]
    # The other side has its own count, and the refused side's move still counts at the close.
    for move in MOVES[:4]:
        await services.duels.submit_move(
            user_id=BOB.user_id, move=move, via="slash", duel_id=duel_id
        )
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=None, actor_id=None)
    assert closed.round_no == 1


async def test_change_cap_counts_per_round(database: Database) -> None:
    services = Services.create(database, DuelSettings(change_of_choice=True, max_move_changes=1))
    duel_id = await duel_with_round(services)
    for move in ("side_swipe", "evade"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move=move, via="dm_text", duel_id=duel_id
        )
    with pytest.raises(TooManyChanges):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="retreat", via="dm_button", duel_id=duel_id, round_no=1
        )
    await services.duels.close_round(duel_id=duel_id, guild_id=None, actor_id=None)
    await services.duels.open_round(duel_id=duel_id, guild_id=1000, actor_id=9)
    # A new round starts a new count.
    for move in ("side_swipe", "evade"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move=move, via="dm_text", duel_id=duel_id
        )


async def test_default_cap_is_ten_changes(database: Database) -> None:
    services = Services.create(database, DuelSettings(change_of_choice=True))
    duel_id = await duel_with_round(services)
    for i in range(11):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move=MOVES[i % 5], via="dm_text", duel_id=duel_id
        )
    with pytest.raises(TooManyChanges, match="changed your move 10 times in round 1"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="dm_text", duel_id=duel_id
        )
    assert len(await submissions(database)) == 11


async def test_concurrent_changes_stop_at_the_cap(database: Database) -> None:
    services = Services.create(database, DuelSettings(change_of_choice=True, max_move_changes=10))
    duel_id = await duel_with_round(services)
    results = await asyncio.gather(
        *(
            services.duels.submit_move(
                user_id=ALICE.user_id, move=MOVES[i % 5], via="slash", duel_id=duel_id
            )
            for i in range(20)
        ),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 9 and all(isinstance(r, TooManyChanges) for r in refused)
    rows = await submissions(database)
    assert len(rows) == 11
    assert len([r for r in rows if r.superseded_at is None]) == 1
