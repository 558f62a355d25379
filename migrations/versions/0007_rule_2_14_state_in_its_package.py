"""Rule 2.14's state in rule 2.14's package (issue 24 item 3).

* duellist_profiles.strength/agility -> ``sheets["rule-2.14"] = {"str": .., "agi": ..}``
  (a profile with both set; one without keeps its other sheets), columns dropped;
* guild_settings.locked_blocks_retreat -> the new JSON column ``house_rule_defaults``,
  ``{"rule-2.14": {"locked-blocks-retreat": "yes" | "no"}}``, column dropped;
* duels.locked dropped: the lock is in rule 2.14's state (``state["locked"]``), which every
  close and undo wrote together with the column.

Nothing else is rewritten: a duel's options, rounds and results stay as stored (an older
duel's ``options.locked_blocks_retreat`` true/false is read as the house rule's no/yes), so
the exports of every duel are the same before and after. The rows are moved in SQL (one
statement per table and dialect, so ``alembic upgrade --sql`` writes them too). The
downgrade restores the columns from the JSON (rule 2.14's sheet back into the columns and
out of ``sheets``, the lock from each duel's state).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 11:40:00+00:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import context, op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The ids and keys spelt out (not imported): a later rename in bot/rules must not rewrite
# history. SQLite's JSON path quotes a key with "." or "-" in it.
UPGRADE_SQLITE = (
    """
    UPDATE duellist_profiles SET sheets = json_set(
        COALESCE(sheets, '{}'), '$."rule-2.14"', json_object('str', strength, 'agi', agility)
    )
    WHERE strength IS NOT NULL AND agility IS NOT NULL
    """,
    """
    UPDATE guild_settings SET house_rule_defaults = json_object(
        'rule-2.14',
        json_object(
            'locked-blocks-retreat', CASE WHEN locked_blocks_retreat THEN 'yes' ELSE 'no' END
        )
    )
    """,
)
# sheets is JSON (not JSONB) on PostgreSQL: through jsonb for the merge, and back.
UPGRADE_POSTGRES = (
    """
    UPDATE duellist_profiles SET sheets = (
        COALESCE(sheets::jsonb, '{}'::jsonb)
        || jsonb_build_object('rule-2.14', jsonb_build_object('str', strength, 'agi', agility))
    )::json
    WHERE strength IS NOT NULL AND agility IS NOT NULL
    """,
    """
    UPDATE guild_settings SET house_rule_defaults = json_build_object(
        'rule-2.14',
        json_build_object(
            'locked-blocks-retreat', CASE WHEN locked_blocks_retreat THEN 'yes' ELSE 'no' END
        )
    )
    """,
)
# Every SET reads the row as it was, so the sheet is read before it is removed.
DOWNGRADE_SQLITE = (
    "UPDATE duels SET locked = COALESCE(json_extract(state, '$.locked'), 0)",
    """
    UPDATE duellist_profiles SET
        strength = json_extract(sheets, '$."rule-2.14".str'),
        agility = json_extract(sheets, '$."rule-2.14".agi'),
        sheets = json_remove(sheets, '$."rule-2.14"')
    """,
    """
    UPDATE guild_settings SET locked_blocks_retreat = CASE
        WHEN json_extract(house_rule_defaults, '$."rule-2.14"."locked-blocks-retreat"') = 'yes'
        THEN 1 ELSE 0 END
    """,
)
DOWNGRADE_POSTGRES = (
    "UPDATE duels SET locked = COALESCE((state->>'locked')::boolean, false)",
    """
    UPDATE duellist_profiles SET
        strength = (sheets->'rule-2.14'->>'str')::integer,
        agility = (sheets->'rule-2.14'->>'agi')::integer,
        sheets = (sheets::jsonb - 'rule-2.14')::json
    """,
    """
    UPDATE guild_settings SET locked_blocks_retreat = COALESCE(
        house_rule_defaults->'rule-2.14'->>'locked-blocks-retreat' = 'yes', false
    )
    """,
)


def _run(sqlite: tuple[str, ...], postgres: tuple[str, ...]) -> None:
    for statement in postgres if op.get_context().dialect.name == "postgresql" else sqlite:
        op.execute(statement)


# -- the tables as they stand before a batch: only for ``alembic upgrade --sql`` on SQLite,
# where batch mode cannot reflect them (online, it reflects the real table).


def _guild_settings(*extra: sa.Column[Any]) -> sa.Table:
    return sa.Table(
        "guild_settings",
        sa.MetaData(),
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("change_of_choice", sa.Boolean(), nullable=False),
        sa.Column("commander_role_id", sa.BigInteger(), nullable=True),
        sa.Column("admin_role_id", sa.BigInteger(), nullable=True),
        sa.Column("results_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("missing_move", sa.String(length=16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duel_forum_id", sa.BigInteger(), nullable=True),
        sa.Column("undo_window_minutes", sa.Integer(), nullable=True),
        *extra,
        sa.PrimaryKeyConstraint("guild_id", name="pk_guild_settings"),
    )


def _profiles() -> sa.Table:
    return sa.Table(
        "duellist_profiles",
        sa.MetaData(),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("strength", sa.Integer(), nullable=True),
        sa.Column("agility", sa.Integer(), nullable=True),
        sa.Column("sheets", sa.JSON(), nullable=False),
        sa.Column("updated_by", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_duellist_profiles"),
        sa.UniqueConstraint("guild_id", "user_id", name="uq_duellist_profiles_guild_id_user_id"),
    )


def _duels(locked_nullable: bool) -> sa.Table:
    return sa.Table(
        "duels",
        sa.MetaData(),
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
        sa.Column("locked", sa.Boolean(), nullable=locked_nullable),
        sa.Column("winner", sa.String(length=1), nullable=True),
        sa.Column("end_reason", sa.Text(), nullable=True),
        sa.Column("rounds_played", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("end_kind", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_duels"),
        sa.Index("ix_duels_guild_status", "guild_id", "status"),
        sa.Index("ix_duels_a_user_status", "a_user_id", "status"),
        sa.Index("ix_duels_b_user_status", "b_user_id", "status"),
    )


def _offline(table: sa.Table) -> sa.Table | None:
    return table if context.is_offline_mode() else None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("house_rule_defaults", sa.JSON(), nullable=True))
    _run(UPGRADE_SQLITE, UPGRADE_POSTGRES)
    before = _guild_settings(
        sa.Column("locked_blocks_retreat", sa.Boolean(), nullable=False),
        sa.Column("house_rule_defaults", sa.JSON(), nullable=True),
    )
    with op.batch_alter_table("guild_settings", copy_from=_offline(before)) as batch:
        batch.alter_column("house_rule_defaults", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("locked_blocks_retreat")
    with op.batch_alter_table("duellist_profiles", copy_from=_offline(_profiles())) as batch:
        batch.drop_column("strength")
        batch.drop_column("agility")
    with op.batch_alter_table("duels", copy_from=_offline(_duels(False))) as batch:
        batch.drop_column("locked")


def downgrade() -> None:
    with op.batch_alter_table("duels") as batch:
        batch.add_column(sa.Column("locked", sa.Boolean(), nullable=True))
    with op.batch_alter_table("duellist_profiles") as batch:
        batch.add_column(sa.Column("strength", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("agility", sa.Integer(), nullable=True))
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("locked_blocks_retreat", sa.Boolean(), nullable=True))
    _run(DOWNGRADE_SQLITE, DOWNGRADE_POSTGRES)
    before = _guild_settings(
        sa.Column("house_rule_defaults", sa.JSON(), nullable=False),
        sa.Column("locked_blocks_retreat", sa.Boolean(), nullable=True),
    )
    with op.batch_alter_table("guild_settings", copy_from=_offline(before)) as batch:
        batch.alter_column("locked_blocks_retreat", existing_type=sa.Boolean(), nullable=False)
        batch.drop_column("house_rule_defaults")
    with op.batch_alter_table("duels", copy_from=_offline(_duels(True))) as batch:
        batch.alter_column("locked", existing_type=sa.Boolean(), nullable=False)
