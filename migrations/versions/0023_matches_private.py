"""The matches read model says which matches are watched only with a watch code.

``matches.private`` (1: the match has a watch code) keeps such a match off the list of
matches being played: a private table's (which the list also leaves out through the
lobby) and, from now on, a practice match dealt from a chosen seed, which gets a watch
code of its own because anyone could guess a seed like ``demo`` and see every card.
Rows already there are filled from their ``match_started`` events, read once here.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("private", sa.Integer, nullable=False, server_default="0"))
    bind = op.get_bind()
    started = bind.execute(
        sa.text("SELECT stream_id, payload FROM events WHERE type = 'match_started'")
    )
    private = [row.stream_id for row in started if json.loads(row.payload).get("watch_code")]
    if private:
        bind.execute(
            sa.text("UPDATE matches SET private = 1 WHERE match_id = :match_id"),
            [{"match_id": match_id} for match_id in private],
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("private")
