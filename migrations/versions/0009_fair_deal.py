"""A deal nobody can choose: each player's next server seed, and practice matches.

``players.next_seed`` is the secret server seed the player's next match (or table) will
use; its commitment is shown to the player (POST /v1/players, GET /v1/me) before the
player gives a client seed, and ``next_seed_ms`` is when it was made. ``matches.practice``
marks a match whose seed was chosen or whose rules are custom in the match lists; the
lobby lists whether a table's match gives hints and its server seed's commitment.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("next_seed", sa.Text, nullable=True))
        batch.add_column(sa.Column("next_seed_ms", sa.BigInteger, nullable=True))
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("practice", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("lobby_tables") as batch:
        batch.add_column(sa.Column("hints", sa.Integer, nullable=False, server_default="1"))
        batch.add_column(sa.Column("seed_commitment", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("lobby_tables") as batch:
        batch.drop_column("seed_commitment")
        batch.drop_column("hints")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("practice")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("next_seed_ms")
        batch.drop_column("next_seed")
