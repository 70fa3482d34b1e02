"""Ratings: each record's Glicko-2 numbers, a history row per rated match, rated tables.

Revision ID: 0012
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("rating_id", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("anchored", sa.Integer, nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_ratings_player", "ratings", ["player_id"])
    op.create_index("ix_ratings_rating", "ratings", ["rating"])
    op.create_table(
        "rating_history",
        sa.Column("rating_id", sa.Text, nullable=False),
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("opponent", sa.Text, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("rating_id", "match_id", name="pk_rating_history"),
    )
    op.create_index(
        "ix_rating_history_position", "rating_history", ["rating_id", "position"]
    )
    op.create_table(
        "rated_matches",
        sa.Column("match_id", sa.Text, primary_key=True),
        sa.Column("seat0", sa.Text, nullable=False),
        sa.Column("seat1", sa.Text, nullable=False),
    )
    with op.batch_alter_table("lobby_tables") as batch:
        batch.add_column(sa.Column("rated", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("lobby_tables") as batch:
        batch.drop_column("rated")
    op.drop_table("rated_matches")
    op.drop_index("ix_rating_history_position", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_rating", table_name="ratings")
    op.drop_index("ix_ratings_player", table_name="ratings")
    op.drop_table("ratings")
