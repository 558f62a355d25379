"""When an outbox post was first tried (outbox.first_attempt_at): a retry looks for
what an earlier attempt left in the channel from that moment on, oldest first, instead of
among the channel's newest 50 messages, which a busy channel had scrolled past (the crash
tests' duplicated setup posts).

A nullable column (batch mode, so SQLite rebuilds the table); rows tried before it fall back
to their created_at. The downgrade drops it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 03:30:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("first_attempt_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("first_attempt_at")
