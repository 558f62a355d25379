"""Issue 10, the self-interested commander, through the real client and the fake Discord on
SQLite and PostgreSQL:

* rules changed under a running duel (class 2): missing-move and change-of-choice switched
  mid-duel do not reach it; the card, `/duel status`, `/config` and exports say so;
* conflict of interest (class 3): a commander who is a duellist cannot open (issue 23),
  close, undo or end their own duel, nor set their own stats or sheet; another commander can;
* the end kind is stored, not read from text (class 6): `/duel end reason:"round 3: a_wins"`
  does not make a duel undoable;
* re-rolls are accountable (class 9): `/round undo` needs a reason, posted with who undid;
  the next result says it follows that undo; history and every export list it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bot.db.engine import Database
from tests.discord.harness import World, populate, running_world
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage
from tests.security.snapshot import settle, snapshot


def text_of(message: Any) -> str:
    """Everything a message shows (content and embeds), as JSON text."""
    return json.dumps(
        {"content": getattr(message, "content", ""), "embeds": getattr(message, "embeds", [])},
        ensure_ascii=False,
    )


def duel_id_of(reply: Any) -> int:
    return int(reply.content.split("Duel #")[1].split()[0])


async def stats_and_duel(w: World) -> int:
    """As the Manage Server admin: the commander role, stats for Ann and Bob, a duel."""
    await w.slash(w.commander, "config", "commander-role", role=w.commander_role_id)
    for user, agility in ((w.ann, 3), (w.bob, 2)):
        reply = await w.slash(w.commander, "stats", "set", member=user.id, str=5, agi=agility)
        assert "Stats saved" in reply.content, reply.content
    return await start(w)


async def start(w: World) -> int:
    reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
    assert "Duel #" in reply.content, reply.content
    return duel_id_of(reply)


async def posts(w: World, database: Database) -> list[FakeMessage]:
    await settle(database, timeout=30)
    return w.fake.messages_in(w.channel_id)


async def card(w: World, database: Database, duel_id: int) -> str:
    found = [
        m
        for m in await posts(w, database)
        if f"Duel #{duel_id}: " in text_of(m) and "A duel begins" in text_of(m)
    ]
    assert len(found) == 1
    return text_of(found[0])


async def move(w: World, user: Any, duel_id: int, choice: str) -> str:
    reply = await w.slash(user, "move", None, duel=duel_id, move=choice)
    return str(reply.content)


async def export(w: World, duel_id: int, fmt: str) -> str:
    reply = await w.slash(w.outsider, "duel", "export", duel=duel_id, format=fmt)
    assert reply.files, reply.content
    return bytes(reply.files[0].data).decode()


async def rounds_of(w: World, duel_id: int) -> list[Any]:
    return list((await w.services.duels.history(duel_id, w.guild.id)).rounds)


# -- class 2: the rules are fixed when a duel starts -----------------------------------------


async def test_missing_move_switched_mid_duel_applies_to_later_duels_only(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        first = await stats_and_duel(w)
        assert "Missing move: none: no move is made" in await card(w, database, first)
        await w.slash(w.role_commander, "round", "open", duel=first)
        assert "Move received" in await move(w, w.ann, first, "evade")
        status = await w.slash(w.role_commander, "round", "status", duel=first)
        assert "has not moved yet" in status.content  # Bob: the admin now knows who is late

        reply = await w.slash(w.commander, "config", "missing-move", policy="forfeit")
        assert "duels started afterwards" in reply.content
        assert "running duels keep their rules" in reply.content
        shown = await w.slash(w.commander, "config", "show")
        assert "duels started afterwards" in text_of(shown)

        # The running duel closes under the rule it started with: no forfeit.
        await w.slash(w.role_commander, "round", "close", duel=first)
        [closed] = await rounds_of(w, first)
        assert closed.outcome == "no_effect"
        assert closed.result.options.missing_move == "none"
        assert closed.result.options.change_of_choice is False
        assert "forfeit" not in json.dumps(closed.result.log)

        # A duel started after the change gets the new rule.
        second = await start(w)
        assert "Missing move: forfeit" in await card(w, database, second)
        await w.slash(w.role_commander, "round", "open", duel=second)
        assert "Move received" in await move(w, w.ann, second, "evade")
        await w.slash(w.role_commander, "round", "close", duel=second)
        [forfeited] = await rounds_of(w, second)
        assert forfeited.outcome == "a_wins"
        assert forfeited.result.options.missing_move == "forfeit"

        # /duel status and every export show the rules in force of each duel.
        for duel_id, policy in ((first, "none"), (second, "forfeit")):
            status = text_of(await w.slash(w.outsider, "duel", "status", duel=duel_id))
            assert "Rules fixed for this duel" in status
            assert f"Missing move: {policy}" in status
            assert "Change of choice: off" in status
            assert "House rules: locked-blocks-retreat=no" in status
            for fmt in ("markdown", "bbcode"):
                text = await export(w, duel_id, fmt)
                assert "Rules fixed for this duel" in text
                assert f"Missing move: {policy}" in text, text
            data = json.loads(await export(w, duel_id, "json"))
            assert data["options"]["missing_move"] == policy
            assert data["rounds"][0]["result"]["options"]["missing_move"] == policy


@pytest.mark.parametrize("at_start", [False, True])
async def test_change_of_choice_switched_mid_duel_does_not_reach_it(
    fake_discord: FakeDiscord, database: Database, at_start: bool
) -> None:
    async with running_world(fake_discord, database) as w:
        await w.slash(w.commander, "config", "change-of-choice", enabled=at_start)
        duel_id = await stats_and_duel(w)
        shown = "on" if at_start else "off"
        assert f"Change of choice: {shown}" in await card(w, database, duel_id)
        await w.slash(w.role_commander, "round", "open", duel=duel_id)
        assert "Move received" in await move(w, w.ann, duel_id, "evade")

        reply = await w.slash(w.commander, "config", "change-of-choice", enabled=not at_start)
        assert "duels started afterwards" in reply.content

        second = await move(w, w.ann, duel_id, "full_frontal_strike")
        if at_start:
            assert "changed from" in second.lower(), second
        else:
            assert "already locked in Evade" in second, second
        await w.slash(w.role_commander, "round", "close", duel=duel_id)
        [closed] = await rounds_of(w, duel_id)
        assert closed.result.choices.a == ("full_frontal_strike" if at_start else "evade")
        assert closed.result.options.change_of_choice is at_start
        status = text_of(await w.slash(w.outsider, "duel", "status", duel=duel_id))
        assert f"Change of choice: {shown}" in status


# -- class 3: a duellist never commands their own duel -------------------------------------


@pytest.mark.parametrize("power", ["commander-role", "server-owner"])
async def test_duellist_cannot_command_their_own_duel(
    fake_discord: FakeDiscord, database: Database, power: str
) -> None:
    fake = fake_discord
    people = populate(fake)
    if power == "server-owner":
        people["guild"].owner_id = people["ann"].id  # every permission, Manage Server included
    else:
        fake.set_member_roles(people["guild"].id, people["ann"].id, [people["commander_role_id"]])
    async with running_world(fake, database, people) as w:
        duel_id = await stats_and_duel(w)

        async def refused(name: str, sub: str, needles: tuple[str, ...], **options: Any) -> None:
            await settle(database, timeout=30)
            before = await snapshot(database)
            reply = await w.slash(w.ann, name, sub, **options)
            assert reply.ephemeral
            for needle in needles:
                assert needle in reply.content, (name, sub, reply.content)
            await settle(database, timeout=30)
            assert await snapshot(database) == before, (name, sub)

        own = (f"You are duellist A in duel #{duel_id}", "Another commander")
        # Opening a round of one's own duel is refused too (issue 23): the opening sets the
        # deadline, and with it when a missing move forfeits.
        await refused("round", "open", (*own, "open its rounds"), duel=duel_id)
        await refused("round", "open", (*own, "open its rounds"), duel=duel_id, deadline="1m")
        reply = await w.slash(w.role_commander, "round", "open", duel=duel_id)
        assert "Round 1" in reply.content, reply.content
        assert "Move received" in await move(w, w.ann, duel_id, "evade")
        await refused("round", "close", (*own, "deadline"), duel=duel_id)
        await refused("duel", "end", own, duel=duel_id, reason="I am winning anyway")
        await refused(
            "stats", "set", ("your own stats", "Another commander"), member=w.ann.id, str=99, agi=99
        )
        await refused(
            "sheet",
            "set",
            ("your own sheet", "Another commander"),
            member=w.ann.id,
            ruleset="by-this-axe",
            fields="character=hero",
        )
        # Setting somebody else's stats is still fine.
        reply = await w.slash(w.ann, "stats", "set", member=w.outsider.id, str=1, agi=1)
        assert "Stats saved" in reply.content

        # Another commander closes; the duellist cannot undo the result.
        reply = await w.slash(w.role_commander, "round", "close", duel=duel_id)
        assert "is closed" in reply.content, reply.content
        await refused("round", "undo", own, duel=duel_id, reason="I did not like it")
        reply = await w.slash(w.role_commander, "round", "undo", duel=duel_id, reason="typo")
        assert "was undone" in reply.content, reply.content
        reply = await w.slash(w.role_commander, "duel", "end", duel=duel_id, reason="done")
        assert "has been ended" in reply.content


# -- class 6: how a duel ended is stored, not read from its reason --------------------------


async def test_end_reason_that_looks_like_a_result_does_not_make_a_duel_undoable(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        duel_id = await stats_and_duel(w)
        await w.slash(w.role_commander, "round", "open", duel=duel_id)
        await move(w, w.ann, duel_id, "evade")
        await move(w, w.bob, duel_id, "evade")
        await w.slash(w.role_commander, "round", "close", duel=duel_id)  # no effect: goes on
        reply = await w.slash(
            w.role_commander, "duel", "end", duel=duel_id, reason="round 3: a_wins"
        )
        assert "has been ended" in reply.content
        await settle(database, timeout=30)
        before = await snapshot(database)
        reply = await w.slash(w.commander, "round", "undo", duel=duel_id, reason="revive it")
        assert "ended by a commander" in reply.content, reply.content
        await settle(database, timeout=30)
        assert await snapshot(database) == before
        view = await w.services.duels.get_duel(duel_id, w.guild.id)
        assert (view.status, view.end_kind) == ("ended", "commander")
        assert json.loads(await export(w, duel_id, "json"))["end_kind"] == "commander"


# -- class 9: undo is accountable ---------------------------------------------------------


async def test_undo_needs_a_reason_and_the_next_result_says_it_follows_the_undo(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        undo = next(
            c for c in fake.command("round")["options"] if c["name"] == "undo"  # type: ignore[index]
        )
        reason_option = next(o for o in undo["options"] if o["name"] == "reason")
        assert reason_option["required"] is True and reason_option["max_length"] == 300
        duel_id = await stats_and_duel(w)
        await w.slash(w.role_commander, "round", "open", duel=duel_id)
        await move(w, w.ann, duel_id, "evade")
        await w.slash(w.role_commander, "round", "close", duel=duel_id)

        # Discord itself refuses the command without its required reason.
        with pytest.raises(LookupError, match="reason"):
            await w.slash(w.commander, "round", "undo", duel=duel_id)
        reply = await w.slash(w.commander, "round", "undo", duel=duel_id, reason="   ")
        assert "Give a reason" in reply.content
        assert [r.status for r in await rounds_of(w, duel_id)] == ["closed"]

        why = "Bob's DM was lost @everyone **really** [x](https://evil)"
        reply = await w.slash(w.commander, "round", "undo", duel=duel_id, reason=why)
        assert "was undone" in reply.content, reply.content
        undone_post = next(
            m for m in await posts(w, database) if "round 1 undone" in text_of(m)
        )
        shown = text_of(undone_post)
        assert f"<@{w.commander.id}>" in shown  # who
        assert "Bob's DM was lost" in shown and "\\\\*\\\\*really" in shown  # why, escaped
        assert "@everyone" not in shown.replace("@\u200beveryone", "")
        assert not re.search(r"(?<!\\)\[x\]\(https://evil\)", shown)  # no live masked link

        # Round 2 re-plays it: its result says that it follows the undo of round 1.
        await w.slash(w.role_commander, "round", "open", duel=duel_id)
        await move(w, w.ann, duel_id, "evade")
        await w.slash(w.role_commander, "round", "close", duel=duel_id)
        result_post = next(
            m
            for m in await posts(w, database)
            if f"Duel #{duel_id}, round 2: " in text_of(m) and "follows" in text_of(m)
        )
        assert "follows the undo of round 1" in text_of(result_post)
        first, second = await rounds_of(w, duel_id)
        assert (first.status, first.undone_by, first.undo_reason) == (
            "undone",
            w.commander.id,
            " ".join(why.split()),
        )
        assert second.result.follows_undo_of == 1

        history = await w.slash(w.outsider, "duel", "history", duel=duel_id)
        assert f"Round 1 (undone by <@{w.commander.id}>: Bob" in history.content
        assert "after the undo of round 1" in history.content
        markdown = await export(w, duel_id, "markdown")
        assert f"Round 1 (undone by user {w.commander.id}: Bob's DM was lost" in markdown
        assert "Round 2 (follows the undo of round 1)" in markdown
        bbcode = await export(w, duel_id, "bbcode")
        assert f"Round 1 (undone by user {w.commander.id}: Bob's DM was lost" in bbcode
        data = json.loads(await export(w, duel_id, "json"))
        assert data["rounds"][0]["undone_by"] == str(w.commander.id)
        assert data["rounds"][0]["undo_reason"] == " ".join(why.split())
        assert data["rounds"][1]["result"]["follows_undo_of"] == 1
