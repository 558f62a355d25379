"""`duelbot verify --duel N --round K` re-checks a round stored by the bot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select, update

from bot.db.engine import make_database
from bot.db.models import Round
from bot.services.container import Services
from bot.services.views import MemberRef

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
ANN, BOB = MemberRef(1, "Ann"), MemberRef(2, "Bob")


async def _closed_round(url: str) -> int:
    db = make_database(url)
    try:
        s = Services.create(db)
        await s.profiles.set_stats(7, 9, ANN, 6, 2)
        await s.profiles.set_stats(7, 9, BOB, 3, 4)
        duel = await s.duels.start_duel(guild_id=7, channel_id=8, actor_id=9, a=ANN, b=BOB)
        await s.duels.open_round(duel_id=duel.id, guild_id=7, actor_id=9)
        await s.duels.submit_move(user_id=1, move="ffs", via="dm_text")
        await s.duels.submit_move(user_id=2, move="evade", via="dm_text")
        await s.duels.close_round(duel_id=duel.id, guild_id=7, actor_id=9)
        return duel.id
    finally:
        await db.dispose()


def _verify(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DUELBOT_DATABASE_URL": url}
    env.pop("DUELBOT_CONFIG", None)
    return subprocess.run(
        [DUELBOT, "verify", *args], env=env, capture_output=True, text=True, timeout=60
    )


async def test_verify_a_stored_round_then_a_tampered_one(migrated_db_url: str) -> None:
    duel_id = await _closed_round(migrated_db_url)
    ok = _verify(migrated_db_url, "--duel", str(duel_id), "--round", "1")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("OK")

    db = make_database(migrated_db_url)
    try:
        async with db.transaction() as session:
            rnd = (await session.execute(select(Round))).scalar_one()
            forged = dict(rnd.result or {})
            forged["outcome"] = "b_wins" if forged["outcome"] != "b_wins" else "a_wins"
            await session.execute(update(Round).values(result=forged))
    finally:
        await db.dispose()
    bad = _verify(migrated_db_url, "--duel", str(duel_id), "--round", "1")
    assert bad.returncode == 1 and "outcome" in bad.stdout


async def test_verify_refuses_an_open_or_missing_round(migrated_db_url: str) -> None:
    duel_id = await _closed_round(migrated_db_url)
    missing = _verify(migrated_db_url, "--duel", str(duel_id), "--round", "9")
    assert missing.returncode == 2 and "no round 9" in missing.stderr
    half = _verify(migrated_db_url, "--duel", str(duel_id))
    assert half.returncode == 2 and "--round" in half.stderr
