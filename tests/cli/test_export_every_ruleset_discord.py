"""Issue 11, "Done when": a whole duel of every ruleset played through the fake Discord exports
in every format (`/duel export` markdown, bbcode, json, html), and the JSON verifies through
`duelbot verify` (exit 0); a tampered roll value, seed, choice or outcome exits 1 naming the
round and the field."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bot.config import LimitSettings
from bot.db.engine import Database
from tests.archive.duels import RULESETS, _play_by_this_axe, _play_foeq, _play_rule_2_14
from tests.cli.duels import duelbot
from tests.discord.harness import running_world
from tests.fakediscord import FakeDiscord

FORMATS = ("markdown", "bbcode", "json", "html")


def _verify(doc: dict[str, Any]) -> tuple[int, str]:
    done = duelbot("verify", "-", stdin=json.dumps(doc))
    return done.returncode, done.stdout + done.stderr


def _last_closed_round_with_rolls(doc: dict[str, Any]) -> dict[str, Any]:
    return next(
        r
        for r in reversed(doc["rounds"])
        if r["status"] == "closed" and any(x["sides"] > 1 for x in r["result"]["rolls"])
    )


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_every_format_exports_and_the_json_verifies(
    fake_discord: FakeDiscord, database: Database, ruleset: str
) -> None:
    async with running_world(fake_discord, database, limits=LimitSettings(dm_burst=0)) as w:
        if ruleset == RULESETS[0]:
            duel_id = await _play_rule_2_14(w)
        elif ruleset == RULESETS[1]:
            duel_id = await _play_by_this_axe(w)
        else:
            duel_id = await _play_foeq(w, database)
        files = {}
        for fmt in FORMATS:
            reply = await w.slash(w.outsider, "duel", "export", duel=duel_id, format=fmt)
            assert reply.files, (fmt, reply.content)
            files[fmt] = reply.files[0].data.decode()
    doc = json.loads(files["json"])
    assert doc["ruleset"] == ruleset and doc["status"] == "ended"
    seeds = [r["seed"] for r in doc["rounds"] if r["seed"]]
    assert seeds
    for fmt in ("markdown", "bbcode", "html"):
        text = files[fmt]
        assert all(seed in text for seed in seeds), fmt  # every round, with its seed
        assert "Ann" in text or "ann" in text, fmt

    code, out = _verify(doc)
    assert code == 0, out

    target = _last_closed_round_with_rolls(doc)
    number = target["number"]
    k = next(i for i, x in enumerate(target["result"]["rolls"]) if x["sides"] > 1)

    def tampered(change: Any) -> dict[str, Any]:
        forged = copy.deepcopy(doc)
        change(next(r for r in forged["rounds"] if r["number"] == number))
        return forged

    def bump_roll(r: dict[str, Any]) -> None:
        roll = r["result"]["rolls"][k]
        roll["value"] = roll["value"] % roll["sides"] + 1

    def other_seed(r: dict[str, Any]) -> None:
        r["seed"] = ("0" if r["seed"][0] != "0" else "1") + r["seed"][1:]

    def other_outcome(r: dict[str, Any]) -> None:
        r["result"]["outcome"] = "no-such-outcome"

    for change, field in (
        (bump_roll, f"rolls[{k}].value"),
        (other_seed, "seed"),
        (other_outcome, "outcome"),
    ):
        code, out = _verify(tampered(change))
        assert code == 1, (field, out)
        assert f"round {number}" in out and field in out, (field, out)
