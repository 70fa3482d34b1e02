"""Move clocks: each timed match's next deadline, and who is connected, per process.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "match_deadlines",
        sa.Column("match_id", sa.Text, primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("due_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_match_deadlines_due", "match_deadlines", ["due_ms"])
    op.create_table(
        "presence",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("process_id", sa.Text, nullable=False),
        sa.Column("sockets", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "process_id", name="pk_presence"),
    )


def downgrade() -> None:
    op.drop_table("presence")
    op.drop_index("ix_match_deadlines_due", table_name="match_deadlines")
    op.drop_table("match_deadlines")
