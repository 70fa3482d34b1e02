"""Blocking a player: the ``player_blocks`` read model (who blocks whom).

One row per block in force, primary key (blocker, blocked), folded by the ``blocks``
projection from the ``blocks:<player>`` streams. The projection's checkpoint starts just
before the first block event in the log, which on first upgrade is the log's head (no
server wrote one before this revision): its first catch-up then reads nothing old,
rather than every event ever stored, in whichever request comes first. (After a
downgrade and an upgrade the log keeps its block events, and they are folded again.)

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_blocks",
        sa.Column("blocker", sa.Text, nullable=False),
        sa.Column("blocked", sa.Text, nullable=False),
        sa.Column("blocked_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("blocker", "blocked", name="pk_player_blocks"),
    )
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'blocks'")
    op.execute(
        "INSERT INTO projection_checkpoints (name, position) "
        "SELECT 'blocks', coalesce("
        "(SELECT min(position) - 1 FROM events "
        "WHERE type IN ('player_blocked', 'player_unblocked')), "
        "(SELECT position FROM log_head WHERE id = 1))"
    )


def downgrade() -> None:
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'blocks'")
    op.drop_table("player_blocks")
