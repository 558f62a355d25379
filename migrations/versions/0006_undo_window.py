"""The server's undo window (issue 23): guild_settings.undo_window_minutes, how long after
its close a round's result may be undone (None: the bot's configured default,
``[duels] undo_window_hours``, 24 h unless changed; 0: undo is off).

A nullable column added (batch mode, so SQLite rebuilds the table), so existing servers get
the configured default; the downgrade drops it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 06:30:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("undo_window_minutes", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("undo_window_minutes")
