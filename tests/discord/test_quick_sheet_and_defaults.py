"""Issue 24 item 3 through the real discord.py client and the fake Discord, on both
databases: `/stats set member str agi` is built from rule 2.14's quick sheet fields and
registers exactly as the hand-written command did (names, types, limits, descriptions, the
reply); a server's house-rule defaults are set with `/config house-rule` or its alias
`/config locked-blocks-retreat`, listed by `/config show`, and fill the house rules a
`/duel start` does not give (a given one wins)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.db.engine import Database
from tests.discord.harness import running_world
from tests.discord.test_house_rules import duel_number, duel_row, start
from tests.fakediscord import FakeDiscord
from tests.security.test_commander_abuse import text_of

RULE_2_14 = "rule-2.14"
USER, INTEGER = 6, 4  # Discord's option types


def subcommand(fake: FakeDiscord, group: str, name: str) -> dict[str, Any]:
    command = next(c for c in fake.commands() if c["name"] == group)
    found: dict[str, Any] = next(o for o in command["options"] if o["name"] == name)
    return found


async def test_stats_set_is_built_from_the_quick_sheet(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        stats_set = subcommand(fake_discord, "stats", "set")
        assert stats_set["description"] == "Set a member's STR and AGI for duels"
        shape = [
            (
                o["name"],
                o["type"],
                o.get("min_value"),
                o.get("max_value"),
                o["description"],
                o.get("required"),
            )
            for o in stats_set["options"]
        ]
        assert shape == [
            ("member", USER, None, None, "The duellist", True),
            ("str", INTEGER, 0, 1000, "Strength (STR)", True),
            ("agi", INTEGER, 0, 1000, "Agility (AGI)", True),
        ]
        reply = await w.slash(w.commander, "stats", "set", member=w.ann.id, str=12, agi=7)
        expected = "Stats saved: **ann**: Rule 2.14 Duelling (rule-2.14): STR 12, AGI 7."
        assert reply.content == expected
        shown = await w.slash(w.commander, "stats", "show", member=w.ann.id)
        assert "STR 12, AGI 7" in shown.content
        # Out of range: Discord's own limit is the ruleset's (the fake's client refuses it).
        with pytest.raises(ValueError, match="outside"):
            await w.slash(w.commander, "stats", "set", member=w.bob.id, str=1001, agi=1)


async def test_server_defaults_fill_the_house_rules_a_duel_does_not_give(
    fake_discord: FakeDiscord, database: Database
) -> None:
    async with running_world(fake_discord, database) as w:
        for member in (w.ann, w.bob):
            await w.slash(w.commander, "stats", "set", member=member.id, str=5, agi=3)
        shown = text_of(await w.slash(w.commander, "config", "show"))
        assert "locked-blocks-retreat=no" in shown and "(this server)" not in shown

        # The alias: the old command, now the default of rule 2.14's house rule.
        reply = await w.slash(w.commander, "config", "locked-blocks-retreat", enabled=True)
        assert "`locked-blocks-retreat=yes`" in reply.content, reply.content
        assert "applies to duels started afterwards" in reply.content
        shown = text_of(await w.slash(w.commander, "config", "show"))
        assert "locked-blocks-retreat=yes (this server)" in shown
        defaulted = await duel_row(database, duel_number(await start(w, RULE_2_14, None)))
        assert defaulted.options["house_rules"] == {"locked-blocks-retreat": "yes"}
        given = await start(w, RULE_2_14, "locked-blocks-retreat=no")
        given_row = await duel_row(database, duel_number(given))
        assert given_row.options["house_rules"] == {"locked-blocks-retreat": "no"}
        assert given_row.options["params"] == {"locked-blocks-retreat": "no"}

        # /config house-rule: the same default by its name; a bad key or value is refused,
        # naming what is allowed; no value: back to the house rule's own default.
        bad_key = await w.slash(
            w.commander, "config", "house-rule", ruleset=RULE_2_14, key="flight", value="x"
        )
        assert "not a house rule of Rule 2.14 Duelling" in bad_key.content, bad_key.content
        assert "locked-blocks-retreat" in bad_key.content
        bad_value = await w.slash(
            w.commander,
            "config",
            "house-rule",
            ruleset=RULE_2_14,
            key="locked-blocks-retreat",
            value="maybe",
        )
        assert "must be one of no, yes" in bad_value.content, bad_value.content
        reset = await w.slash(
            w.commander, "config", "house-rule", ruleset=RULE_2_14, key="locked-blocks-retreat"
        )
        assert "`locked-blocks-retreat=no`" in reset.content, reset.content
        later = await duel_row(database, duel_number(await start(w, RULE_2_14, None)))
        assert later.options["house_rules"] == {"locked-blocks-retreat": "no"}
        # A duel keeps the rules it started with.
        assert (await duel_row(database, defaulted.id)).options["house_rules"] == {
            "locked-blocks-retreat": "yes"
        }
