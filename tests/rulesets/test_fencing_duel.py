"""The fourth ruleset, registered by this test only, plays a whole duel through the real
discord.py client and the fake Discord on both databases (issue 11, "Done when"): sheets
and the start name it like any ruleset, the DM prompt's buttons and DM text carry the
moves, the exports in every format show its fighters and house rule, and the JSON export
verifies through the code `duelbot verify` runs (in this process: a subprocess could not
know a ruleset that only a test registers). Nothing outside tests/rulesets/ knows it."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot import cli
from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import Duel
from bot.rules import registry
from tests.discord.harness import World, running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.rulesets.fencing import FENCING, RULESET_ID

FORMATS = ("markdown", "bbcode", "json", "html")


@pytest.fixture
def fencing() -> Iterator[None]:
    """FENCING in the registry for one test. Registered before the bot is created: the bot
    reads the registry when it loads its commands (a plug-in registers at start-up)."""
    registry.register(FENCING)
    try:
        yield
    finally:
        registry.unregister(RULESET_ID)


async def duel_status(database: Database, duel_id: int) -> tuple[str, dict[str, Any]]:
    async with database.transaction() as s:
        row = (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()
        return row.status, dict(row.state)


async def next_dm(w: World, user_id: int, seen: int) -> Any:
    return (await w.fake.wait_for_dms(user_id, seen + 1, timeout=15))[-1]


async def play_round(
    w: World, duel_id: int, round_no: int, ann_move: str, bob_move: str, bob_by_text: bool
) -> None:
    """Open round ``round_no``; Ann clicks her prompt's button, Bob clicks or types; close."""
    seen = {u: len(w.fake.dms_to(u)) for u in (w.ann.id, w.bob.id)}
    reply = await w.slash(w.commander, "round", "open", duel=duel_id)
    assert f"Round {round_no}" in reply.content, reply.content
    prompts = {u: await next_dm(w, u, seen[u]) for u in (w.ann.id, w.bob.id)}
    for user, prompt in prompts.items():
        # The ruleset's three actions are the prompt's buttons, named by its labels.
        ids = set(prompt.custom_ids())
        actions = ("thrust", "feint", "parry")
        assert ids == {f"duelbot:move:{duel_id}:{round_no}:{m}" for m in actions}
        assert "Thrust" in all_text(prompt) and "Parry" in all_text(prompt), user
    handle = await w.fake.click_button(
        w.ann.id, prompts[w.ann.id], f"duelbot:move:{duel_id}:{round_no}:{ann_move}"
    )
    receipt = await handle.reply()
    assert ann_move.capitalize() in str(receipt.content), receipt.content
    if bob_by_text:
        await w.fake.send_dm(w.bob.id, bob_move.upper())
        receipt = await next_dm(w, w.bob.id, seen[w.bob.id] + 1)
    else:
        handle = await w.fake.click_button(
            w.bob.id, prompts[w.bob.id], f"duelbot:move:{duel_id}:{round_no}:{bob_move}"
        )
        receipt = await handle.reply()
    assert bob_move.capitalize() in str(receipt.content), receipt.content
    reply = await w.slash(w.commander, "round", "close", duel=duel_id)
    assert "Duel #" in reply.content or "closed" in reply.content.lower(), reply.content


async def export_files(w: World, duel_id: int) -> dict[str, str]:
    files = {}
    for fmt in FORMATS:
        reply = await w.slash(w.commander, "duel", "export", duel=duel_id, format=fmt)
        assert reply.files, (fmt, reply.content)
        files[fmt] = reply.files[0].data.decode()
    return files


def ruleset_choices(commands: list[dict[str, Any]]) -> set[str]:
    """Every value offered for a ``ruleset`` option of any registered command."""
    found: set[str] = set()

    def walk(options: list[dict[str, Any]]) -> None:
        for option in options:
            if option.get("name") == "ruleset":
                found.update(c["value"] for c in option.get("choices") or ())
            walk(option.get("options") or [])

    walk(commands)
    return found


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`duelbot verify FILE` as the command line runs it, in this process."""
    capsys.readouterr()
    code = cli.main(["verify", str(path)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


async def test_a_fourth_ruleset_registered_by_a_test_plays_exports_and_verifies(
    fencing: None,
    fake_discord: FakeDiscord,
    database: Database,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        # The commands' ruleset choices come from the registry as the bot loads its cogs.
        assert RULESET_ID in ruleset_choices(fake.commands()), ruleset_choices(fake.commands())
        for member in (w.ann, w.bob):
            reply = await w.slash(
                w.commander, "sheet", "set", member=member.id, ruleset=RULESET_ID,
                fields="skill=1",
            )
            assert "Sheet saved" in reply.content, reply.content
        bad = await w.slash(
            w.commander, "sheet", "set", member=w.bob.id, ruleset=RULESET_ID, fields="skill=9"
        )
        assert "skill must be a whole number from 0 to 3" in bad.content, bad.content

        reply = await w.slash(
            w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset=RULESET_ID,
            params="touches=2",
        )
        assert "Duel #" in reply.content, reply.content
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        card = (await fake.wait_for_messages(w.channel_id, 1, timeout=15))[0]
        assert "Fencing Bout" in all_text(card) and "touches=2" in all_text(card)

        # Round 1: thrust beats feint (Bob types his); round 2: the same action both, a
        # tie-break on the dice; then thrust against feint until Ann has her two touches.
        await play_round(w, duel_id, 1, "thrust", "feint", bob_by_text=True)
        await play_round(w, duel_id, 2, "parry", "parry", bob_by_text=False)
        round_no = 2
        while (await duel_status(database, duel_id))[0] != "ended":
            round_no += 1
            assert round_no <= 6, "the bout did not end"
            await play_round(w, duel_id, round_no, "thrust", "feint", bob_by_text=True)
        status, state = await duel_status(database, duel_id)
        assert status == "ended" and state["winner"] in ("a", "b")
        winner = state["winner"]
        assert state[winner]["touches"] == 2

        history = await w.services.duels.history(duel_id)
        assert len(history.rounds) == round_no
        assert history.rounds[1].result is not None
        assert len(history.rounds[1].result.rolls) == 2
        posts = await fake.wait_for_messages(w.channel_id, 1 + 2 * round_no, timeout=15)
        results = [all_text(p) for p in posts if "Adjudication (" in all_text(p)]
        assert len(results) == round_no
        assert "ann scores a touch" in results[0] and "touches=2" in results[0], results[0]
        assert "wins the bout" in results[-1], results[-1]

        files = await export_files(w, duel_id)

    for fmt in ("markdown", "bbcode"):
        text = files[fmt]
        assert "Skill 1, Touches" in text and "touches=2" in text, (fmt, text)
        assert "wins the bout" in text and "STR" not in text, (fmt, text)
    document = json.loads(files["json"])
    assert document["ruleset"] == RULESET_ID and document["status"] == "ended"
    assert document["house_rules"] == {"touches": "2"}
    # The fighters as snapshotted at the start (docs/export-format.md), as the card shows them.
    assert document["duellists"][winner]["summary"] == [["Skill", "1"], ["Touches", "0"]]
    assert f'"ruleset": "{RULESET_ID}"' in files["html"] and '"Touches"' in files["html"]
    assert '"touches": "2"' in files["html"]

    path = tmp_path / "bout.json"
    path.write_text(files["json"], encoding="utf-8")
    code, out = verify(path, capsys)
    assert code == 0, out
    assert f"OK: duel {duel_id} ({RULESET_ID}): {round_no} round(s)" in out, out

    tampered = copy.deepcopy(document)
    roll = tampered["rounds"][1]["result"]["rolls"][0]
    roll["value"] = roll["value"] % 6 + 1
    path.write_text(json.dumps(tampered), encoding="utf-8")
    code, out = verify(path, capsys)
    assert code == 1, out
    assert "NOT VERIFIED: round 2: rolls[0].value" in out, out
