"""More installed rulesets than Discord's 25 choices (issue 24, item 5): the `ruleset`
options autocomplete instead of refusing to load, and a ruleset offered that way plays."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from discord import app_commands

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.discord.ruleset_choices import MAX_CHOICES, matching
from bot.rules import registry
from tests.discord.harness import running_world
from tests.fakediscord import FakeDiscord
from tests.rulesets.fencing import Fencing

EXTRA = 25  # with the three built-in ones: 28 rulesets


def bout(number: int) -> Fencing:
    class Numbered(Fencing):
        id = f"bout-{number:02d}"
        title = f"Bout Number {number}"

    return Numbered()


@pytest.fixture
def many() -> Iterator[list[str]]:
    added = [registry.register(bout(n)).id for n in range(EXTRA)]
    try:
        yield added
    finally:
        for ruleset_id in added:
            registry.unregister(ruleset_id)


def option(commands: list[dict[str, Any]], *path: str) -> dict[str, Any]:
    """The option at ``path`` (command, subcommand..., option) of the synced commands."""
    (found,) = (c for c in commands if c["name"] == path[0])
    for name in path[1:]:
        (found,) = (o for o in found.get("options") or () if o["name"] == name)
    return found


def test_matching_filters_by_title_or_id_and_stops_at_25() -> None:
    choices = [app_commands.Choice(name=f"Bout Number {n}", value=f"bout-{n:02d}")
               for n in range(40)]  # fmt: skip
    assert [c.value for c in matching(choices, "NUMBER 3")] == [
        "bout-03", *(f"bout-{n}" for n in range(30, 40))
    ]
    assert [c.value for c in matching(choices, "bout-1")] == [f"bout-{n}" for n in range(10, 20)]
    assert len(matching(choices, "")) == MAX_CHOICES
    assert matching(choices, "chess") == []


async def test_over_25_rulesets_the_ruleset_options_autocomplete(
    many: list[str], fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    assert len(registry.ids()) > MAX_CHOICES
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        commands = fake.commands()
        for path in (
            ("duel", "start", "ruleset"),
            ("sheet", "set", "ruleset"),
            ("leaderboard", "ruleset"),
            ("config", "house-rule", "ruleset"),
        ):
            ruleset = option(commands, *path)
            assert ruleset.get("autocomplete") is True and not ruleset.get("choices"), path
        handle = await fake.autocomplete(
            w.guild.id, w.channel_id, w.commander.id, "duel", "ruleset", subcommand="start",
            options={"a": w.ann.id, "b": w.bob.id, "ruleset": "number 2"},
        )  # fmt: skip
        offered = [c["value"] for c in (await handle.response()).data["choices"]]
        assert offered == ["bout-02", "bout-20", "bout-21", "bout-22", "bout-23", "bout-24"]

        for member in (w.ann, w.bob):
            reply = await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset="bout-21",
                fields="skill=1",
            )  # fmt: skip
            assert "Sheet saved" in reply.content, reply.content
        reply = await w.slash(
            w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset="bout-21"
        )
        assert "Duel #" in reply.content, reply.content
        # Typed past the suggestions: the services name the known ids.
        reply = await w.slash(
            w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset="bout-99"
        )
        assert "bout-99" in reply.content and "bout-21" in reply.content, reply.content
