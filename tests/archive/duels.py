"""Whole duels for the archive tests: through the services (quick) and through the real
discord.py client and the fake Discord, exported with `/duel export format:html`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.exports.formats import duel_json
from bot.rules.by_this_axe.tables import RULESET_ID as BY_THIS_AXE
from bot.rules.foeq.tables import RULESET_ID as FOEQ
from bot.rules.rule_2_14.moves import RULESET_ID as RULE_2_14
from bot.services.container import Services
from bot.services.views import MemberRef
from tests.discord.harness import World, running_world
from tests.discord.test_foeq_duel import ANN as FOEQ_ANN
from tests.discord.test_foeq_duel import BOB as FOEQ_BOB
from tests.discord.test_foeq_duel import play as play_foeq
from tests.fakediscord import FakeDiscord
from tests.services.helpers import ALICE, BOB, CHANNEL, COMMANDER, GUILD

RULESETS = (RULE_2_14, BY_THIS_AXE, FOEQ)
UNDO_REASON = "Bob's move was meant for <another> duel & was sent here"


@dataclass(frozen=True)
class ExportedDuel:
    ruleset: str
    duel_id: int
    html: bytes  # the file /duel export format:html attached
    export: dict[str, Any]  # the JSON export (format:json) of the same duel

    @property
    def rolls(self) -> int:
        return sum(len((r.get("result") or {}).get("rolls", [])) for r in self.export["rounds"])


def rolls_of(export: dict[str, Any]) -> int:
    return sum(len((r.get("result") or {}).get("rolls", [])) for r in export["rounds"])


# -- through the services ---------------------------------------------------------------


async def rule_2_14_duel(
    services: Services, a: MemberRef = ALICE, b: MemberRef = BOB, *, finish: bool = True
) -> int:
    """Ann (STR 8, AGI 3) against Bob (STR 2, AGI 5): rolls of DICE1, DICE-1, DICE3, DICE-3;
    round 2 is undone with a reason; Full Frontal Strike against Evade until someone wins.
    ``finish=False`` leaves it live with round 3 open."""
    await services.profiles.set_stats(GUILD, COMMANDER, a, 8, 3)
    await services.profiles.set_stats(GUILD, COMMANDER, b, 2, 5)
    duel = await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=a, b=b
    )
    plan = [("evade", "full_frontal_strike"), ("evade", "evade")] + [
        ("full_frontal_strike", "evade")
    ] * 30
    for number, (move_a, move_b) in enumerate(plan, start=1):
        if (await services.duels.get_duel(duel.id)).status != "live":
            break
        await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
        if number == 3 and not finish:
            break
        await services.duels.submit_move(
            user_id=a.user_id, move=move_a, via="dm_text", duel_id=duel.id
        )
        await services.duels.submit_move(
            user_id=b.user_id, move=move_b, via="dm_text", duel_id=duel.id
        )
        await services.duels.close_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
        if number == 2:
            await services.duels.undo_round(
                duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason=UNDO_REASON
            )
    return duel.id


async def by_this_axe_duel(services: Services, a: MemberRef = ALICE, b: MemberRef = BOB) -> int:
    for member, sheet in ((a, {"character": "champion", "wounds": 3}), (b, {"character": "hero"})):
        await services.profiles.set_sheet(GUILD, COMMANDER, member, BY_THIS_AXE, sheet)
    duel = await services.duels.start_duel(
        guild_id=GUILD,
        channel_id=CHANNEL,
        actor_id=COMMANDER,
        a=a,
        b=b,
        ruleset=BY_THIS_AXE,
        # A trick every round: with the default (victim-chooses) each round would pause for
        # the victim's choice; the archive tests play plain rounds.
        params={"forfeit": "parry-first"},
    )
    for _ in range(12):
        if (await services.duels.get_duel(duel.id)).status != "live":
            break
        await services.duels.open_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
        await services.duels.submit_move(
            user_id=a.user_id, move="a4 p4 t1", via="dm_text", duel_id=duel.id
        )
        await services.duels.submit_move(
            user_id=b.user_id, move="2/2/0", via="dm_text", duel_id=duel.id
        )
        await services.duels.close_round(duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER)
    return duel.id


async def export_of(services: Services, duel_id: int) -> dict[str, Any]:
    return duel_json(await services.duels.history(duel_id, GUILD))


# -- through the fake Discord -----------------------------------------------------------


async def _duel_id(reply: Any) -> int:
    assert "Duel #" in reply.content, reply.content
    return int(reply.content.split("Duel #")[1].split()[0])


async def _play_rule_2_14(w: World) -> int:
    await w.slash(w.commander, "stats", "set", member=w.ann.id, str=8, agi=3)
    await w.slash(w.commander, "stats", "set", member=w.bob.id, str=2, agi=5)
    duel_id = await _duel_id(await w.slash(w.commander, "duel", "start", a=w.ann.id, b=w.bob.id))
    plan = [("evade", "ffs"), ("evade", "evade")] + [("ffs", "evade")] * 30
    for number, (move_a, move_b) in enumerate(plan, start=1):
        if (await w.services.duels.get_duel(duel_id)).status != "live":
            break
        opened = await w.slash(w.commander, "round", "open", duel=duel_id)
        assert f"Round {number}" in opened.content, opened.content
        for user, move in ((w.ann, move_a), (w.bob, move_b)):
            receipt = await w.slash(user, "move", duel=duel_id, move=move)
            assert "received" in receipt.content.lower(), receipt.content
        closed = await w.slash(w.commander, "round", "close", duel=duel_id)
        assert "closed" in closed.content, closed.content
        if number == 2:
            undone = await w.slash(w.commander, "round", "undo", duel=duel_id, reason=UNDO_REASON)
            assert "undone" in undone.content.lower(), undone.content
    return duel_id


async def _play_by_this_axe(w: World) -> int:
    for member, fields in ((w.ann, "character=champion wounds=3"), (w.bob, "character=hero")):
        reply = await w.slash(
            w.commander, "sheet", "set", member=member.id, ruleset=BY_THIS_AXE, fields=fields
        )
        assert BY_THIS_AXE in reply.content, reply.content
    duel_id = await _duel_id(
        await w.slash(
            w.commander,
            "duel",
            "start",
            a=w.ann.id,
            b=w.bob.id,
            ruleset=BY_THIS_AXE,
            params="forfeit=parry-first",
        )
    )
    for number in range(1, 13):
        if (await w.services.duels.get_duel(duel_id)).status != "live":
            break
        opened = await w.slash(w.commander, "round", "open", duel=duel_id)
        assert f"Round {number}" in opened.content, opened.content
        for user, move in ((w.ann, "a4 p4 t1"), (w.bob, "2/2/0")):
            receipt = await w.slash(user, "move", duel=duel_id, move=move)
            assert "received" in receipt.content.lower(), receipt.content
        await w.slash(w.commander, "round", "close", duel=duel_id)
    return duel_id


async def _play_foeq(w: World, database: Database) -> int:
    for member, fields in ((w.ann, FOEQ_ANN), (w.bob, FOEQ_BOB)):
        reply = await w.slash(
            w.commander, "sheet", "set", member=member.id, ruleset=FOEQ, fields=fields
        )
        assert "Sheet saved" in reply.content, reply.content
    duel_id = await _duel_id(
        await w.slash(
            w.commander,
            "duel",
            "start",
            a=w.ann.id,
            b=w.bob.id,
            ruleset=FOEQ,
            params="public_stake=pride challenger=a",
        )
    )
    opened = await w.slash(w.commander, "round", "open", duel=duel_id)
    assert "Step 1" in opened.content, opened.content
    await play_foeq(w, database, duel_id)
    return duel_id


async def play_and_export(fake: FakeDiscord, database: Database, ruleset: str) -> ExportedDuel:
    """A whole duel of ``ruleset`` through the fake Discord, to its end, then exported by an
    outsider (anyone may export) as HTML and as JSON."""
    async with running_world(fake, database, limits=LimitSettings(dm_burst=0)) as w:
        if ruleset == RULE_2_14:
            duel_id = await _play_rule_2_14(w)
        elif ruleset == BY_THIS_AXE:
            duel_id = await _play_by_this_axe(w)
        else:
            duel_id = await _play_foeq(w, database)
        assert (await w.services.duels.get_duel(duel_id)).status == "ended"
        page = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="html")
        assert page.files, page.content
        assert page.files[0].filename == f"duel-{duel_id}.html"
        as_json = await w.slash(w.outsider, "duel", "export", duel=duel_id, format="json")
        export = json.loads(as_json.files[0].data)
    return ExportedDuel(ruleset, duel_id, page.files[0].data, export)
