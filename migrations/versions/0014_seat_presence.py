"""Presence per seat: a match's ``live`` socket counts for that (match, seat) only, and
a player stream for every match of its player, each in a table of its own.

The old ``presence`` rows counted a player's sockets of any match together, so they
cannot be split by match; they are dropped. A seat with no row counts as away since
ever, and the claim rule still waits from the seat's last move or the start of its
turn, so nobody becomes claimable by the upgrade alone.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_table("presence")
    op.create_table(
        "seat_presence",
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("process_id", sa.Text, nullable=False),
        sa.Column("sockets", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seat", "process_id", name="pk_seat_presence"),
    )
    op.create_table(
        "stream_presence",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("process_id", sa.Text, nullable=False),
        sa.Column("sockets", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "process_id", name="pk_stream_presence"),
    )


def downgrade() -> None:
    op.drop_table("stream_presence")
    op.drop_table("seat_presence")
    op.create_table(
        "presence",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("process_id", sa.Text, nullable=False),
        sa.Column("sockets", sa.Integer, nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "process_id", name="pk_presence"),
    )
