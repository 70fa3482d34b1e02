"""Counts kept in one server process's memory, shared with every process as rows.

Presence (sockets per seat and per player stream) and spectators (watchers per match)
are counted the same way: each process counts what it holds open, and writes one row
per counted key and process (``key columns…, process_id, <count>, updated_ms``). The
readers sum or inspect the rows whose ``updated_ms`` is fresh, so a killed process stops
counting once its rows go stale; a refresh rewrites a process's rows while they count.

A refresh writes all of a process's rows in one transaction, one multi-row
``INSERT … ON CONFLICT DO UPDATE`` per batch (SQLite and PostgreSQL both have it), not a
transaction per row. The sweep of stale rows runs in a transaction of its own after it:
it deletes other processes' rows, and if it loses to a concurrent sweep, the live rows
just written must not be rolled back with it (they would go stale and count as gone).
A process's own writes take turns (one lock): a refresh writes the counts it read, and
a socket closing meanwhile must not have its row rewritten as still open.

On PostgreSQL a change may also be told (``notice``): a NOTIFY on ``channel`` sent in the
change's own transaction, so a listener hears of it only once the row it reads is
committed. A refresh tells nothing: a row going stale is silence, and readers poll for it.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, and_, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra.clock import now_ms
from infra.database import upsert_dialect
from infra.driver_errors import translate_errors

Key = tuple[Any, ...]  # the values of a table's key columns, in their order

# Rows per statement: 5 columns a row keeps each well under SQLite's 32,766 parameters.
BATCH_ROWS = 500

# How often a process rewrites its rows, by default (``GINRUMMY_PRESENCE_REFRESH_S``).
REFRESH_S = 5.0
# A row counts for this many refresh periods after it was written, so a refresh that runs
# late on a loaded machine leaves its process's sockets counted meanwhile.
FRESH_REFRESHES = 4


def fresh_ms(refresh_s: float) -> int:
    """How long a row written by a process refreshing every ``refresh_s`` counts, in ms."""
    return round(FRESH_REFRESHES * refresh_s * 1000)


class CountedRows:
    """One table of per-process counts, and this process's count per key in it.

    ``keep_empty``: a key whose count falls to zero keeps its row, its time saying when
    the count emptied (presence: "away since"); otherwise the row is deleted.
    """

    def __init__(self, table: Table, key: Sequence[str], count: str, *, keep_empty: bool) -> None:
        self.table = table
        self.key = tuple(key)
        self.count = count
        self.keep_empty = keep_empty
        self.counts: Counter[Key] = Counter()

    def row(self, key: Key, process_id: str, at_ms: int) -> dict[str, Any]:
        return {
            **dict(zip(self.key, key, strict=True)),
            "process_id": process_id,
            self.count: self.counts.get(key, 0),
            "updated_ms": at_ms,
        }

    def take_one(self, key: Key) -> None:
        self.counts[key] -= 1
        if self.counts[key] <= 0:
            del self.counts[key]


class ProcessRows:
    """This process's rows in its counted tables: written on each change and each refresh."""

    def __init__(
        self, engine: AsyncEngine, *tables: CountedRows, channel: str | None = None
    ) -> None:
        self.engine = engine
        self.process_id = uuid.uuid4().hex
        self.tables = tables
        postgres = engine.dialect.name == "postgresql"
        self._insert = upsert_dialect(postgres).insert
        self.channel = channel if postgres else None  # one SQLite process has no one to tell
        self._writing = asyncio.Lock()

    async def arrive(self, rows: CountedRows, key: Key, notice: str | None = None) -> None:
        """One more of ``key`` here; not counted (even in memory) unless it was written.
        ``notice``: the NOTIFY payload telling other processes of it (PostgreSQL)."""
        async with self._writing:
            rows.counts[key] += 1
            try:
                await self._write_one(rows, key, notice)
            except BaseException:
                rows.take_one(key)
                raise

    async def leave(self, rows: CountedRows, key: Key, notice: str | None = None) -> None:
        async with self._writing:
            rows.take_one(key)
            await self._write_one(rows, key, notice)

    async def refresh(self, sweep_before_ms: dict[Table, int]) -> None:
        """Rewrite every row this process counts, then delete rows (of any process) not
        written since ``sweep_before_ms`` of their table."""
        with translate_errors():
            async with self._writing, self.engine.begin() as conn:
                at_ms = now_ms()
                for rows in self.tables:
                    batch = [rows.row(key, self.process_id, at_ms) for key in rows.counts]
                    for start in range(0, len(batch), BATCH_ROWS):
                        await self._upsert(conn, rows, batch[start : start + BATCH_ROWS])
            async with self.engine.begin() as conn:
                for table, before_ms in sweep_before_ms.items():
                    await conn.execute(delete(table).where(table.c.updated_ms < before_ms))

    async def _write_one(self, rows: CountedRows, key: Key, notice: str | None) -> None:
        with translate_errors():
            async with self.engine.begin() as conn:
                if rows.counts.get(key, 0) > 0 or rows.keep_empty:
                    await self._upsert(conn, rows, [rows.row(key, self.process_id, now_ms())])
                else:
                    own_row = rows.row(key, self.process_id, 0)
                    names = (*rows.key, "process_id")
                    where = [rows.table.c[name] == own_row[name] for name in names]
                    await conn.execute(delete(rows.table).where(and_(*where)))
                if notice is not None and self.channel is not None:
                    await conn.execute(select(func.pg_notify(self.channel, notice)))

    async def _upsert(
        self, conn: AsyncConnection, rows: CountedRows, batch: list[dict[str, Any]]
    ) -> None:
        insert = self._insert(rows.table).values(batch)
        await conn.execute(
            insert.on_conflict_do_update(
                index_elements=[*rows.key, "process_id"],
                set_={
                    rows.count: insert.excluded[rows.count],
                    "updated_ms": insert.excluded.updated_ms,
                },
            )
        )
