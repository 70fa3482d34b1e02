"""The event store, its idempotency record, players, idempotency keys and read models.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    log_head = op.create_table(
        "log_head",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(log_head, [{"id": 1, "position": 0}])
    op.create_table(
        "events",
        sa.Column("position", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("stream_id", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("recorded_at", TZ, nullable=False),
        sa.Column("command_id", sa.Text, nullable=True),
        sa.UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
    )
    op.create_table(
        "commands",
        sa.Column("command_id", sa.Text, primary_key=True),
        sa.Column("stream_id", sa.Text, nullable=False),
        sa.Column("command_hash", sa.Text, nullable=True),
        sa.Column("first_version", sa.Integer, nullable=False),
        sa.Column("last_version", sa.Integer, nullable=False),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.Column("recorded_at", TZ, nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("token_hash", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("request_hash", sa.Text, nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "key", name="pk_idempotency_keys"),
    )
    op.create_table(
        "projection_checkpoints",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.Column("opponent", sa.Text, nullable=False),
        sa.Column("rules_name", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("opponent_score", sa.Integer, nullable=False),
        sa.Column("hands_played", sa.Integer, nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("finished_at", TZ, nullable=True),
        sa.Column("winner", sa.Text, nullable=True),
        sa.Column("last_position", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_matches"),
    )
    op.create_index("ix_matches_player", "matches", ["player_id", "started_at"])
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.Text, primary_key=True),
        *(
            sa.Column(name, sa.Integer, nullable=False)
            for name in (
                "matches_won",
                "matches_lost",
                "hands_won",
                "hands_lost",
                "hands_washed",
                "gins",
                "undercuts_given",
                "undercuts_received",
                "knocks",
                "points",
            )
        ),
    )
    op.create_table(
        "stats_seats",
        sa.Column("match_id", sa.Text, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_stats_seats"),
    )


def downgrade() -> None:
    op.drop_table("stats_seats")
    op.drop_table("player_stats")
    op.drop_index("ix_matches_player", table_name="matches")
    op.drop_table("matches")
    op.drop_table("projection_checkpoints")
    op.drop_table("idempotency_keys")
    op.drop_table("players")
    op.drop_table("commands")
    op.drop_table("events")
    op.drop_table("log_head")
