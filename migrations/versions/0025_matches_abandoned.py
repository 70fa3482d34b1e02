"""The matches read model says which matches both players abandoned.

``matches.abandoned`` (1: the house AI settled the match while both seats were away, so
it moved no rating and counts in no won/lost total) lets a player's list say so instead
of "won" or "lost". Rows already there are filled from their ``match_settled`` events,
read once here; a settlement recorded before abandonment was decided has no
``abandoned`` in its event and stays 0, as it folds.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("abandoned", sa.Integer, nullable=False, server_default="0"))
    bind = op.get_bind()
    settled = bind.execute(
        sa.text("SELECT stream_id, payload FROM events WHERE type = 'match_settled'")
    )
    abandoned = [
        row.stream_id for row in settled if json.loads(row.payload).get("abandoned") is True
    ]
    if abandoned:
        bind.execute(
            sa.text("UPDATE matches SET abandoned = 1 WHERE match_id = :match_id"),
            [{"match_id": match_id} for match_id in abandoned],
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("abandoned")
