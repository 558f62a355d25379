"""A whole By This Axe duel through the real discord.py client and the fake Discord: sheets,
start with the ruleset, secret allotments by DM text, rounds until one side is defeated or
flees, every roll re-derivable from the revealed seeds."""

from __future__ import annotations

import random

from bot.db.engine import Database
from bot.rules.dice import derive_roll
from tests.discord.harness import running_world
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord


async def test_a_whole_by_this_axe_duel(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    rng = random.Random(7)
    async with running_world(fake, database) as w:
        reply = await w.slash(
            w.commander,
            "sheet",
            "set",
            member=w.ann.id,
            ruleset="by-this-axe",
            fields="character=champion armor_save=5 wounds=2",
        )
        assert "by-this-axe" in reply.content and "champion" in reply.content.lower()
        reply = await w.slash(
            w.commander,
            "sheet",
            "set",
            member=w.bob.id,
            ruleset="by-this-axe",
            fields="character=hero wounds=1",
        )
        assert "hero" in reply.content.lower()
        bad = await w.slash(
            w.commander,
            "sheet",
            "set",
            member=w.bob.id,
            ruleset="by-this-axe",
            fields="character=dragon",
        )
        assert "dragon" in bad.content and "hero" in bad.content  # names what is allowed

        # Parry first: this duel's rounds never halt for a victim's choice (that step has
        # its own test in test_house_rules.py).
        reply = await w.slash(
            w.commander,
            "duel",
            "start",
            a=w.ann.id,
            b=w.bob.id,
            ruleset="by-this-axe",
            params="forfeit=parry-first",
        )
        duel_id = int(reply.content.split("Duel #")[1].split()[0])
        ann_dms = bob_dms = 0
        for round_no in range(1, 13):
            reply = await w.slash(w.commander, "round", "open", duel=duel_id)
            assert f"Round {round_no}" in reply.content, reply.content
            ann_dms += 1
            bob_dms += 1
            prompt = (await fake.wait_for_dms(w.ann.id, ann_dms, timeout=15))[-1]
            await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
            assert "as text" in all_text(prompt)  # a champion has too many allotments
            if round_no == 1:
                # Flight is not allowed in the first round: a clear refusal.
                await fake.send_dm(w.bob.id, "flee")
                bob_dms += 1
                dms = await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
                assert "round" in dms[-1].content.lower() and "flee" in dms[-1].content.lower()
            a_attack = rng.randint(1, 10)
            await fake.send_dm(w.ann.id, f"a{a_attack} p{11 - a_attack} t1")
            ann_dms += 1
            dms = await fake.wait_for_dms(w.ann.id, ann_dms, timeout=15)
            assert f"Attack {a_attack}" in dms[-1].content
            await fake.send_dm(w.bob.id, f"#{duel_id} 2/2/0")
            bob_dms += 1
            dms = await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
            assert "Attack 2, Parry 2" in dms[-1].content
            await w.slash(w.commander, "round", "close", duel=duel_id)
            duel = await w.services.duels.get_duel(duel_id)
            if duel.status == "ended":
                break
        assert duel.status == "ended"
        history = await w.services.duels.history(duel_id)
        for record in history.rounds:
            assert record.seed is not None and record.result is not None
            for roll in record.result.rolls:
                assert roll.sides == 6
                assert roll.value == derive_roll(bytes.fromhex(record.seed), roll.label, roll.sides)
        last = history.rounds[-1].result
        assert last is not None and last.outcome in ("a_wins", "b_wins", "both_defeated")
        # The final result is posted in the channel with the moves revealed.
        posts = await fake.wait_for_messages(w.channel_id, 1 + 2 * len(history.rounds), timeout=15)
        assert any("Attack 2, Parry 2" in all_text(p) for p in posts)
        exported = await w.slash(w.commander, "duel", "export", duel=duel_id, format="json")
        assert exported.files and b"by-this-axe" in exported.files[0].data


async def test_challenge_through_the_bot(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        for member, fields in ((w.ann, "character=hero"), (w.bob, "character=wizard leader=yes")):
            await w.slash(
                w.commander,
                "sheet",
                "set",
                member=member.id,
                ruleset="by-this-axe",
                fields=fields,
            )
        reply = await w.slash(
            w.commander,
            "duel",
            "challenge",
            challenger=w.ann.id,
            challenged=w.bob.id,
            accepted=False,
        )
        assert "refuses the challenge" in reply.content, reply.content
        assert "loses his leadership for this turn" in reply.content, reply.content
        posts = await fake.wait_for_messages(w.channel_id, 1, timeout=15)
        assert "challenges" in all_text(posts[-1]) and "refuses" in all_text(posts[-1])
        assert "leadership" in all_text(posts[-1])
        reply = await w.slash(
            w.commander,
            "duel",
            "challenge",
            challenger=w.ann.id,
            challenged=w.bob.id,
            accepted=True,
        )
        assert "Duel #" in reply.content
        refused = await w.slash(
            w.outsider,
            "duel",
            "challenge",
            challenger=w.ann.id,
            challenged=w.bob.id,
            accepted=True,
        )
        assert "commander" in refused.content.lower()
