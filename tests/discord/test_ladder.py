"""The ladder through the real discord.py client and the fake Discord (issue 17): duels of
every ruleset played to their end, then /leaderboard and /duel record; an undo of the
deciding round takes the rating back; page buttons turn a leaderboard; a member who left
shows by the last known name; 10,000 rated members still answer in time.

Duels end deterministically under ``missing_move = forfeit``: only the winner sends a move
and a commander closes the round, so the other side forfeits."""

from __future__ import annotations

import random
from contextlib import AbstractAsyncContextManager
from typing import Any

from sqlalchemy import insert

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import LadderRating, utcnow
from bot.services.views import MemberRef
from tests.discord.harness import World, running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeUser

RULE_2_14, BY_THIS_AXE, FOEQ = "rule-2.14", "by-this-axe", "foeq-spell-duel"
SHEETS = {
    BY_THIS_AXE: "character=hero wounds=1",
    FOEQ: "spell_attack=1 deception=1 hp_max=12 hit_dice=2",
}
#: What the winner sends by DM in the first round (step) of each ruleset.
WINNING_MOVE = {RULE_2_14: "evade", BY_THIS_AXE: "2/2/0", FOEQ: "death quick cantrip"}
PARAMS = {FOEQ: "public_stake=pride challenger=a"}
# The duellists here send moves faster than a person (the flood limit has its own suite).
NO_FLOOD_LIMIT = LimitSettings(dm_burst=0)


def forfeit_world(fake: FakeDiscord, database: Database) -> AbstractAsyncContextManager[World]:
    return running_world(fake, database, limits=NO_FLOOD_LIMIT, missing_move="forfeit")


async def prepare(w: World, members: list[FakeUser]) -> None:
    for member in members:
        stats: dict[str, Any] = {"member": member.id, "str": 10, "agi": 10}
        await w.slash(w.commander, "stats", "set", **stats)
        for ruleset, fields in SHEETS.items():
            reply = await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset=ruleset, fields=fields
            )
            assert "Sheet saved" in reply.content, reply.content


async def won_duel(w: World, ruleset: str, winner: FakeUser, loser: FakeUser) -> int:
    """A duel of ``ruleset`` that ``winner`` (duellist A) wins in its first round."""
    options: dict[str, Any] = {"a": winner.id, "b": loser.id, "ruleset": ruleset}
    if ruleset in PARAMS:
        options["params"] = PARAMS[ruleset]
    reply = await w.slash(w.commander, "duel", "start", **options)
    duel_id = int(reply.content.split("Duel #")[1].split()[0])
    before = len(w.fake.dms_to(winner.id))
    reply = await w.slash(w.commander, "round", "open", duel=duel_id)
    assert "is open" in reply.content, reply.content
    await w.fake.wait_for_dms(winner.id, before + 1, timeout=15)
    await w.fake.send_dm(winner.id, f"#{duel_id} {WINNING_MOVE[ruleset]}")
    receipts = await w.fake.wait_for_dms(winner.id, before + 2, timeout=15)
    assert "#" in receipts[-1].content, receipts[-1].content
    await w.slash(w.commander, "round", "close", duel=duel_id)
    duel = await w.services.duels.get_duel(duel_id)
    assert (duel.status, duel.winner) == ("ended", "a"), (ruleset, duel)
    return duel_id


def board_names(reply: Any) -> list[str]:
    text = reply.embeds[0]["description"]
    return [line.split("** ", 1)[1].split(" · ")[0] for line in text.splitlines()]


async def test_duels_of_every_ruleset_make_records_and_a_ranked_ladder(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with forfeit_world(fake_discord, database) as w:
        await prepare(w, [w.ann, w.bob, w.outsider])
        for ruleset in (RULE_2_14, BY_THIS_AXE, FOEQ):
            await won_duel(w, ruleset, w.ann, w.bob)
            await won_duel(w, ruleset, w.bob, w.outsider)
            await won_duel(w, ruleset, w.ann, w.outsider)

            board = await w.slash(w.outsider, "leaderboard", ruleset=ruleset)
            assert board.ephemeral
            assert board_names(board) == ["ann", "bob", "outsider"], board.embeds
            description = board.embeds[0]["description"]
            assert description.startswith("**1.** ann")
            assert "2W 0L 0D 0R 0C" in description and "streak W2" in description
            assert "Page 1 of 1 · 3 rated members" in board.embeds[0]["footer"]["text"]

            record = await w.slash(w.outsider, "duel", "record", member=w.bob.id, ruleset=ruleset)
            text = all_text(record)
            assert record.ephemeral
            assert "rank 2 of 3" in text and "1 won, 1 lost" in text, text
            assert "loss vs ann" in text and "win vs outsider" in text

        every = await w.slash(w.outsider, "duel", "record", member=w.ann.id)
        assert len(every.embeds[0]["fields"]) == 3  # one record per ruleset
        for guild_id, ruleset in await w.services.ratings.ladders():
            report = await w.services.ratings.rebuild(guild_id, ruleset, check_only=True)
            assert report.differences == (), report


async def test_an_undo_of_the_deciding_round_takes_the_rating_back(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with forfeit_world(fake_discord, database) as w:
        await prepare(w, [w.ann, w.bob])
        await won_duel(w, RULE_2_14, w.ann, w.bob)
        before = all_text(await w.slash(w.bob, "duel", "record", member=w.ann.id))
        decider = await won_duel(w, RULE_2_14, w.ann, w.bob)
        after = all_text(await w.slash(w.bob, "duel", "record", member=w.ann.id))
        assert "2 won" in after and after != before
        undone = await w.slash(w.commander, "round", "undo", duel=decider, reason="misclick")
        assert "undone" in undone.content, undone.content
        again = all_text(await w.slash(w.bob, "duel", "record", member=w.ann.id))
        assert again == before
        assert "1 won" in again


async def test_page_buttons_and_a_member_who_left(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with forfeit_world(fake_discord, database) as w:
        s = w.services
        guild = w.guild.id
        # 12 rated members played through the services (the paging is what is tested here).
        people = [MemberRef(900 + i, f"member{i:02d}") for i in range(12)]
        for p in people:
            await s.profiles.set_stats(guild, w.commander.id, p, 10, 10)
        for winner, loser in zip(people[::2], people[1::2], strict=True):
            duel = await s.duels.start_duel(
                guild_id=guild, channel_id=w.channel_id, actor_id=w.commander.id, a=winner,
                b=loser,
            )
            await s.duels.open_round(duel_id=duel.id, guild_id=guild, actor_id=w.commander.id)
            await s.duels.submit_move(
                user_id=winner.user_id, move="evade", via="slash", duel_id=duel.id,
                guild_id=guild,
            )
            await s.duels.close_round(duel_id=duel.id, guild_id=guild, actor_id=w.commander.id)

        first = await w.slash(w.ann, "leaderboard")
        assert "Page 1 of 2 · 12 rated members" in first.embeds[0]["footer"]["text"]
        assert len(board_names(first)) == 10
        ids = [c["custom_id"] for row in first.components for c in row["components"]]
        assert ids == ["duelbot:lb:rule-2.14:0", "duelbot:lb:rule-2.14:2"]
        handle = await w.fake.click_button(w.ann.id, first.message_id, "duelbot:lb:rule-2.14:2")
        second = await handle.response()
        assert second.type == 7  # the message itself turns
        assert "Page 2 of 2" in second.embeds[0]["footer"]["text"]
        lines = second.embeds[0]["description"].splitlines()
        assert [line.split(".**")[0] for line in lines] == ["**7", "**7"]  # six tied losers
        assert set(board_names(second)) <= {p.name for p in people[1::2]}

        # The member 900 is not in the server (never was, as one who left): their record
        # shows by the last known name, which is the duel's snapshot.
        record = await w.slash(w.ann, "duel", "record", member=w.bob.id)
        assert "no record in this server yet" in all_text(record)
        left = w.fake.add_user("gone-user", id=900)
        gone = await w.slash(w.ann, "duel", "record", member=left.id)
        assert "member00's record" in all_text(gone) and "1 won" in all_text(gone)

        bad = await w.fake.invoke_slash(
            guild, w.channel_id, w.ann.id, "leaderboard", options={"page": 3}
        )
        assert "Page 3 does not exist" in (await bad.reply()).content


async def test_ten_thousand_rated_members(fake_discord: FakeDiscord, database: Database) -> None:
    async with running_world(fake_discord, database) as w:
        guild = w.guild.id
        rng = random.Random(17)
        now = utcnow()
        ratings = [round(rng.uniform(-10, 40), 1) for _ in range(10_000)]
        rows = [
            {
                "guild_id": guild, "ruleset": RULE_2_14, "user_id": 10_000 + i,
                "display_name": f"m{i}", "name_seen_at": now, "mu": r + 20, "sigma": 20 / 3,
                "rating": r, "duels": 1, "rated": 1, "wins": 1, "losses": 0, "draws": 0,
                "retreats": 0, "commander_ended": 0, "streak": 1, "last_duel_at": now,
            }
            for i, r in enumerate(ratings)
        ]
        # Another server's ladder must not leak in.
        rows += [{**rows[0], "guild_id": guild + 1, "user_id": 1, "rating": 99.0}]
        async with database.transaction() as session:
            await session.execute(insert(LadderRating), rows)

        reply = await w.slash(w.ann, "leaderboard", page=1)
        order = sorted(range(10_000), key=lambda i: -ratings[i])
        top = [f"m{i}" for i in order[:10]]
        assert sorted(board_names(reply)) == sorted(top)
        assert "Page 1 of 1000 · 10000 rated members" in reply.embeds[0]["footer"]["text"]

        last = await w.services.ratings.leaderboard(guild, page=1000)
        worst = min(ratings)
        assert last.rows[-1].line.rating == worst
        assert last.rows[-1].rank == 1 + sum(r > worst for r in ratings)
        middle = await w.services.ratings.leaderboard(guild, page=500)
        for row in middle.rows:
            assert row.rank == 1 + sum(r > row.line.rating for r in ratings)
