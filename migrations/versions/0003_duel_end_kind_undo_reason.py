"""How a duel ended (duels.end_kind), why a round was undone (rounds.undo_reason), and the
rules of every live duel fixed in duels.options.

Backfill, all in plain SQL so that the revision also renders offline (--sql):
* end_kind: an ended duel ended by a round's result has a closed round whose close time is
  the duel's end time (the close wrote both from one clock reading); every other ended duel
  was ended by a commander (/duel end, which cancels an open round or none).
* options of LIVE duels: change_of_choice, missing_move and locked_blocks_retreat are set
  from the server's settings at upgrade time (until now a running duel followed the live
  settings, so this is what its last rounds were played under); from here on they are fixed.
  Ended duels keep what they recorded (their results carry the options used).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-08 10:00:00+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

END_KIND_FROM_ROUNDS = """
UPDATE duels SET end_kind = CASE
    WHEN EXISTS (
        SELECT 1 FROM rounds
        WHERE rounds.duel_id = duels.id
          AND rounds.status = 'closed'
          AND rounds.closed_at = duels.ended_at
    ) THEN 'result'
    ELSE 'commander'
END
WHERE status = 'ended'
"""

# Correlated subqueries rather than UPDATE ... FROM, which SQLite before 3.33 lacks.
LIVE_OPTIONS_SQLITE = """
UPDATE duels SET options = (
    SELECT json_set(
        COALESCE(duels.options, '{}'),
        '$.change_of_choice', json(CASE WHEN g.change_of_choice THEN 'true' ELSE 'false' END),
        '$.missing_move', g.missing_move,
        '$.locked_blocks_retreat',
        json(CASE WHEN g.locked_blocks_retreat THEN 'true' ELSE 'false' END)
    )
    FROM guild_settings AS g WHERE g.guild_id = duels.guild_id
)
WHERE status = 'live'
  AND EXISTS (SELECT 1 FROM guild_settings AS g WHERE g.guild_id = duels.guild_id)
"""

LIVE_OPTIONS_POSTGRES = """
UPDATE duels SET options = (
    COALESCE(duels.options::jsonb, '{}'::jsonb) || jsonb_build_object(
        'change_of_choice', g.change_of_choice,
        'missing_move', g.missing_move,
        'locked_blocks_retreat', g.locked_blocks_retreat
    )
)::json
FROM guild_settings AS g
WHERE g.guild_id = duels.guild_id AND duels.status = 'live'
"""


def upgrade() -> None:
    with op.batch_alter_table("duels") as batch:
        batch.add_column(sa.Column("end_kind", sa.String(length=16), nullable=True))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("undo_reason", sa.Text(), nullable=True))
    op.execute(END_KIND_FROM_ROUNDS)
    dialect = op.get_context().dialect.name
    op.execute(LIVE_OPTIONS_POSTGRES if dialect == "postgresql" else LIVE_OPTIONS_SQLITE)


def downgrade() -> None:
    # The older schema infers the end from the text of end_reason; undo reasons are lost.
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("undo_reason")
    with op.batch_alter_table("duels") as batch:
        batch.drop_column("end_kind")
