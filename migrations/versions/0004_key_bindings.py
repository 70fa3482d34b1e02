"""Idempotency keys keep only the request they are bound to, not its answer.

A retried request's answer is computed again from the log (it is a pure function of
the log from the command on), so storing it cost a write per keyed action for nothing.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as table:
        table.drop_column("status")
        table.drop_column("body")


def downgrade() -> None:
    with op.batch_alter_table("idempotency_keys") as table:
        table.add_column(sa.Column("status", sa.Integer, nullable=False, server_default="0"))
        table.add_column(sa.Column("body", sa.LargeBinary, nullable=False, server_default=""))
