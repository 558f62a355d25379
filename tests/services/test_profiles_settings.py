"""Stats (profiles) and guild settings: validation, audit, defaults."""

from __future__ import annotations

from typing import Any

import pytest

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import AuditEntry, DuellistProfile
from bot.services.container import Services
from bot.services.errors import InvalidInput, NotFound
from bot.services.views import ProfileView
from tests.services.helpers import ALICE, BOB, COMMANDER, GUILD, audit_rows, count

RULE_2_14 = "rule-2.14"


def str_agi(view: ProfileView) -> tuple[int, int]:
    """The quick sheet `/stats` sets: rule 2.14's STR and AGI, in the profile's sheets."""
    sheet = view.sheets[RULE_2_14]
    return sheet["str"], sheet["agi"]

# -- stats -------------------------------------------------------------------------------


async def test_set_and_get_stats(services: Services, database: Database) -> None:
    view = await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 12, 7)
    assert (view.user_id, *str_agi(view)) == (ALICE.user_id, 12, 7)
    got = await services.profiles.get_stats(GUILD, ALICE)
    assert got == view
    again = await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 0, 1000)
    assert str_agi(again) == (0, 1000)
    assert str_agi(await services.profiles.get_stats(GUILD, ALICE)) == (0, 1000)
    assert await count(database, DuellistProfile) == 1
    rows = await audit_rows(database, "stats.set")
    assert [r.details["before"] for r in rows] == [None, {"str": 12, "agi": 7}]
    assert rows[-1].details["after"] == {"str": 0, "agi": 1000}
    assert all(r.actor_id == COMMANDER and r.guild_id == GUILD for r in rows)


async def test_stats_are_per_server(services: Services) -> None:
    await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 5, 5)
    with pytest.raises(NotFound, match="Alice has no stats"):
        await services.profiles.get_stats(GUILD + 1, ALICE)


@pytest.mark.parametrize(
    ("strength", "agility", "named"),
    [
        (-1, 5, "STR"),
        (1001, 5, "STR"),
        (5, -3, "AGI"),
        (5, 10_000, "AGI"),
        ("12", 5, "STR"),
        (5, 2.5, "AGI"),
        (True, 5, "STR"),
        (None, 5, "STR"),
    ],
)
async def test_invalid_stats_change_nothing(
    services: Services, database: Database, strength: Any, agility: Any, named: str
) -> None:
    await services.profiles.set_stats(GUILD, COMMANDER, BOB, 10, 10)
    audits = await count(database, AuditEntry)
    with pytest.raises(InvalidInput, match=named):
        await services.profiles.set_stats(GUILD, COMMANDER, BOB, strength, agility)
    view = await services.profiles.get_stats(GUILD, BOB)
    assert str_agi(view) == (10, 10)
    assert await count(database, AuditEntry) == audits
    with pytest.raises(InvalidInput):
        await services.profiles.set_stats(GUILD, COMMANDER, ALICE, strength, agility)
    with pytest.raises(NotFound):
        await services.profiles.get_stats(GUILD, ALICE)


# -- settings ----------------------------------------------------------------------------


async def test_defaults_come_from_duel_settings(database: Database) -> None:
    defaults = DuelSettings(
        change_of_choice=True, missing_move="forfeit", locked_blocks_retreat=True
    )
    view = await Services.create(database, defaults).settings.get(GUILD)
    assert view.change_of_choice is True
    assert view.missing_move == "forfeit"
    # config.toml's [duels] locked_blocks_retreat: rule 2.14's house rule for new servers.
    assert view.house_rule_defaults == {RULE_2_14: {"locked-blocks-retreat": "yes"}}
    assert (view.commander_role_id, view.admin_role_id, view.results_channel_id) == (
        None,
        None,
        None,
    )
    plain = await Services.create(database).settings.get(GUILD + 1)
    assert (plain.change_of_choice, plain.missing_move, plain.house_rule_defaults) == (
        False,
        "none",
        {},
    )


async def test_every_setter_is_audited_with_before_and_after(
    services: Services, database: Database
) -> None:
    s = services.settings
    await s.set_change_of_choice(GUILD, 7, True)
    await s.set_commander_role(GUILD, 7, 555)
    await s.set_admin_role(GUILD, 7, 666)
    await s.set_results_channel(GUILD, 7, 777)
    await s.set_missing_move(GUILD, 7, "forfeit")
    view = await s.set_house_rule_default(GUILD, 7, RULE_2_14, "Locked_Blocks_Retreat", "on")
    assert view.change_of_choice
    assert view.house_rule_defaults == {RULE_2_14: {"locked-blocks-retreat": "yes"}}
    assert (view.commander_role_id, view.admin_role_id, view.results_channel_id) == (555, 666, 777)
    assert view.missing_move == "forfeit"
    assert await s.get(GUILD) == view
    rows = await audit_rows(database)
    got = {r.action: (r.details["before"], r.details["after"]) for r in rows}
    assert got == {
        "config.change_of_choice": (False, True),
        "config.commander_role_id": (None, 555),
        "config.admin_role_id": (None, 666),
        "config.results_channel_id": (None, 777),
        "config.missing_move": ("none", "forfeit"),
        "config.house_rule": (None, "yes"),
    }
    (house,) = await audit_rows(database, "config.house_rule")
    assert house.details["ruleset"] == RULE_2_14
    assert house.details["key"] == "locked-blocks-retreat"
    assert all(r.actor_id == 7 and r.guild_id == GUILD for r in rows)
    await s.set_commander_role(GUILD, 8, None)
    last = (await audit_rows(database, "config.commander_role_id"))[-1]
    assert (last.actor_id, last.details) == (8, {"before": 555, "after": None})


@pytest.mark.parametrize("policy", ["", "lose", "FORFEIT", "random"])
async def test_missing_move_policy_is_validated(
    services: Services, database: Database, policy: str
) -> None:
    with pytest.raises(InvalidInput, match="none, forfeit"):
        await services.settings.set_missing_move(GUILD, COMMANDER, policy)
    assert (await services.settings.get(GUILD)).missing_move == "none"
    assert await count(database, AuditEntry) == 0


async def test_house_rule_defaults_are_validated_and_reset(
    services: Services, database: Database
) -> None:
    s = services.settings
    unknown = r"not a house rule of Rule 2\.14 Duelling \(its house rules: locked-blocks-retreat\)"
    with pytest.raises(InvalidInput, match=unknown):
        await s.set_house_rule_default(GUILD, 7, RULE_2_14, "flight", "yes")
    with pytest.raises(InvalidInput, match="locked-blocks-retreat must be one of no, yes"):
        await s.set_house_rule_default(GUILD, 7, RULE_2_14, "locked-blocks-retreat", "maybe")
    with pytest.raises(InvalidInput, match="Unknown ruleset 'no-such'"):
        await s.set_house_rule_default(GUILD, 7, "no-such", "x", "y")
    assert await count(database, AuditEntry) == 0
    await s.set_house_rule_default(GUILD, 7, "by-this-axe", "flight", "after-blows")
    await s.set_house_rule_default(GUILD, 7, RULE_2_14, "locked-blocks-retreat", "yes")
    view = await s.set_house_rule_default(GUILD, 7, RULE_2_14, "locked-blocks-retreat", None)
    assert view.house_rule_defaults == {"by-this-axe": {"flight": "after-blows"}}
    assert (await s.get(GUILD + 1)).house_rule_defaults == {}


async def test_settings_are_per_server(services: Services) -> None:
    await services.settings.set_change_of_choice(GUILD, COMMANDER, True)
    assert (await services.settings.get(GUILD)).change_of_choice is True
    assert (await services.settings.get(GUILD + 1)).change_of_choice is False
