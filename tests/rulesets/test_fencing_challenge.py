"""A second ruleset with a pre-duel step settles ``/duel challenge`` through the real
discord.py client and the fake Discord (issue 24 item 4, the acceptance proof): the command's
options are built from both rulesets' declarations when the bot loads its cogs, the glove is
settled in the fencing words, its penalty is remembered in the profile under the ruleset,
its inputs are refused clearly, and By This Axe's challenge keeps its options."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import Duel, DuellistProfile
from bot.discord.challenge_options import with_step_options
from bot.rules import registry
from bot.rules.terms import PreDuelInput, PreDuelStep
from tests.discord.harness import running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.rulesets.fencing import RULESET_ID
from tests.rulesets.fencing_challenge import CHALLENGING_FENCING, GLOVE, ChallengingFencing

AXE = "by-this-axe"


@pytest.fixture
def glove() -> Iterator[None]:
    """The fencing bout with its glove step, registered before the bot is created."""
    registry.register(CHALLENGING_FENCING)
    try:
        yield
    finally:
        registry.unregister(RULESET_ID)


def challenge_command(fake: FakeDiscord) -> dict[str, Any]:
    duel = next(c for c in fake.commands() if c["name"] == "duel")
    return next(o for o in duel["options"] if o["name"] == "challenge")


async def profile_sheets(database: Database, user_id: int) -> dict[str, Any]:
    async with database.transaction() as s:
        row = (
            await s.execute(select(DuellistProfile).where(DuellistProfile.user_id == user_id))
        ).scalar_one()
        return dict(row.sheets or {})


async def duel_ruleset(database: Database, duel_id: int) -> str:
    async with database.transaction() as s:
        return str((await s.execute(select(Duel.ruleset).where(Duel.id == duel_id))).scalar_one())


async def test_a_second_ruleset_settles_its_own_challenge_through_the_bot(
    glove: None, fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        command = challenge_command(fake)
        assert command["description"] == "Settle a pre-duel challenge (By This Axe, Fencing Bout)"
        options = {o["name"]: o for o in command["options"]}
        # The union of the declared inputs, described by their declarations; today's names.
        assert list(options)[:3] == ["challenger", "challenged", "accepted"]
        assert set(options) == {
            "challenger", "challenged", "accepted", "contact", "weapon", "stake", "ruleset",
        }
        assert options["accepted"]["required"] is True
        assert not options["contact"].get("required") and not options["weapon"].get("required")
        assert options["contact"]["description"].startswith("Are both characters' units")
        assert options["weapon"]["description"] == "The weapon of the bout"
        assert [c["value"] for c in options["weapon"]["choices"]] == ["foil", "epee", "sabre"]
        assert (options["stake"]["min_value"], options["stake"]["max_value"]) == (1, 5)
        assert {c["value"] for c in options["ruleset"]["choices"]} == {AXE, RULESET_ID}

        for member in (w.ann, w.bob):
            await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset=RULESET_ID,
                fields="skill=1",
            )
        # Only fencing sheets: the challenge is the fencing one without naming it.
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=True, weapon="sabre", stake=3,
        )
        assert "bob takes up the glove: a bout with the sabre for 3 crowns." in reply.content, (
            reply.content
        )
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        assert await duel_ruleset(database, duel_id) == RULESET_ID
        # The duel's card, and the challenge in the fencing words.
        posts = await fake.wait_for_messages(w.channel_id, 2, timeout=15)
        post = next(all_text(p) for p in posts if "glove" in all_text(p))
        assert "ann throws down the glove before bob" in post, post
        assert f"duel #{duel_id} begins" in post.lower(), post
        assert "leadership" not in post and "refus" not in post, post

        # Declined twice: the penalty is remembered under the ruleset, and the step knows.
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=False,
        )
        assert reply.content == (
            "bob declines the glove: no bout. bob is posted as a coward at the hall."
        ), reply.content
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=False,
        )
        assert "bob is posted again as a coward" in reply.content, reply.content
        sheets = await profile_sheets(database, w.bob.id)
        assert sheets[f"{RULESET_ID}:posted-coward"]["times"] == 2
        assert "Duel #" not in reply.content

        # Another ruleset's input is refused, naming what this one takes.
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=True, contact=True,
        )
        assert "The glove (Fencing Bout) does not take contact" in reply.content, reply.content
        assert "weapon (one of foil, epee, sabre)" in reply.content, reply.content

        # With sheets of both rulesets, the ruleset must be named; named, it is By This Axe's.
        for member, fields in ((w.ann, "character=hero"), (w.bob, "character=wizard leader=yes")):
            await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset=AXE, fields=fields
            )
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=False,
        )
        assert "name the ruleset" in reply.content and RULESET_ID in reply.content, reply.content
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=False, contact=False, ruleset=AXE,
        )
        assert "bob refuses the challenge: no duel." in reply.content, reply.content
        assert "loses his leadership for this turn" in reply.content, reply.content
        reply = await w.slash(
            w.commander, "duel", "challenge", challenger=w.ann.id, challenged=w.bob.id,
            accepted=True, weapon="epee", ruleset=AXE,
        )
        assert "The challenge (By This Axe) does not take weapon" in reply.content, reply.content


class TooManyInputs(ChallengingFencing):
    def pre_duel_steps(self) -> tuple[PreDuelStep, ...]:
        inputs = tuple(PreDuelInput(f"q{n}", "bool", f"q{n}", "?") for n in range(23))
        return (replace(GLOVE, inputs=inputs),)


def test_the_command_refuses_more_options_than_discord_allows() -> None:
    async def callback(self: Any, interaction: Any, challenger: Any, challenged: Any,
                       **inputs: Any) -> None:
        """A stand-in callback with the command's fixed parameters."""

    registry.register(TooManyInputs())
    try:
        with pytest.raises(ValueError, match="would have 28 options, over Discord's 25"):
            with_step_options(callback)
    finally:
        registry.unregister(RULESET_ID)
    # By This Axe alone: challenger, challenged, accepted, contact.
    assert list(inspect.signature(with_step_options(callback)).parameters) == [
        "self", "interaction", "challenger", "challenged", "accepted", "contact",
    ]
