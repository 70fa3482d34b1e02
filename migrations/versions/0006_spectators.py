"""Spectator counts per match and server process, so every process reports the same total.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "spectators",
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("process_id", sa.Text, nullable=False),
        sa.Column("watchers", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "process_id", name="pk_spectators"),
    )


def downgrade() -> None:
    op.drop_table("spectators")
