"""The matches read model says whether each match is rated.

``matches.rated`` (1: the result moves ratings) lets the list of matches being played
be read from the read model alone, without folding every listed match from its events.
Rows already there are filled from their ``match_started`` events, read once here; a
match recorded before ratings has no ``rated`` in its event and stays 0, as it folds.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rated", sa.Integer, nullable=False, server_default="0"))
    bind = op.get_bind()
    started = bind.execute(
        sa.text("SELECT stream_id, payload FROM events WHERE type = 'match_started'")
    )
    rated = [row.stream_id for row in started if json.loads(row.payload).get("rated") is True]
    if rated:
        bind.execute(
            sa.text("UPDATE matches SET rated = 1 WHERE match_id = :match_id"),
            [{"match_id": match_id} for match_id in rated],
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rated")
