"""One-time sign-in codes: a player signed in on one device lets another in with a code.

``sign_in_codes`` holds each live code as its SHA-256, with the player it signs in, when
it expires and the token that made it (the code works only while that token does); one
row per player at most (a new code replaces the old one), deleted as it is redeemed, so
of two redeems of one code exactly one finds it.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_in_codes",
        sa.Column("code_hash", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
        sa.Column("issuer_hash", sa.Text, nullable=False),
        sa.UniqueConstraint("player_id", name="uq_sign_in_codes_player"),
    )


def downgrade() -> None:
    op.drop_table("sign_in_codes")
