"""Index the matches read model by status and start, for the matches in play.

``GET /v1/matches/watchable`` lists the active matches, newest first, from every
match a server has ever held; without an index each request would read them all.
Only an index is added: no row changes.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_matches_in_play", "matches", ["status", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_matches_in_play", table_name="matches")
