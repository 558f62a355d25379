"""Issue 23, items 5 and 11 (services slice), through the real client and the fake Discord on
SQLite and PostgreSQL. Every test fails on the code before issue 23:

* a duellist who is also a commander cannot open a round of their own duel (so never sets its
  deadline); before an announced deadline a commander cannot close a round while a move is
  missing, so a missing move forfeits only once the deadline has passed;
* undo is accountable in time: only the duel's latest round, only until the next round
  opens, only within the server's undo window (/config undo-window); after an undo of a
  deciding round /duel end is refused, so the ladder keeps a rated result; a result cites
  the last undo it follows;
* /duel export renders off the event loop, and a flood of exports meets a per-member budget.
"""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

import bot.exports.formats
from bot.db.engine import Database
from bot.db.models import Duel, Round
from bot.services.views import MemberRef
from tests.discord.harness import World, populate, running_world
from tests.fakediscord import FakeDiscord
from tests.security.snapshot import settle, snapshot
from tests.security.test_commander_abuse import (
    move,
    posts,
    rounds_of,
    stats_and_duel,
    text_of,
)


async def refused(
    w: World, database: Database, user: Any, name: str, sub: str, needles: tuple[str, ...],
    **options: Any,
) -> str:
    """``user``'s command is answered ephemerally with every needle, and nothing changes."""
    await settle(database, timeout=30)
    before = await snapshot(database)
    reply = await w.slash(user, name, sub, **options)
    assert reply.ephemeral, reply.content
    for needle in needles:
        assert needle in reply.content, (name, sub, reply.content)
    await settle(database, timeout=30)
    assert await snapshot(database) == before, (name, sub)
    return str(reply.content)


async def play_round(w: World, duel_id: int, *movers: tuple[Any, str]) -> None:
    reply = await w.slash(w.role_commander, "round", "open", duel=duel_id)
    assert "is open" in reply.content, reply.content
    for user, choice in movers:
        assert "Move received" in await move(w, user, duel_id, choice)
    reply = await w.slash(w.role_commander, "round", "close", duel=duel_id)
    assert "is closed" in reply.content, reply.content


async def shift_round(database: Database, duel_id: int, number: int, **back: timedelta) -> None:
    """Move a round's times back (``closed_at=...``, ``deadline=...``): time passing,
    without waiting for it."""
    async with database.transaction() as session:
        rnd = (
            await session.execute(
                select(Round).where(Round.duel_id == duel_id, Round.number == number)
            )
        ).scalar_one()
        for column, by in back.items():
            setattr(rnd, column, getattr(rnd, column) - by)


# -- item 5: who sets a deadline, and what a close before it does ----------------------------


@pytest.mark.parametrize("deadline", [None, "1m"])
async def test_duellist_commander_cannot_open_their_own_round(
    fake_discord: FakeDiscord, database: Database, deadline: str | None
) -> None:
    people = populate(fake_discord)
    fake_discord.set_member_roles(
        people["guild"].id, people["ann"].id, [people["commander_role_id"]]
    )
    async with running_world(fake_discord, database, people, missing_move="forfeit") as w:
        duel_id = await stats_and_duel(w)
        options: dict[str, Any] = {"duel": duel_id}
        if deadline is not None:
            options["deadline"] = deadline
        await refused(
            w,
            database,
            w.ann,
            "round",
            "open",
            (f"You are duellist A in duel #{duel_id}", "open its rounds", "Another commander"),
            **options,
        )
        assert await rounds_of(w, duel_id) == []
        # Another commander opens it.
        reply = await w.slash(w.role_commander, "round", "open", **options)
        assert "Round 1" in reply.content, reply.content


async def test_close_before_the_deadline_does_not_forfeit_the_missing_mover(
    fake_discord: FakeDiscord, database: Database
) -> None:
    # auto_close off: the commander closes after the deadline, in the test's own time.
    async with running_world(
        fake_discord, database, missing_move="forfeit", auto_close=False
    ) as w:
        duel_id = await stats_and_duel(w)
        reply = await w.slash(w.role_commander, "round", "open", duel=duel_id, deadline="36h")
        assert "Round 1" in reply.content, reply.content
        assert "Move received" in await move(w, w.ann, duel_id, "evade")
        # The commander's friend moved; Bob was given 36 hours. The close is refused.
        text = await refused(
            w,
            database,
            w.role_commander,
            "round",
            "close",
            ("cannot be closed yet", "bob has not moved", "deadline", "both duellists have moved"),
            duel=duel_id,
        )
        assert "UTC" in text
        [open_round] = await rounds_of(w, duel_id)
        assert open_round.status == "open"
        # Once Bob has moved, the round closes at once, without a forfeit.
        assert "Move received" in await move(w, w.bob, duel_id, "evade")
        reply = await w.slash(w.role_commander, "round", "close", duel=duel_id)
        assert "is closed" in reply.content, reply.content
        [first] = await rounds_of(w, duel_id)
        assert first.outcome != "a_wins" and "forfeit" not in str(first.result.log)

        # Round 2: Bob misses it, and the deadline passes; now the close forfeits him.
        await w.slash(w.role_commander, "round", "open", duel=duel_id, deadline="36h")
        assert "Move received" in await move(w, w.ann, duel_id, "evade")
        await shift_round(database, duel_id, 2, deadline=timedelta(hours=37))
        reply = await w.slash(w.role_commander, "round", "close", duel=duel_id)
        assert "is closed" in reply.content, reply.content
        second = (await rounds_of(w, duel_id))[1]
        assert second.outcome == "a_wins"
        assert second.result.options.missing_move == "forfeit"


# -- item 11: undo, accountable in time -------------------------------------------------------


async def test_undo_only_the_latest_round_until_the_next_opens_within_the_window(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        duel_id = await stats_and_duel(w)
        both = ((w.ann, "evade"), (w.bob, "evade"))  # no effect: the duel goes on
        await play_round(w, duel_id, *both)
        await w.slash(w.role_commander, "round", "open", duel=duel_id)

        # The next round has opened: round 1 is settled.
        await refused(
            w, database, w.commander, "round", "undo",
            ("Round 2", "is open", "only until the next round opens"),
            duel=duel_id, reason="too late",
        )
        for user, choice in both:
            await move(w, user, duel_id, choice)
        await w.slash(w.role_commander, "round", "close", duel=duel_id)

        # Not the latest round: refused, naming the one that is.
        await refused(
            w, database, w.commander, "round", "undo",
            ("Round 1", "cannot be undone", "only the latest round", "round 2"),
            duel=duel_id, reason="the old one", round=1,
        )
        reply = await w.slash(
            w.commander, "round", "undo", duel=duel_id, reason="lost DM", round=2
        )
        assert "was undone" in reply.content, reply.content
        # A second undo would reach round 1, closed before round 2 opened: refused.
        await refused(
            w, database, w.commander, "round", "undo",
            ("Round 2", "already undone", "only the latest round"),
            duel=duel_id, reason="and the one before",
        )
        assert [r.status for r in await rounds_of(w, duel_id)] == ["closed", "undone"]

        # Past the window (24 h by default) a result is settled.
        await play_round(w, duel_id, *both)
        await shift_round(database, duel_id, 3, closed_at=timedelta(hours=25))
        await refused(
            w, database, w.commander, "round", "undo",
            ("Round 3", "can be undone for 24 h after its close", "settled"),
            duel=duel_id, reason="a day later",
        )
        # The window is the server's: an admin widens it, and the same undo is allowed.
        reply = await w.slash(w.commander, "config", "undo-window", window="48h")
        assert "2 d after its close" in reply.content, reply.content
        shown = text_of(await w.slash(w.commander, "config", "show"))
        assert "Undo window" in shown and "2 d after a round's close" in shown
        reply = await w.slash(w.commander, "round", "undo", duel=duel_id, reason="late but ok")
        assert "was undone" in reply.content, reply.content
        # 0m turns undo off.
        await play_round(w, duel_id, *both)
        await w.slash(w.commander, "config", "undo-window", window="0m")
        await refused(
            w, database, w.commander, "round", "undo", ("Undo is off in this server",),
            duel=duel_id, reason="off",
        )
        bad = await w.slash(w.commander, "config", "undo-window", window="31d")
        assert "0 (undo off) to 30 days" in bad.content, bad.content


async def test_undo_of_the_deciding_round_then_duel_end_keeps_a_rated_result(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database, missing_move="forfeit") as w:
        duel_id = await stats_and_duel(w)
        await play_round(w, duel_id, (w.ann, "evade"))  # Bob forfeits: Ann wins, rated
        ann = MemberRef(w.ann.id, "ann")

        async def ann_line() -> Any:
            records = await w.services.ratings.record(w.guild.id, ann)
            return records.records[0].line if records.records else None

        line = await ann_line()
        assert (line.wins, line.commander_ended) == (1, 0)
        reply = await w.slash(w.commander, "round", "undo", duel=duel_id, reason="misclick")
        assert "was undone" in reply.content, reply.content
        # Ending it now would turn Bob's rated loss into an unrated "ended by a commander".
        await refused(
            w, database, w.commander, "duel", "end",
            ("was decided in round 1", "can only end with a result", "ladder"),
            duel=duel_id, reason="let's call it off",
        )
        async with database.transaction() as session:
            duel = await session.get(Duel, duel_id)
            assert duel is not None and (duel.status, duel.end_kind) == ("live", None)
        # The re-played round decides it; the ladder counts a rated result, not an end.
        await play_round(w, duel_id, (w.ann, "evade"))
        line = await ann_line()
        assert (line.wins, line.losses, line.commander_ended) == (1, 0, 0)
        bob = await w.services.ratings.record(w.guild.id, MemberRef(w.bob.id, "bob"))
        assert (bob.records[0].line.losses, bob.records[0].line.commander_ended) == (1, 0)


async def test_a_result_after_three_undos_cites_the_last_one(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        duel_id = await stats_and_duel(w)
        for n in (1, 2, 3):
            await play_round(w, duel_id)  # no moves, missing move none: no effect
            reply = await w.slash(
                w.commander, "round", "undo", duel=duel_id, reason=f"reason number {n}"
            )
            assert "was undone" in reply.content, reply.content
        await play_round(w, duel_id)
        result = next(
            m
            for m in await posts(w, database)
            if f"Duel #{duel_id}, round 4: " in text_of(m) and "follows" in text_of(m)
        )
        shown = text_of(result)
        assert "follows the undo of round 3" in shown, shown
        assert "reason number 3" in shown and "reason number 1" not in shown
        fourth = (await rounds_of(w, duel_id))[3]
        assert fourth.result.follows_undo_of == 3


# -- item 11: /duel export, off the loop and within a budget ----------------------------------


async def test_export_renders_off_the_event_loop(
    fake_discord: FakeDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    render = bot.exports.formats.export_duel
    threads: list[int] = []

    def slow_render(*args: Any) -> str:
        # A render that takes 0.8 s of its thread (as a long duel's would take CPU).
        threads.append(threading.get_ident())
        time.sleep(0.8)
        return render(*args)

    # Patched where the cog imports it from: discord.py loads a cog's module afresh.
    monkeypatch.setattr(bot.exports.formats, "export_duel", slow_render)
    async with running_world(fake_discord, database) as w:
        duel_id = await stats_and_duel(w)
        await play_round(w, duel_id, (w.ann, "evade"), (w.bob, "evade"))
        loop = asyncio.get_running_loop()
        gaps: list[float] = []
        done = asyncio.Event()

        async def ticker() -> None:
            last = loop.time()
            while not done.is_set():
                await asyncio.sleep(0.02)
                now = loop.time()
                gaps.append(now - last)
                last = now

        ticking = asyncio.create_task(ticker())
        reply = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="markdown")
        done.set()
        await ticking
        assert reply.files and f"# Duel {duel_id}" in bytes(reply.files[0].data).decode()
        assert threads and threading.get_ident() not in threads  # not the loop's thread
        # The loop kept turning while the export rendered for 0.8 s.
        assert max(gaps) < 0.6, max(gaps)  # on the loop it would be 0.8 s or more


async def test_a_flood_of_exports_meets_the_per_member_budget(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        duel_id = await stats_and_duel(w)
        burst = w.bot.settings.limits.export_burst
        for _ in range(burst):
            reply = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="json")
            assert reply.files, reply.content
        reply = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="json")
        assert reply.ephemeral and not reply.files
        assert "faster than the bot prepares them" in reply.content, reply.content
        assert f"at most {burst} in 60 s per member" in reply.content
        assert "Wait" in reply.content
        # /leaderboard shares the budget; another member is not affected.
        board = await w.slash(w.outsider, "leaderboard")
        assert "faster than the bot prepares them" in board.content
        other = await w.slash(w.ann, "duel", "export", duel=duel_id, format="json")
        assert other.files, other.content
