"""Initial schema.

Guild settings, duellist profiles, duels, rounds, submissions, outbox, channel webhooks,
audit log. Hand-checked against bot/db/models.py. Our ids are Integer primary keys, Discord ids are
BigInteger snowflakes, UTCDateTime columns are DateTime(timezone=True), and every
constraint and index has its naming-convention name.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 15:34:24+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("change_of_choice", sa.Boolean(), nullable=False),
        sa.Column("commander_role_id", sa.BigInteger(), nullable=True),
        sa.Column("admin_role_id", sa.BigInteger(), nullable=True),
        sa.Column("results_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("missing_move", sa.String(length=16), nullable=False),
        sa.Column("locked_blocks_retreat", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_settings")),
    )

    op.create_table(
        "duellist_profiles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("strength", sa.Integer(), nullable=False),
        sa.Column("agility", sa.Integer(), nullable=False),
        sa.Column("sheets", sa.JSON(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_duellist_profiles")),
        sa.UniqueConstraint(
            "guild_id", "user_id", name=op.f("uq_duellist_profiles_guild_id_user_id")
        ),
    )

    op.create_table(
        "duels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("a_user_id", sa.BigInteger(), nullable=False),
        sa.Column("b_user_id", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("locked", sa.Boolean(), nullable=False),
        sa.Column("winner", sa.String(length=1), nullable=True),
        sa.Column("end_reason", sa.Text(), nullable=True),
        sa.Column("rounds_played", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_duels")),
    )
    op.create_index("ix_duels_guild_status", "duels", ["guild_id", "status"])
    op.create_index("ix_duels_a_user_status", "duels", ["a_user_id", "status"])
    op.create_index("ix_duels_b_user_status", "duels", ["b_user_id", "status"])

    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("duel_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("opened_by", sa.BigInteger(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reminders_sent", sa.JSON(), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("state_before", sa.JSON(), nullable=False),
        sa.Column("closed_by", sa.BigInteger(), nullable=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("close_reason", sa.String(length=32), nullable=True),
        sa.Column("outcome", sa.String(length=32), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("undone_by", sa.BigInteger(), nullable=True),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["duel_id"], ["duels.id"], name=op.f("fk_rounds_duel_id_duels"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.UniqueConstraint("duel_id", "number", name=op.f("uq_rounds_duel_id_number")),
    )
    op.create_index("ix_rounds_status_deadline", "rounds", ["status", "deadline"])

    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("side", sa.String(length=1), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("move", sa.String(length=64), nullable=False),
        sa.Column("via", sa.String(length=16), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["round_id"],
            ["rounds.id"],
            name=op.f("fk_submissions_round_id_rounds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
    )
    op.create_index("ix_submissions_round_side", "submissions", ["round_id", "side"])

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=120), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("duel_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=8), nullable=False),
        sa.Column("target_id", sa.BigInteger(), nullable=False),
        sa.Column("on_behalf_of", sa.BigInteger(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("posted_message_id", sa.BigInteger(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["duel_id"], ["duels.id"], name=op.f("fk_outbox_duel_id_duels"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_outbox_dedupe_key")),
    )
    op.create_index("ix_outbox_status_next_attempt", "outbox", ["status", "next_attempt_at"])

    op.create_table(
        "channel_webhooks",
        sa.Column("channel_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("webhook_id", sa.BigInteger(), nullable=False),
        sa.Column("webhook_token", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_channel_webhooks")),
    )

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("actor_id", sa.BigInteger(), nullable=True),
        sa.Column("action", sa.String(length=48), nullable=False),
        sa.Column("duel_id", sa.Integer(), nullable=True),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_guild_created", "audit_log", ["guild_id", "created_at"])


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes and constraints.
    op.drop_table("audit_log")
    op.drop_table("channel_webhooks")
    op.drop_table("outbox")
    op.drop_table("submissions")
    op.drop_table("rounds")
    op.drop_table("duels")
    op.drop_table("duellist_profiles")
    op.drop_table("guild_settings")
