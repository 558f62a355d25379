"""Profile STR/AGI optional: a duellist may have only another ruleset's sheet.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 16:30:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _profiles(stats_nullable: bool) -> sa.Table:
    """The table as it stands before the change (SQLite's batch copy works from it, so the
    migration also renders offline with --sql)."""
    return sa.Table(
        "duellist_profiles",
        sa.MetaData(),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("strength", sa.Integer(), nullable=stats_nullable),
        sa.Column("agility", sa.Integer(), nullable=stats_nullable),
        sa.Column("sheets", sa.JSON(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_duellist_profiles"),
        sa.UniqueConstraint("guild_id", "user_id", name="uq_duellist_profiles_guild_id_user_id"),
    )


def upgrade() -> None:
    with op.batch_alter_table("duellist_profiles", copy_from=_profiles(False)) as batch:
        batch.alter_column("strength", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("agility", existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    # Profiles without rule 2.14 stats cannot be kept by the older schema.
    op.execute("DELETE FROM duellist_profiles WHERE strength IS NULL OR agility IS NULL")
    with op.batch_alter_table("duellist_profiles", copy_from=_profiles(True)) as batch:
        batch.alter_column("strength", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("agility", existing_type=sa.Integer(), nullable=False)
