"""The lobby lists each table's move clock from its own row, not from the table's stream.

``lobby_tables.clock`` is the table's clock as JSON (NULL: untimed). The rows already
there were projected without it, so the lobby projection starts again from position 0
(its rows and checkpoint are dropped): the next catch-up, which every endpoint reading
the lobby runs first, refills them from the log with their clocks.

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lobby_tables") as batch:
        batch.add_column(sa.Column("clock", sa.Text, nullable=True))
    op.execute("DELETE FROM lobby_tables")
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'lobby'")


def downgrade() -> None:
    with op.batch_alter_table("lobby_tables") as batch:
        batch.drop_column("clock")
