"""By This Axe challenges through the service: accept, refuse (a leader's first refusal costs
his leadership, later ones are free), forced duels on a fair d6 when units are in contact."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import DuellistProfile, OutboxPost
from bot.rules.dice import commitment, derive_roll
from bot.services.container import Services
from bot.services.errors import InvalidInput, NotFound
from bot.services.profiles import profile_view
from bot.services.views import MemberRef

GUILD, CHANNEL, CMDR = 5, 6, 99
KING, DUKE = MemberRef(11, "King"), MemberRef(12, "Duke")


async def _sheets(services: Services, *, leader: bool = True) -> None:
    await services.profiles.set_sheet(GUILD, CMDR, KING, "by-this-axe", {"character": "hero"})
    await services.profiles.set_sheet(
        GUILD, CMDR, DUKE, "by-this-axe", {"character": "champion", "leader": leader}
    )


def _challenge(services: Services, accepted: bool, contact: bool = False):  # type: ignore[no-untyped-def]
    return services.duels.challenge(
        guild_id=GUILD,
        channel_id=CHANNEL,
        actor_id=CMDR,
        challenger=KING,
        challenged=DUKE,
        inputs={"accepted": accepted, "contact": contact},
    )


async def test_accepted_challenge_starts_a_by_this_axe_duel(services: Services) -> None:
    await _sheets(services)
    outcome = await _challenge(services, accepted=True)
    assert outcome.outcome == "accepted" and outcome.duel is not None
    assert outcome.duel.ruleset == "by-this-axe" and not outcome.penalties
    assert outcome.sentence == "Duke accepts the challenge: the duel is fought"


async def test_leader_loses_leadership_on_first_refusal_only(services: Services) -> None:
    await _sheets(services)
    first = await _challenge(services, accepted=False)
    assert first.outcome == "refused" and first.duel is None
    assert first.penalties == ("Duke loses his leadership for this turn",)
    second = await _challenge(services, accepted=False)
    assert second.outcome == "refused" and not second.penalties
    assert any("without penalty" in line for line in second.log)


async def test_non_leader_refuses_freely(services: Services) -> None:
    await _sheets(services, leader=False)
    outcome = await _challenge(services, accepted=False)
    assert outcome.outcome == "refused" and not outcome.penalties


async def test_force_roll_is_fair_and_published(services: Services, database: Database) -> None:
    await _sheets(services)
    seen = set()
    for _ in range(12):
        outcome = await _challenge(services, accepted=False, contact=True)
        seen.add(outcome.outcome)
        assert (outcome.duel is not None) == (outcome.outcome == "forced")
    assert seen <= {"forced", "refused"}
    async with database.transaction() as session:
        posts = (
            (await session.execute(select(OutboxPost).where(OutboxPost.kind == "challenge")))
            .scalars()
            .all()
        )
    assert len(posts) == 12
    for post in posts:
        p = post.payload
        assert p["commitment"] == commitment(p["seed"])
        roll = p["roll"]
        assert roll["label"] == "duel:0:round:0:roll:0"
        assert roll["value"] == derive_roll(bytes.fromhex(p["seed"]), roll["label"], 6)
        assert (p["outcome"] == "forced") == (roll["value"] <= 3)


async def test_challenge_refusals_are_clear(services: Services) -> None:
    with pytest.raises(NotFound, match="no By This Axe duels sheet"):
        await _challenge(services, accepted=True)
    with pytest.raises(InvalidInput, match="cannot challenge themselves"):
        await services.duels.challenge(
            guild_id=GUILD,
            channel_id=CHANNEL,
            actor_id=CMDR,
            challenger=KING,
            challenged=KING,
            inputs={"accepted": True},
        )


async def _duke_sheets(database: Database) -> dict[str, object]:
    async with database.transaction() as session:
        row = (
            await session.execute(
                select(DuellistProfile).where(DuellistProfile.user_id == DUKE.user_id)
            )
        ).scalar_one()
        return dict(row.sheets or {})


async def test_the_penalty_is_remembered_generically_and_an_older_record_still_counts(
    services: Services, database: Database
) -> None:
    await _sheets(services)
    await _challenge(services, accepted=False)
    record = (await _duke_sheets(database))["by-this-axe:refusals"]
    assert record == {
        "step": "challenge", "times": 1, "sentence": "Duke loses his leadership for this turn"
    }
    # What an earlier duelbot stored for a leader's first refusal still makes the next free.
    async with database.transaction() as session:
        row = (
            await session.execute(
                select(DuellistProfile).where(DuellistProfile.user_id == DUKE.user_id)
            )
        ).scalar_one()
        row.sheets = {**(row.sheets or {}), "by-this-axe:refusals": {"refused_before": True}}
    again = await _challenge(services, accepted=False)
    assert again.outcome == "refused" and again.penalties == ()
    # The remembered penalty is no sheet: the profile shows the By This Axe sheet only.
    async with database.transaction() as session:
        row = (
            await session.execute(
                select(DuellistProfile).where(DuellistProfile.user_id == DUKE.user_id)
            )
        ).scalar_one()
        assert "by-this-axe:refusals" in (row.sheets or {})
        assert set(profile_view(row).sheets) == {"by-this-axe"}


async def test_a_ruleset_named_must_declare_the_challenge(services: Services) -> None:
    await _sheets(services)
    with pytest.raises(InvalidInput, match="FoEQ spell duel has no challenge step. These do: "
                                           r"by-this-axe \(By This Axe duels\)"):
        await services.duels.challenge(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=CMDR, challenger=KING,
            challenged=DUKE, inputs={"accepted": True}, ruleset="foeq-spell-duel",
        )
    with pytest.raises(InvalidInput, match="Unknown ruleset 'nope'"):
        await services.duels.challenge(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=CMDR, challenger=KING,
            challenged=DUKE, inputs={"accepted": True}, ruleset="nope",
        )
    with pytest.raises(InvalidInput, match=r"needs accepted \(accepted\): yes or no"):
        await services.duels.challenge(
            guild_id=GUILD, channel_id=CHANNEL, actor_id=CMDR, challenger=KING,
            challenged=DUKE, inputs={"contact": True},
        )
