"""Languages (issue 28): the language of each duel (duels.language, the server's at its
start), of each outbox post (outbox.language, chosen when it was written) and the one each
member last used with the bot (member_languages, for their DMs).

Nullable columns (batch mode, so SQLite rebuilds the tables): duels and posts written
before speak English, as they did. The downgrade drops them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 09:45:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("duels") as batch:
        batch.add_column(sa.Column("language", sa.String(length=35), nullable=True))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("language", sa.String(length=35), nullable=True))
    op.create_table(
        "member_languages",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("language", sa.String(length=35), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_member_languages")),
    )


def downgrade() -> None:
    op.drop_table("member_languages")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("duels") as batch:
        batch.drop_column("language")
