from __future__ import annotations
import json
from bot.db.engine import Database
from tests.discord.harness import running_world
from tests.discord.test_foeq_duel import ANN, BOB, FOEQ
from tests.discord.test_foeq_duel import play as _play
from tests.discord import test_house_rules as hr
from tests.discord.test_full_duel import all_text
from bot.config import LimitSettings
from tests.fakediscord import FakeDiscord


def dump(fake, w, name, files):
    with open(f"/tmp/words/{name}.txt", "w") as f:
        f.write("=== CHANNEL\n")
        for m in fake.messages_in(w.channel_id):
            f.write(all_text(m) + "\n")
        for who in (w.ann, w.bob):
            f.write(f"=== DMS {who.id}\n")
            for m in fake.dms_to(who.id):
                f.write(all_text(m) + "\n")
        for k, v in files.items():
            f.write(f"=== EXPORT {k}\n{v}\n")


async def test_dump_foeq(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member, fields in ((w.ann, ANN), (w.bob, BOB)):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=FOEQ, fields=fields)
        reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset=FOEQ,
                              params="public_stake=pride challenger=a")
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        r = await w.slash(w.commander, "round", "open", duel=duel_id)
        extra = {"open_reply": r.content}
        await _play(w, database, duel_id)
        extra["status"] = all_text(await w.slash(w.commander, "duel", "status", duel=duel_id))
        files = await hr.exports(w, duel_id)
        files.update(extra)
        await fake.wait_for_messages(w.channel_id, 3, 15)
        dump(fake, w, "foeq", files)


async def test_dump_bta(fake_discord: FakeDiscord, database: Database) -> None:
    import asyncio
    from tests.discord.test_foeq_duel import duel_state
    fake = fake_discord
    BTA = "by-this-axe"
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        for member in (w.ann, w.bob):
            await w.slash(w.commander, "sheet", "set", member=member.id, ruleset=BTA,
                          fields="character=champion armor_save=2 wounds=2")
        duel_id = hr.duel_number(await hr.start(w, BTA, "forfeit=victim-chooses"))
        extra = {}
        for i in range(30):
            status, state = await duel_state(database, duel_id)
            if status != "live":
                break
            if state.get("pending"):
                victims = state["pending"]["victims"]
                users = {"a": w.ann.id, "b": w.bob.id}
                for side in victims:
                    await asyncio.sleep(0.5)
                    await fake.send_dm(users[side], f"#{duel_id} attack")
                await asyncio.sleep(1.0)
                extra[f"status{i}"] = all_text(await w.slash(w.commander, "duel", "status", duel=duel_id))
                continue
            seen = {u: len(fake.dms_to(u)) for u in (w.ann.id, w.bob.id)}
            r = await w.slash(w.commander, "round", "open", duel=duel_id)
            extra[f"open{i}"] = r.content
            for user in (w.ann.id, w.bob.id):
                await fake.wait_for_dms(user, seen[user] + 1, timeout=15)
                await fake.send_dm(user, "a5 p6 t1")
                await fake.wait_for_dms(user, seen[user] + 2, timeout=15)
            await w.slash(w.commander, "round", "close", duel=duel_id)
            await asyncio.sleep(0.3)
        extra["status"] = all_text(await w.slash(w.commander, "duel", "status", duel=duel_id))
        files = await hr.exports(w, duel_id)
        files.update(extra)
        await asyncio.sleep(1)
        dump(fake, w, "bta", files)
