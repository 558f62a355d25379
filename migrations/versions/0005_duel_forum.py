"""The server's duel forum (issue 13): guild_settings.duel_forum_id, the forum channel in
which /duel start opens one post per duel (None: duels stay where they are started).

A nullable column added, so existing servers keep today's behaviour; the downgrade drops it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 23:30:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("duel_forum_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("duel_forum_id")
