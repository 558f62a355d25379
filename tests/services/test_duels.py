"""DuelService: start, open, submit, status, close, history, end, undo; every refusal path."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import AuditEntry, Duel, Round, Submission, utcnow
from bot.i18n.context import speaking
from bot.rules.dice import derive_roll
from bot.rules.rule_2_14.moves import MOVE_IDS
from bot.services.container import Services
from bot.services.errors import (
    AmbiguousDuel,
    InvalidInput,
    MoveAlreadyLocked,
    NotFound,
    RoundNotOpen,
    StateConflict,
)
from bot.services.published import Sides
from bot.services.views import MemberRef
from tests.services.helpers import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    COMMANDER,
    DAVE,
    GUILD,
    audit_rows,
    count,
    duel_with_round,
    give_stats,
    mentions_a_move,
    new_duel,
    outbox_rows,
    sha256_hex,
    submissions,
    walk,
)


async def _open(services: Services, duel_id: int, **kw: object) -> None:
    await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER, **kw)  # type: ignore[arg-type]


async def _close(services: Services, duel_id: int) -> None:
    await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)


async def _round(db: Database, duel_id: int, number: int) -> Round:
    async with db.transaction() as s:
        stmt = select(Round).where(Round.duel_id == duel_id, Round.number == number)
        return (await s.execute(stmt)).scalar_one()


async def _duel_row(db: Database, duel_id: int) -> Duel:
    async with db.transaction() as s:
        row = await s.get(Duel, duel_id)
        assert row is not None
        return row


# -- start -------------------------------------------------------------------------------


async def test_start_duel_snapshots_stats(services: Services, database: Database) -> None:
    await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 12, 8)
    await services.profiles.set_stats(GUILD, COMMANDER, BOB, 6, 14)
    duel = await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=BOB
    )
    assert (duel.a.sheet, duel.b.sheet) == ({"str": 12, "agi": 8}, {"str": 6, "agi": 14})
    assert (duel.status, duel.winner, duel.notes, duel.rounds_played) == ("live", None, (), 0)
    assert duel.open_round is None
    await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 1, 1)
    again = await services.duels.get_duel(duel.id, GUILD)
    assert again.a.sheet == {"str": 12, "agi": 8}
    row = await _duel_row(database, duel.id)
    assert row.state["a"] == {"name": "Alice", "str": 12, "agi": 8}
    audit = await audit_rows(database, "duel.start")
    assert len(audit) == 1 and audit[0].duel_id == duel.id and audit[0].actor_id == COMMANDER


async def test_start_needs_both_stats_naming_who(services: Services, database: Database) -> None:
    with pytest.raises(NotFound, match="Alice has no stats"):
        await new_duel(services, stats=False)
    await give_stats(services, ALICE)
    with pytest.raises(NotFound, match="Bob has no stats") as err:
        await new_duel(services, stats=False)
    assert "Alice" not in err.value.message
    assert await count(database, Duel) == 0


async def test_cannot_duel_oneself(services: Services, database: Database) -> None:
    await give_stats(services, ALICE)
    with pytest.raises(InvalidInput, match="themselves"):
        await services.duels.start_duel(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=ALICE
        )
    assert await count(database, Duel) == 0


async def test_several_duels_per_server_and_per_duellist(services: Services) -> None:
    await give_stats(services, ALICE, BOB, CAROL, DAVE)
    ab = await new_duel(services, ALICE, BOB, stats=False)
    ac = await new_duel(services, ALICE, CAROL, stats=False)
    ab2 = await new_duel(services, ALICE, BOB, stats=False)
    cd = await new_duel(services, CAROL, DAVE, stats=False)
    assert len({ab.id, ac.id, ab2.id, cd.id}) == 4
    listed = await services.duels.list_duels(GUILD)
    assert {d.id for d in listed} == {ab.id, ac.id, ab2.id, cd.id}
    for d in (ab, ac, ab2, cd):
        await _open(services, d.id)
    assert {o.duel_id for o in await services.duels.open_rounds_for_user(ALICE.user_id)} == {
        ab.id,
        ac.id,
        ab2.id,
    }


async def test_unknown_duel_and_wrong_server(services: Services) -> None:
    duel = await new_duel(services)
    with pytest.raises(NotFound, match="#999"):
        await services.duels.get_duel(999, GUILD)
    with pytest.raises(NotFound):
        await services.duels.open_round(duel_id=duel.id, guild_id=GUILD + 1, actor_id=COMMANDER)


# -- open --------------------------------------------------------------------------------


async def test_open_round_commitment_and_outbox(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    deadline = utcnow() + timedelta(hours=36)
    opened = await services.duels.open_round(
        duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, deadline=deadline
    )
    assert opened.round_no == 1
    assert opened.deadline == deadline
    rnd = await _round(database, duel.id, 1)
    assert rnd.status == "open" and rnd.commitment == opened.commitment
    assert sha256_hex(rnd.seed) == opened.commitment
    assert rnd.seed not in repr(opened)
    posts = [p for p in await outbox_rows(database) if p.kind != "duel_start"]
    assert sorted((p.kind, p.target, p.target_id) for p in posts) == sorted(
        [
            ("round_open", "channel", CHANNEL),
            ("round_dm", "user", ALICE.user_id),
            ("round_dm", "user", BOB.user_id),
        ]
    )
    for p in posts:
        assert p.status == "pending" and p.duel_id == duel.id
        assert p.payload["commitment"] == opened.commitment
        assert rnd.seed not in repr(p.payload)
        # A DM prompt lists the legal moves (its buttons); nothing else may name a move.
        legal = p.payload.get("moves", [])
        assert p.kind == "round_dm" or not legal
        assert not mentions_a_move({k: v for k, v in p.payload.items() if k != "moves"})
    # After the close (both moved: before its deadline a round closes only then) the
    # stored seed still matches what was published.
    for user in (ALICE, BOB):
        await services.duels.submit_move(
            user_id=user.user_id, move="evade", via="slash", duel_id=duel.id
        )
    await _close(services, duel.id)
    closed = await _round(database, duel.id, 1)
    assert sha256_hex(closed.seed) == opened.commitment


async def test_open_round_refusals(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    with pytest.raises(InvalidInput, match="future"):
        await _open(services, duel.id, deadline=utcnow() - timedelta(seconds=1))
    assert await count(database, Round) == 0
    assert await outbox_rows(database, kind="round_open") == []
    await _open(services, duel.id)
    with pytest.raises(StateConflict, match="still open"):
        await _open(services, duel.id)
    assert await count(database, Round) == 1
    await _close(services, duel.id)
    await _open(services, duel.id)  # round 2 once round 1 is closed
    assert (await _round(database, duel.id, 2)).status == "open"
    await services.duels.end_duel(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="x")
    with pytest.raises(StateConflict, match="ended"):
        await _open(services, duel.id)
    assert await count(database, Round) == 2


async def test_each_round_gets_a_new_seed(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    await _close(services, duel_id)
    await _open(services, duel_id)
    r1, r2 = await _round(database, duel_id, 1), await _round(database, duel_id, 2)
    assert r1.seed != r2.seed and r1.commitment != r2.commitment


# -- submit ------------------------------------------------------------------------------


async def test_only_a_duellist_may_submit(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    # Another's duel is answered as a number that names no duel (issue 10: no oracle).
    with pytest.raises(NotFound, match=f"You have no duel #{duel_id}:"):
        await services.duels.submit_move(
            user_id=CAROL.user_id, move="evade", via="slash", duel_id=duel_id
        )
    assert await count(database, Submission) == 0


async def test_submit_only_while_open(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    with pytest.raises(RoundNotOpen, match="no open round"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="slash", duel_id=duel.id
        )
    with pytest.raises(NotFound, match="no open round"):
        await services.duels.submit_move(user_id=ALICE.user_id, move="evade", via="dm_text")
    await _open(services, duel.id)
    await _close(services, duel.id)
    with pytest.raises(RoundNotOpen):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="slash", duel_id=duel.id
        )
    assert await count(database, Submission) == 0


async def test_submission_after_close_is_refused_and_not_stored(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    await _close(services, duel_id)
    with pytest.raises(RoundNotOpen):
        await services.duels.submit_move(
            user_id=BOB.user_id, move="evade", via="dm_button", duel_id=duel_id
        )
    rows = await submissions(database)
    assert [(r.user_id, r.move) for r in rows] == [(ALICE.user_id, "full_frontal_strike")]


async def test_submit_refused_after_duel_ended(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.end_duel(
        duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER, reason="called off"
    )
    with pytest.raises(RoundNotOpen):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="ev", via="slash", duel_id=duel_id
        )
    assert await count(database, Submission) == 0


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("FFS", "full_frontal_strike"),
        ("  side swipe ", "side_swipe"),
        ("ss", "side_swipe"),
        ("Lock-Attempt", "lock_attempt"),
        ("la", "lock_attempt"),
        ("ev", "evade"),
        ("Evade", "evade"),
        ("flee", "retreat"),
    ],
)
async def test_free_text_short_forms(
    services: Services, database: Database, text: str, move: str
) -> None:
    duel_id = await duel_with_round(services)
    receipt = await services.duels.submit_move(user_id=BOB.user_id, move=text, via="dm_text")
    assert (receipt.duel_id, receipt.side, receipt.move, receipt.round_no) == (
        duel_id,
        "b",
        move,
        1,
    )
    assert receipt.opponent_name == "Alice" and receipt.changed_from is None
    [row] = await submissions(database)
    assert (row.move, row.via, row.side, row.user_id) == (move, "dm_text", "b", BOB.user_id)


async def test_unknown_move_and_channel_are_refused(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    with pytest.raises(InvalidInput, match="not a move"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="punch", via="slash", duel_id=duel_id
        )
    with pytest.raises(InvalidInput, match="channel"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="carrier pigeon", duel_id=duel_id
        )
    assert await count(database, Submission) == 0


async def test_variant_on_replaces_and_keeps_the_ledger(database: Database) -> None:
    services = Services.create(database, DuelSettings(change_of_choice=True))
    duel_id = await duel_with_round(services)
    first = await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="dm_text", duel_id=duel_id
    )
    assert first.changed_from is None
    second = await services.duels.submit_move(
        user_id=ALICE.user_id, move="evade", via="dm_button", duel_id=duel_id
    )
    assert (second.move, second.changed_from) == ("evade", "full_frontal_strike")
    rows = await submissions(database)
    assert [(r.move, r.via) for r in rows] == [
        ("full_frontal_strike", "dm_text"),
        ("evade", "dm_button"),
    ]
    assert rows[0].superseded_at is not None and rows[1].superseded_at is None
    # The close uses the latest choice.
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.result.choices == Sides("evade", None)


async def test_variant_on_via_admin_toggle(services: Services, database: Database) -> None:
    await services.settings.set_change_of_choice(GUILD, COMMANDER, True)
    duel_id = await duel_with_round(services)
    for move in ("ffs", "ss", "la"):
        await services.duels.submit_move(
            user_id=BOB.user_id, move=move, via="slash", duel_id=duel_id
        )
    rows = await submissions(database)
    assert len(rows) == 3 and [r.superseded_at is None for r in rows] == [False, False, True]


async def test_variant_off_refuses_the_second_naming_the_locked_move(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(user_id=ALICE.user_id, move="ss", via="slash", duel_id=duel_id)
    with pytest.raises(MoveAlreadyLocked, match="Side Swipe") as err:
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="slash", duel_id=duel_id
        )
    assert err.value.locked_move == "side_swipe"
    with pytest.raises(MoveAlreadyLocked):  # even the same move again
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="ss", via="dm_text", duel_id=duel_id
        )
    rows = await submissions(database)
    assert [(r.move, r.superseded_at) for r in rows] == [("side_swipe", None)]


async def test_ambiguous_duel_lists_the_duels(services: Services, database: Database) -> None:
    await give_stats(services, ALICE, BOB, CAROL)
    d1 = await new_duel(services, ALICE, BOB, stats=False)
    d2 = await new_duel(services, CAROL, ALICE, stats=False)
    await _open(services, d1.id)
    await _open(services, d2.id)
    with pytest.raises(AmbiguousDuel) as err:
        await services.duels.submit_move(user_id=ALICE.user_id, move="evade", via="dm_text")
    assert set(err.value.duel_ids) == {d1.id, d2.id}
    assert f"#{d1.id}" in err.value.message and f"#{d2.id}" in err.value.message
    assert await count(database, Submission) == 0
    # Naming the duel works; Bob (one open duel) needs no id.
    r = await services.duels.submit_move(
        user_id=ALICE.user_id, move="evade", via="dm_text", duel_id=d2.id
    )
    assert (r.duel_id, r.side) == (d2.id, "b")
    r = await services.duels.submit_move(user_id=BOB.user_id, move="ffs", via="dm_text")
    assert r.duel_id == d1.id


async def test_past_deadline_is_refused(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    await _open(services, duel.id, deadline=utcnow() + timedelta(hours=1))
    async with database.transaction() as s:
        rnd = (await s.execute(select(Round).where(Round.duel_id == duel.id))).scalar_one()
        rnd.deadline = utcnow() - timedelta(seconds=1)
    with pytest.raises(RoundNotOpen, match="deadline"):
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="evade", via="slash", duel_id=duel.id
        )
    assert await count(database, Submission) == 0


async def test_close_when_all_submitted(database: Database) -> None:
    services = Services.create(database, DuelSettings(close_when_all_submitted=True))
    duel_id = await duel_with_round(services)
    r = await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    assert r.closed is None
    r = await services.duels.submit_move(
        user_id=BOB.user_id, move="evade", via="slash", duel_id=duel_id
    )
    assert r.closed is not None and r.closed.reason == "all_submitted"
    assert r.closed.result.choices == Sides("full_frontal_strike", "evade")
    assert (await _round(database, duel_id, 1)).status == "closed"


# -- status ------------------------------------------------------------------------------


async def test_round_status_shows_who_never_what_or_when(services: Services) -> None:
    duel_id = await duel_with_round(services)
    status = await services.duels.round_status(duel_id, GUILD)
    assert status.is_open and status.round_no == 1 and status.submitted == {"a": False, "b": False}
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="full_frontal_strike", via="slash", duel_id=duel_id
    )
    status = await services.duels.round_status(duel_id, GUILD)
    assert status.submitted == {"a": True, "b": False}
    assert status.duel.open_round is not None
    assert status.duel.open_round.submitted == {"a": True, "b": False}
    assert not mentions_a_move(status)
    assert "submitted_at" not in list(walk(status))
    for value in (await services.duels.get_duel(duel_id), *await services.duels.list_duels(GUILD)):
        assert not mentions_a_move(value)
    history = await services.duels.history(duel_id, GUILD)
    assert not mentions_a_move(history)
    # The only datetimes shown are the duel's creation and the round's own times.
    await services.duels.submit_move(user_id=BOB.user_id, move="ss", via="slash", duel_id=duel_id)
    status = await services.duels.round_status(duel_id, GUILD)
    assert status.submitted == {"a": True, "b": True} and not mentions_a_move(status)
    assert status.deadline is None


async def test_round_status_without_open_round(services: Services) -> None:
    duel = await new_duel(services)
    status = await services.duels.round_status(duel.id, GUILD)
    assert (status.is_open, status.round_no, status.submitted) == (False, None, {})
    await _open(services, duel.id)
    await _close(services, duel.id)
    status = await services.duels.round_status(duel.id, GUILD)
    assert (status.is_open, status.round_no) == (False, 1)


# -- close -------------------------------------------------------------------------------


async def test_close_stores_result_reveals_seed_and_rolls_rederive(
    services: Services, database: Database
) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    await services.duels.submit_move(
        user_id=BOB.user_id, move="evade", via="dm_button", duel_id=duel_id
    )
    before = await services.duels.history(duel_id, GUILD)
    assert before.rounds[0].seed is None and before.rounds[0].result is None
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    rnd = await _round(database, duel_id, 1)
    assert rnd.status == "closed" and rnd.closed_by == COMMANDER and rnd.closed_at is not None
    assert rnd.result == closed.result.to_json() and rnd.outcome == closed.outcome
    assert closed.seed == rnd.seed and sha256_hex(closed.seed) == closed.commitment
    assert closed.result.via == Sides("slash", "dm_button")
    rolls = closed.result.rolls
    assert len(rolls) == 2
    for roll in rolls:
        assert roll.value == derive_roll(bytes.fromhex(rnd.seed), roll.label, roll.sides)
    history = await services.duels.history(duel_id, GUILD)
    [record] = history.rounds
    assert record.seed == rnd.seed and record.result is not None
    assert record.result.to_json() == rnd.result  # stored as the codec writes it
    [post] = await outbox_rows(database, kind="round_result")
    assert post.target == "channel" and post.target_id == CHANNEL
    assert post.payload["seed"] == rnd.seed and post.payload["result"] == rnd.result
    duel = await _duel_row(database, duel_id)
    assert duel.rounds_played == 1 and duel.state == closed.result.state
    assert len(await audit_rows(database, "round.close")) == 1


async def test_close_updates_winner_and_end(database: Database) -> None:
    services = Services.create(database, DuelSettings(missing_move="forfeit"))
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(user_id=BOB.user_id, move="ev", via="slash", duel_id=duel_id)
    closed = await services.duels.close_round(
        duel_id=duel_id, guild_id=GUILD, actor_id=None, reason="deadline"
    )
    assert closed.outcome == "b_wins" and closed.duel.winner == "b"
    assert closed.duel.status == "ended" and closed.duel.winner_name == "Bob"
    duel = await _duel_row(database, duel_id)
    assert (duel.status, duel.winner) == ("ended", "b") and duel.ended_at is not None
    # Stored as the round's code (issue 28), read in plain words in the reader's language
    # (issue 24: never the code): the round and the ruleset's sentence.
    assert duel.end_reason == "round 1: b_wins", duel.end_reason
    assert closed.duel.end_reason == "round 1: Bob wins the duel", closed.duel.end_reason
    with speaking("de"):
        german = await services.duels.get_duel(duel_id, GUILD)
    assert german.end_reason is not None and german.end_reason.startswith("Runde 1: ")
    [post] = await outbox_rows(database, kind="round_result")
    assert post.on_behalf_of == COMMANDER  # the opener, since the scheduler closed it
    with pytest.raises(StateConflict):
        await _open(services, duel_id)


async def test_close_both_retreat_ends_duel(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    for user in (ALICE, BOB):
        await services.duels.submit_move(
            user_id=user.user_id, move="retreat", via="slash", duel_id=duel_id
        )
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.outcome == "both_retreat" and closed.duel.status == "ended"


async def test_lock_is_stored_in_the_duels_state(services: Services, database: Database) -> None:
    # Two Full Frontal Strikes always lock (rule 2.14).
    duel_id = await duel_with_round(services)
    for user in (ALICE, BOB):
        await services.duels.submit_move(
            user_id=user.user_id, move="ffs", via="slash", duel_id=duel_id
        )
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.outcome == "locked" and closed.duel.notes == ("locked in combat",)
    duel = await _duel_row(database, duel_id)
    assert duel.status == "live" and duel.winner is None
    assert duel.state["locked"] is True  # the one place the lock is kept (migration 0007)
    # /duel status reads it there, through rule 2.14's status notes
    assert (await services.duels.get_duel(duel_id)).notes == ("locked in combat",)


async def test_close_refusals(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    with pytest.raises(RoundNotOpen):
        await _close(services, duel.id)
    await _open(services, duel.id)
    with pytest.raises(RoundNotOpen):
        await services.duels.close_round(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, round_no=2
        )
    await _close(services, duel.id)
    with pytest.raises(RoundNotOpen):
        await _close(services, duel.id)
    assert len(await outbox_rows(database, kind="round_result")) == 1


async def test_history_hides_open_round(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    await _close(services, duel_id)
    await _open(services, duel_id)
    history = await services.duels.history(duel_id, GUILD)
    r1, r2 = history.rounds
    assert r1.seed is not None and r1.result is not None and r1.outcome is not None
    assert r2.status == "open" and r2.seed is None and r2.result is None
    stored = await _round(database, duel_id, 2)
    assert stored.seed not in repr(history)
    assert r2.commitment == stored.commitment


# -- end ---------------------------------------------------------------------------------


async def test_end_duel(services: Services, database: Database) -> None:
    duel_id = await duel_with_round(services)
    await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    view = await services.duels.end_duel(
        duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER, reason="  both   players left "
    )
    assert view.status == "ended" and view.end_reason == "both players left"
    rnd = await _round(database, duel_id, 1)
    assert rnd.status == "cancelled" and rnd.result is None
    [post] = await outbox_rows(database, kind="duel_end")
    assert post.payload["reason"] == "both players left" and post.payload["cancelled_round"] == 1
    assert not mentions_a_move(post.payload)
    [audit] = await audit_rows(database, "duel.end")
    assert audit.details == {"reason": "both players left"} and audit.actor_id == COMMANDER
    history = await services.duels.history(duel_id, GUILD)
    assert history.rounds[0].result is None
    with pytest.raises(StateConflict, match="already ended"):
        await services.duels.end_duel(
            duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER, reason="again"
        )


@pytest.mark.parametrize("reason", ["", "   ", "x" * 301])
async def test_end_duel_reason_required_and_bounded(
    services: Services, database: Database, reason: str
) -> None:
    duel = await new_duel(services)
    with pytest.raises(InvalidInput, match="reason"):
        await services.duels.end_duel(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason=reason
        )
    assert (await _duel_row(database, duel.id)).status == "live"
    assert await outbox_rows(database, kind="duel_end") == []
    ok = await services.duels.end_duel(
        duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="y" * 300
    )
    assert ok.status == "ended"


# -- undo --------------------------------------------------------------------------------


async def test_undo_restores_state_and_keeps_the_undone_result(database: Database) -> None:
    services = Services.create(database, DuelSettings(missing_move="forfeit"))
    duel_id = await duel_with_round(services)
    before = await _duel_row(database, duel_id)
    await services.duels.submit_move(user_id=ALICE.user_id, move="ss", via="slash", duel_id=duel_id)
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    assert closed.duel.status == "ended" and closed.duel.winner == "a"
    view = await services.duels.undo_round(
        duel_id=duel_id, guild_id=GUILD, actor_id=77, reason="misclick"
    )
    assert (view.status, view.winner, view.notes, view.rounds_played) == ("live", None, (), 0)
    after = await _duel_row(database, duel_id)
    assert after.state == before.state and after.ended_at is None and after.end_reason is None
    rnd = await _round(database, duel_id, 1)
    assert rnd.status == "undone" and rnd.undone_by == 77 and rnd.result == closed.result.to_json()
    [audit] = await audit_rows(database, "round.undo")
    assert audit.actor_id == 77 and audit.details["undone_outcome"] == "a_wins"
    assert len(await outbox_rows(database, kind="round_undone")) == 1
    history = await services.duels.history(duel_id, GUILD)
    assert history.rounds[0].status == "undone" and history.rounds[0].result == closed.result
    # Play resumes with round 2; nothing left to undo after undoing (the latest round is
    # undone already; the rounds before it are settled).
    with pytest.raises(StateConflict, match="already undone"):
        await services.duels.undo_round(
            duel_id=duel_id, guild_id=GUILD, actor_id=77, reason="misclick"
        )
    await _open(services, duel_id)
    assert (await _round(database, duel_id, 2)).status == "open"


async def test_undo_refusals(services: Services, database: Database) -> None:
    duel = await new_duel(services)
    with pytest.raises(StateConflict, match="no closed round"):
        await services.duels.undo_round(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="misclick"
        )
    await _open(services, duel.id)
    with pytest.raises(StateConflict, match="no closed round"):
        await services.duels.undo_round(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="misclick"
        )
    await _close(services, duel.id)
    await services.duels.end_duel(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="r")
    with pytest.raises(StateConflict, match="ended by a commander"):
        await services.duels.undo_round(
            duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="misclick"
        )
    assert (await _round(database, duel.id, 1)).status == "closed"
    assert await audit_rows(database, "round.undo") == []
    assert await count(database, AuditEntry) > 0


async def test_views_are_plain_data(services: Services) -> None:
    duel_id = await duel_with_round(services)
    receipt = await services.duels.submit_move(
        user_id=ALICE.user_id, move="ffs", via="slash", duel_id=duel_id
    )
    closed = await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
    for value in (receipt, closed, await services.duels.history(duel_id)):
        for leaf in walk(value):
            assert type(leaf).__module__ in ("builtins", "datetime"), type(leaf)


def test_member_ref_is_hashable() -> None:
    assert MemberRef(1, "x") == MemberRef(1, "x")
    assert len(MOVE_IDS) == 5
