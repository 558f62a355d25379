"""The ladder (issue 17) through the services, on SQLite and PostgreSQL: records and ratings
follow the duels that end, an undo takes a result back exactly, /duel end counts without
rating, and the stored ladder always equals a replay of the history (``rebuild``), after
random histories too (Hypothesis)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import Duel, LadderEntry, LadderRating
from bot.services.container import Services
from bot.services.errors import InvalidInput, StateConflict
from bot.services.ladder_model import Standing, play
from bot.services.ladder_views import RecordLine
from bot.services.views import MemberRef
from tests.db.support import make_test_database

GUILD = 1000
OTHER_GUILD = 1001
CHANNEL = 2000
COMMANDER = 9
ANN = MemberRef(101, "Ann")
BOB = MemberRef(102, "Bob")
CAROL = MemberRef(103, "Carol")
DAVE = MemberRef(104, "Dave")
MEMBERS = (ANN, BOB, CAROL, DAVE)
RULE_2_14 = "rule-2.14"


@pytest.fixture
def forfeits(database: Database) -> Services:
    """Missing move = forfeit: the side that alone sends a move wins, deterministically."""
    return Services.create(database, DuelSettings(missing_move="forfeit"))


async def stats(services: Services, guild: int = GUILD) -> None:
    for member in MEMBERS:
        await services.profiles.set_stats(guild, COMMANDER, member, 10, 10)


async def start(services: Services, a: MemberRef, b: MemberRef, guild: int = GUILD) -> int:
    view = await services.duels.start_duel(
        guild_id=guild, channel_id=CHANNEL, actor_id=COMMANDER, a=a, b=b
    )
    return view.id


async def play_round(services: Services, duel_id: int, how: str, guild: int = GUILD) -> str:
    """One round of a rule 2.14 duel under forfeit: ``a`` / ``b`` (that side alone moves:
    it wins), ``retreat`` (both retreat), ``none`` (nobody moves: no effect)."""
    duel = await services.duels.get_duel(duel_id, guild)
    await services.duels.open_round(duel_id=duel_id, guild_id=guild, actor_id=COMMANDER)
    movers = {
        "a": [(duel.a.user_id, "evade")],
        "b": [(duel.b.user_id, "evade")],
        "retreat": [(duel.a.user_id, "retreat"), (duel.b.user_id, "retreat")],
        "none": [],
    }[how]
    for user_id, move in movers:
        await services.duels.submit_move(
            user_id=user_id, move=move, via="slash", duel_id=duel_id, guild_id=guild
        )
    closed = await services.duels.close_round(
        duel_id=duel_id, guild_id=guild, actor_id=COMMANDER
    )
    return closed.outcome


async def duel_won_by(
    services: Services, winner: MemberRef, loser: MemberRef, guild: int = GUILD
) -> int:
    duel_id = await start(services, winner, loser, guild)
    assert await play_round(services, duel_id, "a", guild) == "a_wins"
    return duel_id


async def line(services: Services, member: MemberRef, guild: int = GUILD) -> RecordLine:
    records = await services.ratings.record(guild, member, RULE_2_14)
    assert len(records.records) == 1
    return records.records[0].line


async def assert_rebuild_equal(services: Services, guild: int | None = None) -> None:
    for guild_id, ruleset in await services.ratings.ladders(guild):
        report = await services.ratings.rebuild(guild_id, ruleset, check_only=True)
        assert report.differences == (), report.differences


async def test_records_and_ratings_follow_the_duels(forfeits: Services) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    await duel_won_by(s, ANN, CAROL)
    retreat = await start(s, BOB, CAROL)
    assert await play_round(s, retreat, "none") == "no_effect"  # the duel goes on
    assert await play_round(s, retreat, "retreat") == "both_retreat"
    ended = await start(s, CAROL, DAVE)
    await s.duels.end_duel(duel_id=ended, guild_id=GUILD, actor_id=COMMANDER, reason="rain")

    ann, bob, carol, dave = [await line(s, m) for m in MEMBERS]
    assert (ann.duels, ann.wins, ann.losses, ann.streak) == (2, 2, 0, 2)
    assert (bob.duels, bob.wins, bob.losses, bob.retreats, bob.streak) == (2, 0, 1, 1, 0)
    assert (carol.duels, carol.losses, carol.retreats, carol.commander_ended) == (3, 1, 1, 1)
    assert (dave.duels, dave.commander_ended, dave.rated) == (1, 1, 0)
    # The ratings are openskill's, replayed: Ann beat two fresh members.
    fresh = Standing.fresh()
    a1, b1 = play(fresh, fresh, "win", "loss")
    a2, _ = play(a1, fresh, "win", "loss")
    assert (ann.mu, ann.sigma, ann.rating) == (a2.mu, a2.sigma, a2.rating)
    assert ann.rating > 0 > b1.rating

    board = await s.ratings.leaderboard(GUILD)
    assert board.rows[0].line.user_id == ANN.user_id
    assert DAVE.user_id not in [row.line.user_id for row in board.rows]  # never rated
    assert [row.rank for row in board.rows] == sorted(row.rank for row in board.rows)
    assert board.rated_members == 3 and board.pages == 1
    await assert_rebuild_equal(s)


async def test_undo_of_the_deciding_round_restores_the_exact_ratings(forfeits: Services) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    before = {m.user_id: await line(s, m) for m in (ANN, BOB)}
    decider = await duel_won_by(s, BOB, ANN)
    await duel_won_by(s, CAROL, BOB)  # a later duel: re-rated when the undo replays
    after_bob_win = await line(s, BOB)
    assert after_bob_win.wins == 1

    await s.duels.undo_round(
        duel_id=decider, guild_id=GUILD, actor_id=COMMANDER, reason="wrong stats"
    )
    ann = await line(s, ANN)
    assert (ann.mu, ann.sigma, ann.rating) == (
        before[ANN.user_id].mu,
        before[ANN.user_id].sigma,
        before[ANN.user_id].rating,
    )
    assert (ann.wins, ann.losses, ann.streak) == (1, 0, 1)
    # Bob: the first loss and Carol's duel, replayed without the undone one.
    fresh = Standing.fresh()
    _, bob1 = play(fresh, fresh, "win", "loss")
    _, bob2 = play(fresh, bob1, "win", "loss")
    bob = await line(s, BOB)
    assert (bob.mu, bob.sigma, bob.wins, bob.losses, bob.streak) == (
        bob2.mu,
        bob2.sigma,
        0,
        2,
        -2,
    )
    await assert_rebuild_equal(s)

    # Played again, the duel counts again: the ladder is the replay of what stands.
    assert await play_round(s, decider, "b") == "b_wins"
    assert (await line(s, ANN)).wins == 2
    await assert_rebuild_equal(s)


async def test_undo_of_a_round_that_did_not_end_the_duel_changes_nothing(
    forfeits: Services,
) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    before = await line(s, ANN)
    live = await start(s, ANN, CAROL)
    assert await play_round(s, live, "none") == "no_effect"
    await s.duels.undo_round(duel_id=live, guild_id=GUILD, actor_id=COMMANDER, reason="typo")
    assert await line(s, ANN) == before
    await assert_rebuild_equal(s)


async def test_each_server_has_its_own_ladder(forfeits: Services) -> None:
    s = forfeits
    await stats(s)
    await stats(s, OTHER_GUILD)
    await duel_won_by(s, ANN, BOB)
    await duel_won_by(s, BOB, ANN, OTHER_GUILD)
    assert (await line(s, ANN)).wins == 1
    assert (await line(s, ANN, OTHER_GUILD)).wins == 0
    other = await s.ratings.leaderboard(OTHER_GUILD)
    assert [r.line.user_id for r in other.rows] == [BOB.user_id, ANN.user_id]
    nobody = await s.ratings.record(GUILD, CAROL)
    assert nobody.records == ()


async def test_pages_and_bad_input(forfeits: Services) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    with pytest.raises(InvalidInput, match=r"Page 2 does not exist.*1 page"):
        await s.ratings.leaderboard(GUILD, RULE_2_14, 2)
    with pytest.raises(InvalidInput, match="numbered from 1"):
        await s.ratings.leaderboard(GUILD, RULE_2_14, 0)
    with pytest.raises(InvalidInput, match="no ruleset 'chess'"):
        await s.ratings.leaderboard(GUILD, "chess")
    empty = await s.ratings.leaderboard(GUILD, "by-this-axe")
    assert empty.rows == () and empty.pages == 1


async def test_last_known_name_and_history(forfeits: Services) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    seen = await s.ratings.record(GUILD, MemberRef(ANN.user_id, "Annie"), seen=True)
    assert seen.name == "Annie"
    board = await s.ratings.leaderboard(GUILD)
    assert board.rows[0].line.name == "Annie"
    # A later duel started before the new name was seen does not bring the old one back.
    history = await s.ratings.rating_history(GUILD, RULE_2_14, ANN.user_id)
    assert [p.kind for p in history] == ["win"]
    assert history[0].rating == board.rows[0].line.rating
    await assert_rebuild_equal(s)


async def test_rebuild_repairs_a_tampered_ladder(forfeits: Services, database: Database) -> None:
    s = forfeits
    await stats(s)
    await duel_won_by(s, ANN, BOB)
    await duel_won_by(s, BOB, CAROL)
    async with database.transaction() as session:
        row = (
            await session.execute(select(LadderRating).where(LadderRating.user_id == ANN.user_id))
        ).scalar_one()
        row.wins = 7
        row.rating = 99.0
    check = await s.ratings.rebuild(GUILD, RULE_2_14, check_only=True)
    assert any("wins is 7" in d for d in check.differences)
    assert not check.written
    fixed = await s.ratings.rebuild(GUILD, RULE_2_14)
    assert fixed.differences and fixed.written
    assert (await s.ratings.rebuild(GUILD, RULE_2_14, check_only=True)).differences == ()
    assert (await line(s, ANN)).wins == 1


# -- random histories ------------------------------------------------------------------------

Step = tuple[str, int, int, str]
steps = st.lists(
    st.tuples(
        st.sampled_from(["start", "play", "play", "play", "end", "undo"]),
        st.integers(0, 3),
        st.integers(0, 3),
        st.sampled_from(["a", "b", "retreat", "none"]),
    ),
    min_size=1,
    max_size=14,
)
_guilds = itertools.count(50_000)


@dataclass
class Story:
    services: Services
    guild: int
    duels: list[int]


async def run_story(url: str, guild: int, story: list[Step]) -> None:
    db = make_test_database(url)
    try:
        services = Services.create(db, DuelSettings(missing_move="forfeit"))
        await stats(services, guild)
        world = Story(services, guild, [])
        for op, i, j, how in story:
            await run_step(world, op, i, j, how)
        await assert_rebuild_equal(services, guild)
        await assert_matches_an_independent_replay(db, services, guild)
    finally:
        await db.dispose()


async def run_step(w: Story, op: str, i: int, j: int, how: str) -> None:
    s, guild = w.services, w.guild
    if op == "start" or not w.duels:
        if i == j:
            j = (i + 1) % len(MEMBERS)
        w.duels.append(await start(s, MEMBERS[i], MEMBERS[j], guild))
        return
    duel_id = w.duels[i % len(w.duels)]
    try:
        if op == "play":
            await play_round(s, duel_id, how, guild)
        elif op == "end":
            await s.duels.end_duel(duel_id=duel_id, guild_id=guild, actor_id=COMMANDER, reason="r")
        else:
            await s.duels.undo_round(
                duel_id=duel_id, guild_id=guild, actor_id=COMMANDER, reason="r"
            )
    except StateConflict:
        pass  # an ended duel cannot be played or ended; nothing to undo


async def assert_matches_an_independent_replay(db: Database, s: Services, guild: int) -> None:
    """The ladder equals a fold, written here from the duels table, through the model."""
    async with db.transaction() as session:
        duels = list(
            (
                await session.execute(
                    select(Duel)
                    .where(Duel.guild_id == guild, Duel.status == "ended")
                    .order_by(Duel.ended_at, Duel.id)
                )
            ).scalars()
        )
        stored = {
            r.user_id: r
            for r in (
                await session.execute(select(LadderRating).where(LadderRating.guild_id == guild))
            ).scalars()
        }
        entries = (
            await session.execute(select(LadderEntry).where(LadderEntry.guild_id == guild))
        ).scalars()
        assert {e.duel_id for e in entries} == {d.id for d in duels}
    standings: dict[int, Standing] = {}
    for duel in duels:
        a = standings.get(duel.a_user_id, Standing.fresh())
        b = standings.get(duel.b_user_id, Standing.fresh())
        if duel.end_kind == "commander":
            kinds = ("commander", "commander")
        elif duel.winner == "a":
            kinds = ("win", "loss")
        elif duel.winner == "b":
            kinds = ("loss", "win")
        else:  # rule 2.14 under forfeit ends without a winner only by both retreating
            kinds = ("retreat", "retreat")
        standings[duel.a_user_id], standings[duel.b_user_id] = play(a, b, *kinds)  # type: ignore[arg-type]
    assert set(stored) == set(standings)
    for uid, want in standings.items():
        row = stored[uid]
        assert (row.mu, row.sigma, row.rating) == (want.mu, want.sigma, want.rating)
        assert (row.wins, row.losses, row.retreats, row.commander_ended, row.streak) == (
            want.wins,
            want.losses,
            want.retreats,
            want.commander_ended,
            want.streak,
        )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(story=steps)
def test_rebuild_equals_the_stored_ladder_after_random_histories(
    migrated_db_url: str, story: list[Step]
) -> None:
    asyncio.run(run_story(migrated_db_url, next(_guilds), story))
