"""`duelbot ratings rebuild [--guild ID] [--check]` on a database the bot wrote, on SQLite
and PostgreSQL: equal after normal play, a tampered ladder is found (exit 1) and repaired."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import delete, update

from bot.config import DuelSettings
from bot.db.engine import make_database
from bot.db.models import LadderEntry, LadderRating
from bot.services.container import Services
from bot.services.views import MemberRef

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
GUILD, OTHER = 7, 8
ANN, BOB = MemberRef(1, "Ann"), MemberRef(2, "Bob")


async def _play(url: str) -> None:
    db = make_database(url)
    try:
        s = Services.create(db, DuelSettings(missing_move="forfeit"))
        for guild in (GUILD, OTHER):
            for member in (ANN, BOB):
                await s.profiles.set_stats(guild, 9, member, 5, 5)
            for winner, loser in ((ANN, BOB), (BOB, ANN), (ANN, BOB)):
                duel = await s.duels.start_duel(
                    guild_id=guild, channel_id=3, actor_id=9, a=winner, b=loser
                )
                await s.duels.open_round(duel_id=duel.id, guild_id=guild, actor_id=9)
                await s.duels.submit_move(
                    user_id=winner.user_id, move="evade", via="slash", duel_id=duel.id,
                    guild_id=guild,
                )
                await s.duels.close_round(duel_id=duel.id, guild_id=guild, actor_id=9)
    finally:
        await db.dispose()


async def _tamper(url: str) -> None:
    db = make_database(url)
    try:
        async with db.transaction() as session:
            await session.execute(
                update(LadderRating)
                .where(LadderRating.guild_id == GUILD, LadderRating.user_id == ANN.user_id)
                .values(wins=0, rating=50.0)
            )
            await session.execute(
                delete(LadderEntry).where(LadderEntry.guild_id == GUILD, LadderEntry.duel_id == 1)
            )
    finally:
        await db.dispose()


def _ratings(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DUELBOT_DATABASE_URL": url}
    env.pop("DUELBOT_CONFIG", None)
    return subprocess.run(
        [DUELBOT, "ratings", "rebuild", *args], env=env, capture_output=True, text=True,
        timeout=120,
    )


async def test_rebuild_equals_what_play_stored_and_repairs_a_tampered_ladder(
    migrated_db_url: str,
) -> None:
    await _play(migrated_db_url)
    ok = _ratings(migrated_db_url, "--check")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "server 7 rule-2.14: 3 ended duel(s), 2 member(s), equal" in ok.stdout
    assert "2 ladder(s) checked, 6 duel(s) replayed, 0 with differences." in ok.stdout

    await _tamper(migrated_db_url)
    found = _ratings(migrated_db_url, "--check")
    assert found.returncode == 1, found.stdout + found.stderr
    assert "server 7 rule-2.14" in found.stdout and "differ" in found.stdout
    assert "wins is 0" in found.stdout and "entry missing" in found.stdout
    assert "server 8 rule-2.14: 3 ended duel(s), 2 member(s), equal" in found.stdout
    only_other = _ratings(migrated_db_url, "--check", "--guild", str(OTHER))
    assert only_other.returncode == 0 and "server 7" not in only_other.stdout

    fixed = _ratings(migrated_db_url)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "(repaired)" in fixed.stdout
    again = _ratings(migrated_db_url, "--check")
    assert again.returncode == 0 and "0 with differences" in again.stdout


def test_a_bad_server_id_is_refused(migrated_db_url: str) -> None:
    bad = _ratings(migrated_db_url, "--guild", "0")
    assert bad.returncode == 2 and "--guild must be a server id" in bad.stderr
