"""Revocable, expiring tokens in a table of their own, and shared rate-limit counters.

Each player's one ``players.token_hash`` moves to ``tokens`` (no expiry: a token handed
out before expiries existed never had one), so rotation and "sign out everywhere" are
a row inserted and rows deleted. ``rate_limits`` holds fixed-window counters that every
server process increments, so a limit holds across workers.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tokens",
        sa.Column("token_hash", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_tokens_player", "tokens", ["player_id"])
    op.execute(
        "INSERT INTO tokens (token_hash, player_id, created_at, expires_ms) "
        "SELECT token_hash, id, created_at, NULL FROM players"
    )
    with op.batch_alter_table("players") as batch:
        batch.drop_column("token_hash")
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("window_start", sa.BigInteger, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("key", "window_start", name="pk_rate_limits"),
    )


def downgrade() -> None:
    op.drop_table("rate_limits")
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("token_hash", sa.Text, nullable=True))
    # Each player gets back one of its tokens (the newest); the others are lost.
    op.execute(
        "UPDATE players SET token_hash = (SELECT t.token_hash FROM tokens t "
        "WHERE t.player_id = players.id ORDER BY t.created_at DESC LIMIT 1)"
    )
    op.drop_index("ix_tokens_player", "tokens")
    op.drop_table("tokens")
