"""Issue 23: `duelbot sandbox --database` acts only for its own stand-in server. A database
holding another server's rows (a live bot's: an overdue round, pending posts) is refused
with one line before anything runs on it, and is left exactly as it was, on SQLite and
PostgreSQL; the database password is never printed."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import Base, OutboxPost, Round, utcnow
from bot.services.container import Services
from tests.sandbox.support import DUELBOT, running_sandbox
from tests.services.helpers import GUILD, duel_with_round

PASSWORD = "Sw0rdfish-not-for-your-eyes"


def with_password(url: str) -> str:
    """The same database, its URL carrying a password (PostgreSQL here trusts any)."""
    if url.startswith("sqlite"):
        return url
    return make_url(url).set(password=PASSWORD).render_as_string(hide_password=False)


async def snapshot(database: Database) -> dict[str, list[str]]:
    """Every row of every table, as text: what "nothing changed" is compared on."""
    async with database.transaction() as s:
        return {
            table.name: sorted(repr(tuple(row)) for row in (await s.execute(select(table))))
            for table in Base.metadata.sorted_tables
        }


async def test_a_database_holding_another_server_is_refused_and_left_as_it_was(
    migrated_db_url: str, database: Database, tmp_path: Path
) -> None:
    # A live server's duel: an overdue open round, its cards, prompts and post still pending.
    services = Services.create(database, DuelSettings())
    duel_id = await duel_with_round(services)
    async with database.transaction() as s:
        overdue = (await s.execute(select(Round).where(Round.duel_id == duel_id))).scalar_one()
        overdue.deadline = utcnow().replace(year=2020)
        pending = (await s.execute(select(OutboxPost))).scalars().all()
    assert pending and all(p.status == "pending" for p in pending)
    before = await snapshot(database)

    url = with_password(migrated_db_url)
    proc = subprocess.Popen(
        [DUELBOT, "sandbox", "--port", "0", "--database", url], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # it started, as it used to: let the damage show
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert await snapshot(database) == before, "the sandbox changed another server's rows"
    assert proc.returncode == 2, (proc.returncode, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--database" in lines[0]  and str(GUILD) in lines[0], err
    assert "already holds rows of server(s) " in lines[0] and "empty database" in lines[0]
    assert "open http" not in out, "the page was served"
    assert PASSWORD not in out + err
    if not url.startswith("sqlite"):
        assert "***" in lines[0]


@pytest.mark.parametrize(
    "db_backend", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_the_database_password_is_never_printed(db_url: str, tmp_path: Path) -> None:
    with running_sandbox(tmp_path, "--database", with_password(db_url)) as sb:
        sb.wait_for_commands()
        status, _ = sb.stop(signal.SIGINT, timeout=20)
        out, err = sb.stdout.read_text(), sb.stderr_text()
        assert status == 0, err
    assert "database: postgresql+asyncpg://postgres:***@" in out, out
    assert PASSWORD not in out and PASSWORD not in err
