"""The lobby projection: a listed table carries everything the list shows, its clock too.

GET /v1/tables is built from these rows alone; a field missing here would have to be
read from each table's stream, one read per listed table.
"""

from __future__ import annotations

from domain.rules import Clock
from infra.projections import projector
from infra.projections.lobby import open_public_tables
from infra.sql_event_store import SqlEventStore
from tests.infra.helpers import OPENED_MS, open_table


async def test_each_listed_table_carries_its_clock(store: SqlEventStore) -> None:
    clocks = {
        await open_table(store, Clock(per_move_ms=30_000)): Clock(per_move_ms=30_000),
        await open_table(store, Clock(bank_ms=60_000, increment_ms=2000)): Clock(
            bank_ms=60_000, increment_ms=2000
        ),
        await open_table(store, None): None,
    }
    await projector(store).catch_up("lobby")
    rows = await open_public_tables(store.engine, OPENED_MS + 1)
    assert {row.table_id: row.clock for row in rows} == clocks
