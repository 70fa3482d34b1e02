"""Index ``updated_ms`` of the per-process count rows, which every process sweeps.

Each server process deletes the stale rows of ``seat_presence``, ``stream_presence``
and ``spectators`` every few seconds (``WHERE updated_ms < …``). Presence rows of seats
that left stay a week, one per (match, seat, process), so without an index each sweep
read the whole table. Only indexes are added: no row changes.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SWEPT = ("seat_presence", "stream_presence", "spectators")


def upgrade() -> None:
    for table in SWEPT:
        op.create_index(f"ix_{table}_updated", table, ["updated_ms"])


def downgrade() -> None:
    for table in SWEPT:
        op.drop_index(f"ix_{table}_updated", table_name=table)
