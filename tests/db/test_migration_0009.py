"""Migration 0009 on SQLite and PostgreSQL: a server's settings survive it, with no language
(its posts follow its preferred locale); /config language then stores one, and the
downgrade drops the column and keeps the row."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import JSON, Connection, column, insert, inspect, select, table, text

from bot.config import DuelSettings
from bot.db import migrate
from bot.db.engine import make_database
from bot.db.models import UTCDateTime
from bot.services.container import Services
from bot.services.errors import InvalidInput

GUILD = 4242
ROW = {
    "guild_id": GUILD,
    "change_of_choice": True,
    "commander_role_id": 77,
    "admin_role_id": None,
    "results_channel_id": None,
    "missing_move": "forfeit",
    "house_rule_defaults": {},
    "duel_forum_id": None,
    "undo_window_minutes": 90,
    "updated_at": datetime(2026, 12, 1, tzinfo=UTC),
}
# guild_settings as revision 0008 has it (today's model has the language column).
SETTINGS_0008 = table(
    "guild_settings",
    *(
        column(key, JSON() if key == "house_rule_defaults" else
               UTCDateTime() if key == "updated_at" else None)
        for key in ROW
    ),
)


def column_names(conn: Connection) -> list[str]:
    return [c["name"] for c in inspect(conn).get_columns("guild_settings")]


async def test_existing_settings_get_no_language_then_set_one(db_url: str) -> None:
    await migrate.upgrade(db_url, "0008")
    db = make_database(db_url)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(insert(SETTINGS_0008).values(**ROW))
        await migrate.upgrade(db_url, "0009")

        settings = Services.create(db, DuelSettings()).settings
        view = await settings.get(GUILD)
        assert view.language is None
        assert (view.change_of_choice, view.commander_role_id, view.missing_move) == (
            True, 77, "forfeit"
        )
        assert (await settings.set_language(GUILD, 1, "de-DE")).language == "de"
        assert (await settings.get(GUILD)).language == "de"
        with pytest.raises(InvalidInput) as refused:
            await settings.set_language(GUILD, 1, "xx")
        assert refused.value.allowed == ("en", "de")
        assert "Nothing was changed" in refused.value.message
        assert (await settings.set_language(GUILD, 1, None)).language is None
    finally:
        await db.dispose()

    await migrate.downgrade(db_url, "0008")
    db = make_database(db_url)
    try:
        async with db.engine.connect() as conn:
            kept = (await conn.execute(select(SETTINGS_0008))).mappings().one()
            assert kept["undo_window_minutes"] == 90 and kept["commander_role_id"] == 77
            columns = await conn.run_sync(column_names)
        assert "language" not in columns
        async with db.engine.connect() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM guild_settings"))).scalar() == 1
    finally:
        await db.dispose()
