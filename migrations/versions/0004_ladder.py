"""The ladder (issue 17): per server and ruleset, each member's record and rating
(ladder_ratings), one line per member and ended duel in replay order (ladder_entries), and
one lock-and-marker row per ladder (ladders).

Everything here is derived from the ended duels: the upgrade creates the tables empty, and
`duelbot ratings rebuild` (or the first duel that ends) fills them from history. The
downgrade drops them; nothing else refers to them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-10 10:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("last_ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_duel_id", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "ruleset", name=op.f("pk_ladders")),
    )
    op.create_table(
        "ladder_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("name_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("duels", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("retreats", sa.Integer(), nullable=False),
        sa.Column("commander_ended", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("last_duel_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_ratings")),
        sa.UniqueConstraint(
            "guild_id",
            "ruleset",
            "user_id",
            name=op.f("uq_ladder_ratings_guild_id_ruleset_user_id"),
        ),
    )
    with op.batch_alter_table("ladder_ratings") as batch:
        batch.create_index(
            "ix_ladder_ratings_rank", ["guild_id", "ruleset", "rating", "user_id"], unique=False
        )
    op.create_table(
        "ladder_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("duel_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("opponent_id", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.Column("rating_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["duel_id"],
            ["duels.id"],
            name=op.f("fk_ladder_entries_duel_id_duels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladder_entries")),
        sa.UniqueConstraint(
            "duel_id", "user_id", name=op.f("uq_ladder_entries_duel_id_user_id")
        ),
    )
    with op.batch_alter_table("ladder_entries") as batch:
        batch.create_index(
            "ix_ladder_entries_member",
            ["guild_id", "ruleset", "user_id", "ended_at"],
            unique=False,
        )
        batch.create_index(
            "ix_ladder_entries_order",
            ["guild_id", "ruleset", "ended_at", "duel_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("ladder_entries") as batch:
        batch.drop_index("ix_ladder_entries_order")
        batch.drop_index("ix_ladder_entries_member")
    op.drop_table("ladder_entries")
    with op.batch_alter_table("ladder_ratings") as batch:
        batch.drop_index("ix_ladder_ratings_rank")
    op.drop_table("ladder_ratings")
    op.drop_table("ladders")
