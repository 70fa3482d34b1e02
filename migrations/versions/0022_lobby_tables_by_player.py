"""Index the lobby's tables by host and by guest.

A rename reads the tables its player hosts, was invited to or sat at as a guest (whom
its name must not pass for: ``infra.projections.queries.seen_with``), and the lobby
reads a host's open tables for its cap; without these indexes each read scanned every
table ever opened. Only indexes are added: no row changes.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_lobby_tables_host", "lobby_tables", ["host", "status"])
    op.create_index("ix_lobby_tables_guest", "lobby_tables", ["guest", "status"])


def downgrade() -> None:
    op.drop_index("ix_lobby_tables_guest", table_name="lobby_tables")
    op.drop_index("ix_lobby_tables_host", table_name="lobby_tables")
