"""House rules per duel and exports of every ruleset, through the real discord.py client and
the fake Discord, on both databases: `/duel start ... params:` takes the ruleset's house rules
(spelt with '-'), refuses a bad key or value naming what is allowed (nothing stored), fixes
them in duels.options, and shows them on the card, in every result post and in the Markdown
and BBCode exports, which render each fighter through the ruleset (they crashed with
KeyError 'str' for every ruleset but rule 2.14)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from sqlalchemy import func, select

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import Duel
from tests.discord.harness import World, running_world
from tests.discord.test_foeq_duel import ANN, BOB, duel_state, play
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord

BTA = "by-this-axe"
FOEQ = "foeq-spell-duel"


async def duel_row(database: Database, duel_id: int) -> Duel:
    async with database.transaction() as s:
        return (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()


async def duel_count(database: Database) -> int:
    async with database.transaction() as s:
        return int((await s.execute(select(func.count()).select_from(Duel))).scalar_one())


async def start(w: World, ruleset: str, params: str | None) -> Any:
    options: dict[str, Any] = {"a": w.ann.id, "b": w.bob.id, "ruleset": ruleset}
    if params is not None:
        options["params"] = params
    return await w.slash(w.commander, "duel", "start", **options)


def duel_number(reply: Any) -> int:
    assert "Duel #" in reply.content, reply.content
    return int(reply.content.split("Duel #")[1].split()[0])


async def exports(w: World, duel_id: int) -> dict[str, str]:
    files = {}
    for fmt in ("markdown", "bbcode", "json"):
        reply = await w.slash(w.commander, "duel", "export", duel=duel_id, format=fmt)
        assert reply.files, (fmt, reply.content)
        files[fmt] = reply.files[0].data.decode()
    return files


async def bta_sheets(w: World) -> None:
    for member, fields in ((w.ann, "character=hero wounds=3"), (w.bob, "character=hero wounds=3")):
        reply = await w.slash(
            w.commander, "sheet", "set", member=member.id, ruleset=BTA, fields=fields
        )
        assert "Sheet saved" in reply.content, reply.content


async def test_by_this_axe_house_rules_on_card_results_and_exports(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        await bta_sheets(w)
        duel_id = duel_number(await start(w, BTA, "flight=after-blows forfeit=attack-first"))
        row = await duel_row(database, duel_id)
        assert row.options["house_rules"] == {"flight": "after-blows", "forfeit": "attack-first"}
        card = (await fake.wait_for_messages(w.channel_id, 1, timeout=15))[0]
        assert "flight=after-blows" in all_text(card) and "forfeit=attack-first" in all_text(card)
        assert "Hero (4 dice)" in all_text(card)  # the ruleset's fighter summary

        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        await fake.send_dm(w.ann.id, "a2 p2 t0")
        await fake.send_dm(w.bob.id, "a1 p3 t0")
        await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        await fake.wait_for_dms(w.bob.id, 2, timeout=15)
        await w.slash(w.commander, "round", "close", duel=duel_id)
        posts = await fake.wait_for_messages(w.channel_id, 3, timeout=15)
        result = all_text(posts[-1])
        assert "house rules: " in result and "flight=after-blows" in result, result
        history = await w.services.duels.history(duel_id)
        assert history.rounds[0].result is not None
        assert (history.rounds[0].result.options.house_rules or {})["forfeit"] == "attack-first"

        files = await exports(w, duel_id)
        for fmt in ("markdown", "bbcode"):
            text = files[fmt]
            assert "flight=after-blows" in text and "forfeit=attack-first" in text, text
            assert "Character Hero (4 dice)" in text and "STR" not in text, text
        assert json.loads(files["json"])["options"]["house_rules"]["flight"] == "after-blows"


async def test_foeq_house_rules_whole_duel_and_exports(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member, fields in ((w.ann, ANN), (w.bob, BOB)):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=FOEQ,
                          fields=fields)
        reply = await start(
            w, FOEQ, "public_stake=pride disruptive=either shot-tie=public-stakes"
        )
        duel_id = duel_number(reply)
        row = await duel_row(database, duel_id)
        assert row.options["house_rules"] == {
            "strong-against": "advantage",
            "disruptive": "either",
            "shot-tie": "public-stakes",
        }
        card = (await fake.wait_for_messages(w.channel_id, 1, timeout=15))[0]
        assert "disruptive=either" in all_text(card) and "shot-tie=public-stakes" in all_text(card)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await play(w, database, duel_id)
        status, _ = await duel_state(database, duel_id)
        assert status == "ended"
        history = await w.services.duels.history(duel_id)
        posts = await fake.wait_for_messages(w.channel_id, 1 + 2 * len(history.rounds), 15)
        results = [all_text(p) for p in posts if "Adjudication (" in all_text(p)]
        assert len(results) == len(history.rounds)
        assert all("shot-tie=public-stakes" in text for text in results)
        files = await exports(w, duel_id)
        for fmt in ("markdown", "bbcode"):
            assert "disruptive=either" in files[fmt] and "Spell attack" in files[fmt]


async def test_rule_2_14_exports_in_every_format(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        for member, (s, a) in ((w.ann, (5, 3)), (w.bob, (4, 2))):
            await w.slash(w.commander, "stats", "set", member=member.id, str=s, agi=a)
        duel_id = duel_number(await start(w, "rule-2.14", None))
        await w.slash(w.commander, "round", "open", duel=duel_id)
        await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        await fake.send_dm(w.ann.id, "evade")
        await fake.wait_for_dms(w.ann.id, 2, timeout=15)
        await w.slash(w.commander, "round", "close", duel=duel_id)
        files = await exports(w, duel_id)
        assert "STR 5, AGI 3" in files["markdown"] and "STR 4, AGI 2" in files["bbcode"]
        # Its one house rule (issue 24: locked-blocks-retreat left the server settings).
        assert "House rules: locked-blocks-retreat=no" in files["markdown"]
        assert "Locked blocks retreat" not in files["markdown"]


async def test_bad_house_rules_are_refused_naming_what_is_allowed(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        await bta_sheets(w)
        for member, fields in ((w.ann, ANN), (w.bob, BOB)):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=FOEQ,
                          fields=fields)
            await w.slash(w.commander, "stats", "set", member=member.id, str=3, agi=3)
        cases = [
            (BTA, "flight=sideways", ("flight", "before-blows", "after-blows")),
            (BTA, "forfeit=nobody", ("victim-chooses", "parry-first", "attack-first")),
            (BTA, "flite=before-blows", ("flite", "flight", "forfeit")),
            (FOEQ, "strong-against=maybe", ("strong-against", "advantage", "auto-win")),
            (FOEQ, "shot-tie=coin", ("true-stakes", "public-stakes")),
            (FOEQ, "disruption=either", ("disruption", "disruptive")),
            ("rule-2.14", "flight=after-blows", ("flight", "locked-blocks-retreat (no, yes)")),
        ]
        for ruleset, params, needles in cases:
            reply = await start(w, ruleset, params)
            assert "Duel #" not in reply.content, (params, reply.content)
            for needle in needles:
                assert needle in reply.content, (params, needle, reply.content)
        assert await duel_count(database) == 0
        await asyncio.sleep(0.2)
        assert fake.messages_in(w.channel_id) == []  # no card was posted


async def test_by_this_axe_victim_chooses_the_forfeited_dice_by_dm(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """forfeit=victim-chooses: a round whose dirty trick works halts; the victim alone gets a
    DM prompt with the forfeit choices, the step closes as soon as they have chosen, and the
    round's blows follow with the dice they chose to keep."""
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member in (w.ann, w.bob):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=BTA,
                          fields="character=champion armor_save=2 wounds=20")
        duel_id = duel_number(await start(w, BTA, "forfeit=victim-chooses"))
        halted = None
        for _ in range(12):  # a trick works 1 time in 3 for each side
            status, state = await duel_state(database, duel_id)
            assert status == "live" and state.get("pending") is None
            seen = {u: len(fake.dms_to(u)) for u in (w.ann.id, w.bob.id)}
            await w.slash(w.commander, "round", "open", duel=duel_id)
            for user in (w.ann.id, w.bob.id):
                await fake.wait_for_dms(user, seen[user] + 1, timeout=15)
                await fake.send_dm(user, "a5 p6 t1")
                await fake.wait_for_dms(user, seen[user] + 2, timeout=15)
            await w.slash(w.commander, "round", "close", duel=duel_id)
            status, state = await duel_state(database, duel_id)
            if state.get("pending"):
                halted = state
                break
        assert halted is not None, "no dirty trick worked in 12 rounds"
        victims = halted["pending"]["victims"]
        users = {"a": w.ann.id, "b": w.bob.id}
        # The forfeit step is open at once, awaiting only the victims, each prompted by DM.
        for side in victims:
            user = users[side]
            for _ in range(300):
                if any("forfeit" in all_text(m) for m in fake.dms_to(user)[-2:]):
                    break
                await asyncio.sleep(0.05)
            prompt = fake.dms_to(user)[-1]
            assert "choose which dice you forfeit" in all_text(prompt), all_text(prompt)
        for side in ("a", "b"):
            if side not in victims:
                before = len(fake.dms_to(users[side]))
                await fake.send_dm(users[side], f"#{duel_id} attack")
                answer = (await fake.wait_for_dms(users[side], before + 1, timeout=15))[-1]
                assert "not your turn" in answer.content, answer.content
        for side in victims:
            before = len(fake.dms_to(users[side]))
            await fake.send_dm(users[side], f"#{duel_id} attack")
            receipt = (await fake.wait_for_dms(users[side], before + 1, timeout=15))[-1]
            assert "received" in receipt.content.lower(), receipt.content
        for _ in range(300):  # closed when the awaited sides had chosen: no commander
            status, state = await duel_state(database, duel_id)
            if not state.get("pending"):
                break
            await asyncio.sleep(0.05)
        assert not state.get("pending")
        history = await w.services.duels.history(duel_id)
        step = history.rounds[-1]
        assert step.status == "closed" and step.close_reason == "all_submitted"
        assert step.result is not None
        log = " ".join(step.result.log)
        assert "chosen by" in log and "forfeits 2 attack and 0 parry dice" in log, log
        assert step.result.outcome != "forfeit_choice"
        assert history.rounds[-2].outcome == "forfeit_choice"


# -- issue 23 item 8: the rules shown are the rules that run ----------------------------


async def status_text(w: World, duel_id: int) -> str:
    return all_text(await w.slash(w.commander, "duel", "status", duel=duel_id))


def assert_forfeit_shown(files: dict[str, str], status: str, forfeit: str) -> None:
    """Every place that shows a duel's rules names ``forfeit`` and no other reading."""
    doc = json.loads(files["json"])
    assert doc["house_rules"]["forfeit"] == forfeit, doc["house_rules"]
    assert doc["options"]["params"]["forfeit"] == forfeit, doc["options"]
    if "house_rules" in doc["options"]:  # an older duel has none recorded
        assert doc["options"]["house_rules"]["forfeit"] == forfeit, doc["options"]
    for where, text in (("markdown", files["markdown"]), ("status", status)):
        assert f"forfeit={forfeit}" in text, (where, text)
        for other in ("victim-chooses", "parry-first", "attack-first"):
            if other != forfeit:
                assert other not in text, (where, other, text)


async def test_legacy_trick_takes_is_the_forfeit_shown_everywhere(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """`params:trick_takes=attack_first` (a legacy key, still accepted) runs
    forfeit=attack-first: it is stored as that house rule, and the card, /duel status and the
    JSON and Markdown exports say so (the JSON export said victim-chooses)."""
    fake = fake_discord
    async with running_world(fake, database) as w:
        await bta_sheets(w)
        duel_id = duel_number(await start(w, BTA, "trick_takes=attack_first"))
        row = await duel_row(database, duel_id)
        assert row.state["house_rules"]["forfeit"] == "attack-first"  # what runs
        files = await exports(w, duel_id)
        assert_forfeit_shown(files, await status_text(w, duel_id), "attack-first")
        card = all_text((await fake.wait_for_messages(w.channel_id, 1, timeout=15))[0])
        assert "forfeit=attack-first" in card and "trick_takes" not in card, card
        assert "trick_takes" not in files["json"] + files["markdown"]
        assert row.options["params"] == {"forfeit": "attack-first"}  # stored canonical
        assert row.options["house_rules"]["forfeit"] == "attack-first"


async def test_a_duel_stored_with_the_legacy_key_reads_as_it_runs(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """A duel stored before the normalisation (params `trick_takes`, no house rules
    recorded) is normalised as it is read: its exports and status name forfeit=attack-first,
    and the row itself is not rewritten."""
    fake = fake_discord
    async with running_world(fake, database) as w:
        await bta_sheets(w)
        duel_id = duel_number(await start(w, BTA, "forfeit=attack-first"))
        async with database.transaction() as s:
            duel = (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()
            legacy = {k: v for k, v in duel.options.items() if k != "house_rules"}
            duel.options = {**legacy, "params": {"trick_takes": "attack_first"}}
        files = await exports(w, duel_id)
        assert_forfeit_shown(files, await status_text(w, duel_id), "attack-first")
        row = await duel_row(database, duel_id)
        assert row.options["params"] == {"trick_takes": "attack_first"}  # nothing rewritten


async def test_a_legacy_key_that_contradicts_its_house_rule_is_refused(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        await bta_sheets(w)
        reply = await start(w, BTA, "trick_takes=attack_first forfeit=parry-first")
        assert "Duel #" not in reply.content, reply.content
        assert "trick_takes" in reply.content and "give forfeit alone" in reply.content
        reply = await start(w, BTA, "trick_takes=sideways")
        assert "parry_first, attack_first" in reply.content, reply.content
        assert await duel_count(database) == 0


async def test_locked_is_parsed_as_a_boolean(
    fake_discord: FakeDiscord, database: Database
) -> None:
    """`{"locked": "false"}` started a duel locked (bool("false")) while /duel status showed
    no lock. Now a bool is parsed by its type: "false" is false, "true"/"yes"/1 true, and the
    status and the export say what runs; anything else is refused naming true/false. (Twelve
    exports by one commander: the per-member export budget is off here.)"""
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(export_burst=0)) as w:
        for member, (s, a) in ((w.ann, (5, 3)), (w.bob, (4, 2))):
            await w.slash(w.commander, "stats", "set", member=member.id, str=s, agi=a)
        for params, locked in (
            ('{"locked": "false"}', False),
            ('{"locked": "no"}', False),
            ('{"locked": false}', False),
            ('{"locked": "true"}', True),
            ("locked=yes", True),
            ('{"locked": 1}', True),
        ):
            duel_id = duel_number(await start(w, "rule-2.14", params))
            row = await duel_row(database, duel_id)
            assert row.state["locked"] is locked, (params, row.state)  # what runs
            assert row.options["params"] == {"locked": locked}, params
            status = await status_text(w, duel_id)
            assert ("locked in combat" in status) is locked, (params, status)
            doc = json.loads((await exports(w, duel_id))["json"])
            assert ("locked in combat" in doc["status_notes"]) is locked, params
        before = await duel_count(database)
        for params in ('{"locked": "maybe"}', '{"locked": 2}', "locked=nope"):
            reply = await start(w, "rule-2.14", params)
            assert "Duel #" not in reply.content, (params, reply.content)
            assert "locked must be true or false" in reply.content, reply.content
        assert await duel_count(database) == before
