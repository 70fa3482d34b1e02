"""A player is a person or a bot (a program), shown as such everywhere it appears.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("kind", sa.Text, nullable=False, server_default="person"))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("kind")
