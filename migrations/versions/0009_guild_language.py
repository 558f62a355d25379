"""The server's language for its public posts (issue 28): guild_settings.language, a
catalog's language (``de``, ``pt_BR``) chosen with /config language; None: the server's
preferred locale as Discord reports it, else English (bot/i18n/choice.py).

A nullable column added (batch mode, so SQLite rebuilds the table): every existing server
follows its preferred locale. The downgrade drops it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 07:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("language", sa.String(length=35), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("language")
