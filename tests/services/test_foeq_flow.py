"""A whole FoEQ spell duel through the services, step by step: secret setup, public
declarations, Style change offers, Strategic Twists, the Score. Only the awaited sides may
choose; every step closes as soon as they have and the next opens in the same transaction;
private notes go only to their duellist by DM; no secret reaches a channel post, a stored
public result or the history before the end; the sheets are updated at the end; a new
Services/Database object mid-duel carries on."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import Duel, Round
from bot.rules.dice import derive_roll
from bot.rules.foeq.tables import RULESET_ID as FOEQ
from bot.services.container import Services
from bot.services.errors import NotAllowed
from bot.services.published import Sides
from tests.services.helpers import (
    ALICE,
    BOB,
    CHANNEL,
    COMMANDER,
    GUILD,
    audit_rows,
    outbox_rows,
    submissions,
)

# Alice cannot lose a Sage Advice check (Arcana +40 against Bob's Deception -20 with
# advantage) nor the Shot (spell attack +40 against -20): every phase is reached whatever
# the dice, while the order of declarations and twists still comes from the dice.
ALICE_SHEET = {
    "initiative": 2,
    "spell_attack": 40,
    "arcana": 40,
    "hp_max": 20,
    "hit_dice": 3,
    "spell_slots": [2, 1],
    "schools": ["illusion"],
}
BOB_SHEET = {"spell_attack": -20, "deception": -20, "hp_max": 12, "hit_dice": 2}
USERS = {"a": ALICE.user_id, "b": BOB.user_id}
OTHER = {"a": "b", "b": "a"}


def choose(state: dict[str, Any], side: str) -> str:
    """Alice: true stake Pride, Style Quick then Overwhelming, level 1 slot; Sage Advice in
    every Stare round; rerolls her first Trick die; Illusion at the Score. Bob: true stake
    Death under a Pride public stake (dishonourable), Style Quick, cantrip; Bluff; rerolls
    Alice's first Trick die."""
    phase = state["phase"]
    if phase == "setup":
        return "pride quick level 1" if side == "a" else "stake: death, style: quick, cantrip"
    if phase in ("stare_first", "stare_second"):
        return "sage" if side == "a" else "bluff"
    if phase == "stare_style":
        return "change to overwhelming" if state["stare_round"] == 1 else "keep"
    if phase == "shot_twist":
        return "reroll trick 1"
    if phase == "score_choice":
        return "illusion"
    raise AssertionError(f"unexpected phase {phase}")


async def duel_row(db: Database, duel_id: int) -> Duel:
    async with db.transaction() as s:
        return (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()


async def rounds(db: Database, duel_id: int) -> list[Round]:
    async with db.transaction() as s:
        stmt = select(Round).where(Round.duel_id == duel_id).order_by(Round.number)
        return list((await s.execute(stmt)).scalars())


async def start(services: Services) -> int:
    await services.profiles.set_sheet(GUILD, COMMANDER, ALICE, FOEQ, ALICE_SHEET)
    await services.profiles.set_sheet(GUILD, COMMANDER, BOB, FOEQ, BOB_SHEET)
    duel = await services.duels.start_duel(
        guild_id=GUILD,
        channel_id=CHANNEL,
        actor_id=COMMANDER,
        a=ALICE,
        b=BOB,
        ruleset=FOEQ,
        params={"public_stake": "pride", "challenger": "a"},
    )
    await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    return duel.id


async def play(
    db: Database,
    services: Services,
    duel_id: int,
    *,
    stop: Callable[[dict[str, Any]], bool] = lambda state: False,
    phases: list[str],
    chooser: Callable[[dict[str, Any], str], str] = choose,
) -> None:
    """Submit for the awaited sides (and try the other side first) until the duel ends or
    ``stop(state)``."""
    for _ in range(20):
        duel = await duel_row(db, duel_id)
        state = duel.state
        if duel.status != "live" or stop(state):
            return
        awaiting = list(state["awaiting"])
        assert awaiting
        phases.append(state["phase"])
        open_no = (await rounds(db, duel_id))[-1].number
        # the round_dm rows of this step: only the awaited sides are prompted
        dms = [
            r.payload["side"]
            for r in await outbox_rows(db, kind="round_dm")
            if r.payload["round_no"] == open_no
        ]
        assert sorted(dms) == sorted(awaiting), (state["phase"], dms)
        # /move autocomplete: the awaited side's legal choices, nothing for the other
        for side in ("a", "b"):
            listed = await services.duels.choices_for(duel_id, USERS[side])
            assert bool(listed) == (side in awaiting)
        if len(awaiting) == 1:
            wrong = OTHER[awaiting[0]]
            before = len(await submissions(db))
            with pytest.raises(NotAllowed, match=f"not your turn to choose in duel #{duel_id}"):
                await services.duels.submit_move(
                    user_id=USERS[wrong], move=chooser(state, wrong), via="dm_text"
                )
            assert len(await submissions(db)) == before  # nothing stored
        for i, side in enumerate(awaiting):
            receipt = await services.duels.submit_move(
                user_id=USERS[side], move=chooser(state, side), via="dm_text", duel_id=duel_id
            )
            last = i == len(awaiting) - 1
            assert (receipt.closed is not None) is last  # auto-advance: the step closes
    raise AssertionError("the duel did not end in 20 steps")


def no_secret(value: Any, secrets: list[str]) -> None:
    # Bob's sheet has no spell slots: his public summary says "Spell slots: none
    # (cantrips)", a fact of the sheet shown on his card, not the slot he chose in secret.
    text = json.dumps(value).casefold().replace("none (cantrips)", "")
    for secret in secrets:
        assert secret.casefold() not in text, secret


async def test_a_whole_foeq_duel_through_the_services(
    database: Database, make_db: Callable[..., Database]
) -> None:
    services = Services.create(database, DuelSettings())
    duel_id = await start(services)
    phases: list[str] = []
    # Play up to the second Stare round, then carry on with a new Database and Services
    # (a restart): everything lives in the database.
    await play(database, services, duel_id, stop=lambda s: s["stare_round"] >= 2, phases=phases)
    mid = await duel_row(database, duel_id)
    assert mid.status == "live" and mid.state["stare_round"] == 2
    # while the duel runs: no secret in a channel post, a stored result or the history
    secrets = [
        "death", "cantrip", '"slot":', '"stake":', '"style":', '"notes"', "current Style:",
        "Your secret choices",
    ]
    for row in await outbox_rows(database, target="channel"):
        no_secret(row.payload, secrets)
    for rnd in await rounds(database, duel_id):
        if rnd.result is not None:
            no_secret(rnd.result, secrets)
            assert "stake" not in json.dumps(rnd.result["state"]["corners"])
    history = await services.duels.history(duel_id)
    for record in history.rounds:
        no_secret(None if record.result is None else record.result.to_json(), secrets)
    assert history.rounds[0].result is not None
    assert history.rounds[0].result.choices == Sides("secret", "secret")

    db2 = make_db()
    services2 = Services.create(db2, DuelSettings())
    await play(db2, services2, duel_id, phases=phases)

    # every phase was reached, and each step was one round
    assert phases[0] == "setup"
    for phase in ("stare_first", "stare_second", "stare_style", "shot_twist", "score_choice"):
        assert phase in phases
    assert phases.count("stare_style") == 3
    duel = await duel_row(db2, duel_id)
    assert duel.status == "ended" and duel.winner == "a"
    all_rounds = await rounds(db2, duel_id)
    assert [r.number for r in all_rounds] == list(range(1, len(phases) + 1))
    assert all(r.status == "closed" for r in all_rounds)
    # the last result reveals everything: the true stakes and the dishonour
    final = all_rounds[-1].result
    assert final is not None and final["ended"]
    log = "\n".join(final["log"])
    assert "dishonourable" in log and "Bob shot to kill" in log
    assert final["state"]["corners"]["b"]["stake"] == "death"
    for rnd in all_rounds:
        assert rnd.result is not None and rnd.seed is not None
        for roll in rnd.result["rolls"]:
            assert roll["label"].startswith(f"duel:{duel_id}:round:{rnd.number}:roll:")
            assert roll["value"] == derive_roll(
                bytes.fromhex(rnd.seed), roll["label"], roll["sides"]
            )
    # secret steps never show their choices, even at the end
    for rnd, phase in zip(all_rounds, phases, strict=True):
        assert rnd.result is not None
        if phase in ("setup", "stare_style"):
            assert set(rnd.result["choices"].values()) <= {"secret", None}

    # private notes: DMs to their duellist only, never in a channel post
    notes = await outbox_rows(db2, kind="private_note")
    assert notes
    texts: dict[str, list[str]] = {"a": [], "b": []}
    for row in notes:
        assert row.target == "user"
        assert row.target_id == USERS[row.payload["side"]]
        texts[row.payload["side"]] += row.payload["notes"]
    assert any("Your secret choices" in t for t in texts["a"])
    assert any("Your secret choices" in t for t in texts["b"])
    assert any("current Style: Quick" in t for t in texts["a"])  # Sage Advice won by 5+
    assert any("Overwhelming" in t for t in texts["a"])
    channel_text = json.dumps([r.payload for r in await outbox_rows(db2, target="channel")])
    for text in texts["a"] + texts["b"]:
        assert text not in channel_text
    for rnd in all_rounds:
        for text in texts["a"] + texts["b"]:
            assert text not in json.dumps(rnd.result)

    # the sheets: Alice expended her level 1 slot, Bob lost nothing but is Frightened
    # (Illusion), recorded for the table; both written back and audited
    alice = await services2.profiles.get_sheet(GUILD, ALICE, FOEQ)
    bob = await services2.profiles.get_sheet(GUILD, BOB, FOEQ)
    assert alice["spell_slots"][:2] == [1, 1]
    assert bob["hit_dice"] == 2 and bob["hp"] == 12
    updates = await audit_rows(db2, "sheet.update")
    assert {u.details["user_id"] for u in updates} == {ALICE.user_id, BOB.user_id}
    assert "Frightened" in log


async def test_hit_die_and_sheet_write_back(database: Database) -> None:
    """The Score's Hit Die is written back to the loser's sheet."""
    services = Services.create(database, DuelSettings())
    duel_id = await start(services)

    def hit_die(state: dict[str, Any], side: str) -> str:
        return "hit dice" if state["phase"] == "score_choice" else choose(state, side)

    await play(database, services, duel_id, phases=[], chooser=hit_die)
    bob = await services.profiles.get_sheet(GUILD, BOB, FOEQ)
    assert bob["hit_dice"] == 1


async def test_a_deadline_step_is_followed_by_one_of_the_same_length(database: Database) -> None:
    from datetime import timedelta

    from sqlalchemy import select

    from bot.db.models import Round, utcnow

    services = Services.create(database, DuelSettings())
    await services.profiles.set_sheet(GUILD, COMMANDER, ALICE, FOEQ, ALICE_SHEET)
    await services.profiles.set_sheet(GUILD, COMMANDER, BOB, FOEQ, BOB_SHEET)
    duel = await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=BOB, ruleset=FOEQ
    )
    await services.duels.open_round(
        duel_id=duel.id,
        guild_id=GUILD,
        actor_id=COMMANDER,
        deadline=utcnow() + timedelta(hours=24),
    )
    # Bob misses the setup: once its deadline has passed (moved back in the database, with
    # the opening, so the length stays 24 h) the commander closes it (missing_move none).
    # Before the deadline that close is refused (issue 23).
    await services.duels.submit_move(user_id=ALICE.user_id, move="pride quick 1", via="slash")
    async with database.transaction() as session:
        first = (
            await session.execute(
                select(Round).where(Round.duel_id == duel.id, Round.number == 1)
            )
        ).scalar_one()
        assert first.deadline is not None
        first.opened_at -= timedelta(hours=25)
        first.deadline -= timedelta(hours=25)
    await services.duels.close_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    second = (await rounds(database, duel.id))[-1]
    assert second.number == 2 and second.status == "open"
    assert second.deadline is not None and second.opened_at is not None
    length = second.deadline - second.opened_at
    assert timedelta(hours=23, minutes=59) < length <= timedelta(hours=24, seconds=1)
    opens = await outbox_rows(database, kind="round_open")
    assert opens[-1].payload["round_no"] == 2 and opens[-1].payload["commitment"]
