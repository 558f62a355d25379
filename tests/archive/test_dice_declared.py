"""What each ruleset declares for the archive page's checks (issue 23, item 10): its dice
and how its log states them. Checked here in Python, with the same regular expression the
page runs, over a whole duel of each ruleset played through the services: every roll is a
declared die and each round's log states exactly its recorded rolls, in order."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.db.engine import Database
from bot.exports.formats import duel_json
from bot.rules import registry
from bot.rules.registry import all_rulesets
from bot.services.container import Services
from tests.cli.duels import RULESETS, play_duel
from tests.services.helpers import GUILD


def test_every_ruleset_declares_its_dice_and_its_log_pattern() -> None:
    for rules in all_rulesets():
        assert rules.log_dice_pattern, rules.id
        re.compile(rules.log_dice_pattern)


@pytest.mark.parametrize("finish", [True, False], ids=["ended", "running"])
@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_whole_duel_rolls_declared_dice_and_its_log_states_every_roll(
    migrated_db_url: str, database: Database, ruleset: str, finish: bool
) -> None:
    """Ended, and still running (the export a running duel gives: public results only)."""
    duel_id = await play_duel(migrated_db_url, ruleset, finish=finish)
    export: dict[str, Any] = duel_json(
        await Services.create(database).duels.history(duel_id, GUILD)
    )
    rules = registry.get(ruleset)
    dice = rules.dice_for(export["duellists"])
    assert dice, ruleset
    pattern = rules.log_dice_pattern
    assert pattern is not None
    rounds_with_rolls = 0
    for r in export["rounds"]:
        result = r.get("result") or {}
        rolls = result.get("rolls", [])
        rounds_with_rolls += bool(rolls)
        assert {roll["sides"] for roll in rolls} <= set(dice), (r["number"], dice)
        assert rules.stated_dice(result.get("log", [])) == [roll["value"] for roll in rolls], (
            r["number"],
            result.get("log"),
            rolls,
        )
    assert rounds_with_rolls > 0
