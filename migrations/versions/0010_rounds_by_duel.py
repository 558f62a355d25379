"""An index on rounds (duel_id, status): a move finds its duel's open round through it
(issue 27: what grows with the number of live duels).

Without it, SQLite's planner (no statistics: duelbot runs no ANALYZE) reached a duel's open
round through ix_rounds_status_deadline, scanning every open round of every duel: a click
cost more the more duels were live. The unique (duel_id, number) index would serve the
duel, but the planner preferred the status index for the status test.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 07:30:00+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rounds_duel_status", "rounds", ["duel_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_rounds_duel_status", table_name="rounds")
