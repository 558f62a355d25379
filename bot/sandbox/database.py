"""The sandbox acts only for its own stand-in server: a `--database` that already holds rows
(another server's duels, outbox, settings; a live bot's database) is refused before anything
runs on it, since the bot's scheduler and poster would act on those rows.

The check only reads (no migration, no worker); it runs before `prepare_database` migrates.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool

from bot.db.engine import make_engine

#: alembic's own bookkeeping: a migrated but empty database has only this row.
BOOKKEEPING_TABLES = frozenset({"alembic_version"})
#: How many server ids the refusal names at most.
SHOWN_GUILDS = 5


@dataclass(frozen=True)
class Occupied:
    """What a database already holds: the tables with rows and the servers they belong to."""

    tables: tuple[str, ...]
    guild_ids: tuple[int, ...]


async def existing_rows(url: str) -> Occupied | None:
    """None when the database holds no row of duelbot's (empty or only migrated)."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            found = await conn.run_sync(_scan)
            await conn.rollback()  # read only: nothing to keep
    finally:
        await engine.dispose()
    return found


def _scan(conn: Connection) -> Occupied | None:
    inspector = inspect(conn)
    tables: list[str] = []
    guilds: set[int] = set()
    for table in sorted(inspector.get_table_names()):
        if table in BOOKKEEPING_TABLES:
            continue
        quoted = conn.dialect.identifier_preparer.quote(table)
        if conn.execute(text(f"SELECT 1 FROM {quoted} LIMIT 1")).first() is None:
            continue
        tables.append(table)
        if any(c["name"] == "guild_id" for c in inspector.get_columns(table)):
            rows = conn.execute(
                text(f"SELECT DISTINCT guild_id FROM {quoted} WHERE guild_id IS NOT NULL "
                     f"LIMIT {SHOWN_GUILDS + 1}")
            )
            guilds.update(int(row[0]) for row in rows)
    if not tables:
        return None
    return Occupied(tuple(tables), tuple(sorted(guilds)))


def refusal(where: str, found: Occupied) -> str:
    """The one line that says why the database is refused and what to do."""
    servers = ", ".join(str(g) for g in found.guild_ids[:SHOWN_GUILDS])
    if len(found.guild_ids) > SHOWN_GUILDS:
        servers += ", ..."
    held = f"rows of server(s) {servers}" if servers else "rows"
    return (
        f"duelbot sandbox: --database {where} already holds {held} (in "
        f"{', '.join(found.tables)}); the sandbox acts only for its own stand-in server and "
        "would run its scheduler and poster on them, so it refuses: pass an empty database, "
        "or leave out --database (a temporary one)"
    )
