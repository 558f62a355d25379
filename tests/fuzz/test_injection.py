"""Unicode tricks, mentions and Markdown injection in display names and /duel end reasons,
through the real discord.py client and the fake Discord: no post can ping @everyone, @here
or a role (allowed_mentions in every message body), and names and reasons are escaped."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from tests.discord.harness import World, running_world
from tests.fakediscord import MANAGE_GUILD, FakeDiscord
from tests.fuzz.mentions import assert_inert, assert_no_mass_pings, message_bodies, text_parts

HOSTILE_NAMES = [
    ("@everyone", "<@&{role}> **bold**"),
    ("\u202eretsam [link](http://x)", "`tick` ~~s~~ ||spoiler|| @here"),
    ("\u0435v\u200bade __u__", "> quote\n# heading <@{user}>"),
]
REASONS = [
    "@everyone **stop** [link](http://x) <@&{role}>",
    "\u202e`x` @here \u200b\u0435vade ||s||",
]


def people(fake: FakeDiscord, name_a: str, name_b: str) -> dict[str, object]:
    guild = fake.add_guild("Duel Hall")
    referee = fake.add_role(guild.id, "Referee", permissions=MANAGE_GUILD)
    victim_role = fake.add_role(guild.id, "Everyone-ish", permissions=0)
    commander = fake.add_member(guild.id, "cmdr", roles=[referee], nick="@everyone cmdr").user
    outsider = fake.add_member(guild.id, "outsider").user
    fill = {"role": victim_role.id, "user": outsider.id}
    ann = fake.add_member(guild.id, "ann", nick=name_a.format(**fill)).user
    bob = fake.add_member(guild.id, "bob", nick=name_b.format(**fill)).user
    return {
        "guild": guild,
        "channel_id": guild.channel_ids[0],
        "commander": commander,
        "role_commander": commander,
        "commander_role_id": victim_role.id,
        "ann": ann,
        "bob": bob,
        "outsider": outsider,
    }


async def play(w: World, reason: str) -> None:
    fake = w.fake
    for user in (w.ann, w.bob):
        reply = await w.slash(w.commander, "stats", "set", member=user.id, str=3, agi=3)
        assert reply.ephemeral and "STR 3" in reply.content
    reply = await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
    duel_id = int(reply.content.split("Duel #")[1].split()[0])
    await w.slash(w.commander, "round", "open", duel=duel_id)
    await fake.wait_for_dms(w.ann.id, 1, timeout=5)
    await fake.send_dm(w.ann.id, "@everyone evade")
    await fake.send_dm(w.bob.id, "**ffs**")
    await fake.wait_for_dms(w.bob.id, 2, timeout=5)
    await w.slash(w.commander, "round", "close", duel=duel_id)
    await fake.wait_for_messages(w.channel_id, 3, timeout=5)
    for cmd, sub, opts in (
        ("duel", "status", {"duel": duel_id}),
        ("duel", "history", {"duel": duel_id}),
        ("duel", "list", {}),
        ("round", "status", {"duel": duel_id}),
        ("stats", "show", {"member": w.ann.id}),
        ("odds", None, {"duel": duel_id}),
    ):
        await w.slash(w.commander, cmd, sub, **opts)
    text = reason.format(role=w.commander_role_id, user=w.outsider.id)
    reply = await w.slash(w.commander, "duel", "end", duel=duel_id, reason=text)
    assert "has been ended" in reply.content
    await fake.wait_for_messages(w.channel_id, 4, timeout=5)


@pytest.mark.parametrize(("names", "reason"), list(zip(HOSTILE_NAMES, REASONS * 2, strict=False)))
async def test_hostile_names_and_reasons_never_ping(
    fake_discord: FakeDiscord, database: Database, names: tuple[str, str], reason: str
) -> None:
    fake = fake_discord
    async with running_world(fake, database, people(fake, *names)) as w:
        await play(w, reason)
        sent = assert_no_mass_pings(fake.requests)
        assert sent >= 15
        # Channel posts (webhook or bot) and every interaction answer: names are escaped.
        # (A DM reply may quote the duellist's own text back to them: not a post.)
        dms = {f"/channels/{fake.dm_channel(u.id).id}/messages" for u in (w.ann, w.bob)}
        checked = 0
        for req, body in message_bodies(fake.requests):
            if req.path not in dms:
                assert_inert(text_parts(body))
                checked += 1
        assert checked >= 12
        posts = fake.messages_in(w.channel_id)
        assert len(posts) >= 4
        end = posts[-1]
        assert "has ended" in str(end.embeds)
