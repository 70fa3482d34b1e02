"""The lobby's read model: one row per table, so the list of open tables is one query.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lobby_tables",
        sa.Column("table_id", sa.Text, primary_key=True),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("rules_name", sa.Text, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("private", sa.Integer, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("opened_ms", sa.BigInteger, nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
        sa.Column("guest", sa.Text, nullable=True),
        sa.Column("match_id", sa.Text, nullable=True),
        sa.Column("invitee", sa.Text, nullable=True),
        sa.Column("rematch_of", sa.Text, nullable=True),
        sa.Column("last_position", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_lobby_tables_open", "lobby_tables", ["status", "expires_ms"])
    op.create_index("ix_lobby_tables_invitee", "lobby_tables", ["invitee", "status"])


def downgrade() -> None:
    op.drop_index("ix_lobby_tables_invitee", table_name="lobby_tables")
    op.drop_index("ix_lobby_tables_open", table_name="lobby_tables")
    op.drop_table("lobby_tables")
