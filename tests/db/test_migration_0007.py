"""Migration 0007 (issue 24 item 3) on SQLite and PostgreSQL: rule 2.14's STR/AGI move from
the profile's columns into ``sheets["rule-2.14"]``, the server's locked-blocks-retreat into
``guild_settings.house_rule_defaults``, and ``duels.locked`` goes (the lock is in the state).

A database holds real duels of all three rulesets, ended and mid-round (played through the
services), and is taken down to revision 0006, today's schema before this change; rows
written by hand as the code of 0006 wrote them join it. Upgraded again, the data has moved,
every duel exports exactly as before, every export verifies with the real `duelbot verify`,
and the running duels go on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Integer, column, insert, select, table

from bot.db import migrate
from bot.db.engine import make_database
from bot.db.models import Duel, DuellistProfile, GuildSettings, UTCDateTime, utcnow
from bot.exports.document import duel_document
from bot.services.container import Services
from bot.services.views import MemberRef
from tests.cli.duels import RULE_2_14, RULESETS, duelbot, play_duel
from tests.services.helpers import ALICE, BOB, COMMANDER, GUILD

CAROL = MemberRef(103, "Carol")
OTHER_GUILD = GUILD + 1
HOUSE_RULE = "locked-blocks-retreat"

# The three tables as revision 0006 has them (the models are today's).
OLD_PROFILES = table(
    "duellist_profiles",
    column("id", Integer()),
    column("guild_id", BigInteger()),
    column("user_id", BigInteger()),
    column("display_name"),
    column("strength", Integer()),
    column("agility", Integer()),
    column("sheets", JSON()),
    column("updated_by", BigInteger()),
    column("updated_at", UTCDateTime()),
)
OLD_SETTINGS = table(
    "guild_settings",
    column("guild_id", BigInteger()),
    column("change_of_choice", Boolean()),
    column("missing_move"),
    column("locked_blocks_retreat", Boolean()),
    column("updated_at", UTCDateTime()),
)
OLD_DUELS = table("duels", column("id", Integer()), column("state", JSON()), column("locked"))


async def _export(url: str, duel_id: int) -> dict[str, Any]:
    db = make_database(url)
    try:
        history = await Services.create(db).exports.duel_export(duel_id)
    finally:
        await db.dispose()
    doc: dict[str, Any] = json.loads(json.dumps(duel_document(history)))
    return doc  # as `duelbot export` prints it


def _verify(doc: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = duelbot("verify", str(path))
    assert done.returncode == 0, done.stdout + done.stderr


async def _fill_at_head(url: str) -> dict[tuple[str, str], int]:
    """Every ruleset's duels, ended and running, with the server's locked-blocks-retreat on
    (so rule 2.14's duels start with it from the server's default)."""
    db = make_database(url)
    try:
        await Services.create(db).settings.set_house_rule_default(
            GUILD, COMMANDER, RULE_2_14, HOUSE_RULE, "yes"
        )
    finally:
        await db.dispose()
    duels = {}
    for ruleset in RULESETS:
        for kind in ("ended", "live"):  # the live one last: its stats stay (Alice 3/3)
            duels[(ruleset, kind)] = await play_duel(url, ruleset, finish=kind == "ended")
    return duels


async def test_0007_moves_rule_2_14_data_and_every_export_still_verifies(
    db_url: str, tmp_path: Path
) -> None:
    await migrate.upgrade(db_url)
    duels = await _fill_at_head(db_url)
    before = {key: await _export(db_url, duel_id) for key, duel_id in duels.items()}
    assert before[(RULE_2_14, "ended")]["house_rules"] == {HOUSE_RULE: "yes"}

    # -- down to 0006: today's schema, the columns filled from the JSON -------------------
    await migrate.downgrade(db_url, "0006")
    assert await migrate.current_revision(db_url) == "0006"
    db = make_database(db_url)
    try:
        async with db.transaction() as session:
            profiles = {
                row.user_id: row
                for row in (
                    await session.execute(
                        select(
                            OLD_PROFILES.c.user_id,
                            OLD_PROFILES.c.strength,
                            OLD_PROFILES.c.agility,
                            OLD_PROFILES.c.sheets,
                        )
                    )
                ).all()
            }
            assert (profiles[ALICE.user_id].strength, profiles[ALICE.user_id].agility) == (3, 3)
            assert (profiles[BOB.user_id].strength, profiles[BOB.user_id].agility) == (2, 4)
            # Rule 2.14's sheet lives in the columns only, as the code of 0006 kept it.
            assert set(profiles[ALICE.user_id].sheets) == set(RULESETS) - {RULE_2_14}
            blocks = (
                await session.execute(
                    select(OLD_SETTINGS.c.locked_blocks_retreat).where(
                        OLD_SETTINGS.c.guild_id == GUILD
                    )
                )
            ).scalar_one()
            assert blocks is True
            locks = (await session.execute(select(OLD_DUELS.c.state, OLD_DUELS.c.locked))).all()
            assert len(locks) == len(duels)
            assert [bool(locked) for _, locked in locks] == [
                bool(state.get("locked", False)) for state, _ in locks
            ]
            # Rows as the code of 0006 wrote them: a member with STR/AGI only, and a server
            # that never turned the setting on.
            await session.execute(
                insert(OLD_PROFILES).values(
                    guild_id=GUILD,
                    user_id=CAROL.user_id,
                    display_name="Carol",
                    strength=7,
                    agility=1,
                    sheets={},
                    updated_by=COMMANDER,
                    updated_at=utcnow(),
                )
            )
            await session.execute(
                insert(OLD_SETTINGS).values(
                    guild_id=OTHER_GUILD,
                    change_of_choice=False,
                    missing_move="none",
                    locked_blocks_retreat=False,
                    updated_at=utcnow(),
                )
            )
    finally:
        await db.dispose()

    # -- up again: the data moved ------------------------------------------------------------
    await migrate.upgrade(db_url)
    db = make_database(db_url)
    try:
        async with db.transaction() as session:
            sheets = {
                p.user_id: p.sheets
                for p in (await session.execute(select(DuellistProfile))).scalars()
            }
            settings = {
                g.guild_id: g.house_rule_defaults
                for g in (await session.execute(select(GuildSettings))).scalars()
            }
            states = {d.id: d.state for d in (await session.execute(select(Duel))).scalars()}
        assert sheets[ALICE.user_id][RULE_2_14] == {"str": 3, "agi": 3}
        assert sheets[BOB.user_id][RULE_2_14] == {"str": 2, "agi": 4}
        assert set(sheets[ALICE.user_id]) == set(RULESETS)  # the other sheets kept
        assert sheets[CAROL.user_id] == {RULE_2_14: {"str": 7, "agi": 1}}
        assert settings == {
            GUILD: {RULE_2_14: {HOUSE_RULE: "yes"}},
            OTHER_GUILD: {RULE_2_14: {HOUSE_RULE: "no"}},
        }

        services = Services.create(db)
        # The services read what moved: /stats, the lock of /duel status, the default.
        carol = await services.profiles.get_stats(GUILD, CAROL)
        assert carol.sheets == {RULE_2_14: {"str": 7, "agi": 1}}
        for duel_id, state in states.items():
            view = await services.duels.get_duel(duel_id)
            # The lock is rule 2.14's own: its status notes say it (issue 24).
            locked = bool(state.get("locked", False))
            assert ("locked in combat" in view.notes) == locked
        assert (await services.settings.get(OTHER_GUILD)).house_rule_defaults == {
            RULE_2_14: {HOUSE_RULE: "no"}
        }

        # -- every duel exports as before, and verifies -------------------------------------
        for key, duel_id in duels.items():
            after = await _export(db_url, duel_id)
            assert after == before[key], key
            await asyncio.to_thread(_verify, after, tmp_path / f"{key[0]}-{key[1]}.json")

        # -- a running duel goes on: its open round closes under the rules it started with --
        live = duels[(RULE_2_14, "live")]
        await services.duels.close_round(duel_id=live, guild_id=GUILD, actor_id=COMMANDER)
        doc = await _export(db_url, live)
        assert doc["rounds"][-1]["options"][HOUSE_RULE] == "yes"
        await asyncio.to_thread(_verify, doc, tmp_path / "live-after.json")
        # ... and a new duel starts from the moved sheets and the server's default.
        started = await services.duels.start_duel(
            guild_id=GUILD,
            channel_id=1,
            actor_id=COMMANDER,
            a=CAROL,
            b=BOB,
            ruleset=RULE_2_14,
        )
        assert started.a.sheet == {"str": 7, "agi": 1}
        assert started.options["house_rules"] == {HOUSE_RULE: "yes"}
    finally:
        await db.dispose()
