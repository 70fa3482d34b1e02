"""Feed projections from the global log, with a checkpoint per projection.

Each batch is one transaction that locks the projection's checkpoint row, applies the
events after it to the read model and moves the checkpoint: a projector killed halfway
commits neither, so no event is ever applied twice, and two processes catching up the
same projection take turns instead of racing. ``rebuild`` empties the read model and
replays from position 0 in a single transaction, so readers see the old rows until the
new ones are complete.

What this process appended is not read back (issue 22): the store hands the projector
each commit's events as they were written (``add_own_events_listener``), and a batch
that starts right after the checkpoint with events held here is taken from them. Any
other start (another process's event next, or ours evicted) reads the log as before.
Positions have no gaps, so a run of held events that starts at the checkpoint + 1 is
exactly what ``read_all`` would return for it; the checkpoint lock, the order and the
one transaction per batch are unchanged, so no event is skipped or applied twice.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from sqlalchemy import Table, delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from infra.database import one_statement, upsert_dialect
from infra.driver_errors import translate_errors
from infra.errors import InfraError
from infra.event_store import RecordedEvent
from infra.schema import projection_checkpoints as checkpoints
from infra.sql_event_store import SqlEventStore
from infra.waiting import wait_set

log = logging.getLogger(__name__)

MAX_HELD = 100_000  # own events held for the projections at most (the oldest go first)


class Projection(Protocol):
    """A read model: its name (the checkpoint's key), its tables, and how an event changes it."""

    name: str
    tables: tuple[Table, ...]

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None: ...


class Projector:
    """Keeps a set of projections up to date with the store's global log."""

    def __init__(
        self, store: SqlEventStore, projections: Sequence[Projection], batch_size: int = 500
    ) -> None:
        self.store = store
        self.projections = {p.name: p for p in projections}
        self.batch_size = batch_size
        # This process's committed events not yet applied everywhere, by position (in
        # position order: groups commit one at a time in a store).
        self._own: dict[int, RecordedEvent] = {}
        self._applied: dict[str, int] = {}  # each projection's last checkpoint seen here
        store.add_own_events_listener(self._on_own)
        # Catch-ups in this process take turns before taking a connection: each would
        # otherwise hold one while it waits in the database for the checkpoint's row lock
        # (read requests catch up too), and the next finds the work done.
        self._catching = asyncio.Lock()
        # A test seam: awaited after the read model is written and before the checkpoint.
        self.fault_hook: Callable[[str], Awaitable[None]] | None = None

    async def checkpoint(self, name: str) -> int:
        with translate_errors():
            async with one_statement(self.store.engine) as conn:
                query = select(checkpoints.c.position).where(checkpoints.c.name == name)
                return int((await conn.execute(query)).scalar() or 0)

    async def catch_up(self, name: str | None = None) -> int:
        """Apply every committed event not yet applied; returns how many were applied."""
        async with self._catching:
            return await self._catch_up(name)

    async def _catch_up(self, name: str | None) -> int:
        names = [name] if name is not None else list(self.projections)
        total = 0
        head = await self.store.last_position()
        for projection_name in names:
            projection = self.projections[projection_name]
            if (checkpoint := await self.checkpoint(projection_name)) >= head:
                self._applied[projection_name] = checkpoint
                continue  # up to date: no write transaction (nor SQLite write lock) needed
            while True:
                with translate_errors():
                    async with self.store.write_transaction() as conn:
                        position = await _lock_checkpoint(conn, projection.name)
                        applied = await self._apply_batch(conn, projection, position)
                total += applied
                if applied == 0 or (
                    applied < self.batch_size and self._applied[projection_name] >= head
                ):
                    break  # else a run of our own ended short of the head: read on
        self._evict()
        return total

    async def behind(self, head: int) -> dict[str, int]:
        """Events each projection is behind ``head`` as this process last saw it: the
        checkpoint its own latest catch-up found or reached (read from the table for one
        not caught up here yet). A process whose catch-up fails or stalls falls behind
        alone, while the others, whose catch-ups run, keep seeing the shared checkpoint."""
        missing = [name for name in self.projections if name not in self._applied]
        if missing:
            with translate_errors():
                async with one_statement(self.store.engine) as conn:
                    query = select(checkpoints.c.name, checkpoints.c.position).where(
                        checkpoints.c.name.in_(missing)
                    )
                    found = {row.name: int(row.position) for row in await conn.execute(query)}
        else:
            found = {}
        return {
            name: max(0, head - self._applied.get(name, found.get(name, 0)))
            for name in self.projections
        }

    def close(self) -> None:
        """Stop holding this store's appends (the projector is no longer used)."""
        self.store.remove_own_events_listener(self._on_own)
        self._own.clear()

    def _on_own(self, recorded: list[RecordedEvent]) -> None:
        for event in recorded:
            self._own[event.position] = event
        if len(self._own) > MAX_HELD:  # catch-up failing for long: the log still has them
            # Down to half, so that the copy (O(MAX_HELD): tens of ms on the event loop)
            # comes once in MAX_HELD / 2 events, not on every commit while at the cap.
            self._own = dict(list(self._own.items())[-(MAX_HELD // 2) :])

    def _held_after(self, position: int) -> list[RecordedEvent]:
        """The held events from ``position + 1`` on, while they run without a gap."""
        run: list[RecordedEvent] = []
        while len(run) < self.batch_size and (held := self._own.get(position + 1)) is not None:
            run.append(held)
            position += 1
        return run

    def _evict(self) -> None:
        """Let go of what every projection has applied (none seen yet: keep everything).

        The held events are copied rather than deleted one by one from the front: a
        dict keeps a deleted entry's slot until it is resized, and finding the first
        live entry walks past them, so emptying k events from the front cost k^2 / 2
        steps (4,000 events, 32 ms on the event loop; measured as loop stalls under
        load in ``benchmarks/tail_trace.py``)."""
        if len(self._applied) < len(self.projections) or not self._own:
            return
        done = min(self._applied.values())
        if next(iter(self._own)) <= done:
            self._own = {position: e for position, e in self._own.items() if position > done}

    async def rebuild(self, name: str) -> int:
        """Empty the read model and replay the whole log into it; returns events applied."""
        projection = self.projections[name]
        total = 0
        with translate_errors():
            async with self.store.write_transaction() as conn:
                await _lock_checkpoint(conn, name)
                for table in projection.tables:
                    await conn.execute(delete(table))
                await _set_checkpoint(conn, name, 0)
                position = 0
                while True:
                    applied = await self._apply_batch(conn, projection, position, held=False)
                    total += applied
                    if applied < self.batch_size:
                        break
                    position = await _read_checkpoint(conn, name)
        return total

    async def rebuild_all(self) -> int:
        return sum([await self.rebuild(name) for name in self.projections])

    async def run(self, poll_interval: float = 1.0) -> None:
        """Catch up whenever this process appends, and every ``poll_interval`` for others."""
        wake = asyncio.Event()
        self.store.add_wakeup(wake)
        try:
            while True:
                try:
                    await self.catch_up()
                except InfraError:
                    log.exception("projection catch-up failed; retrying")
                await wait_set(wake, poll_interval)
                wake.clear()
        finally:
            self.store.remove_wakeup(wake)

    async def _apply_batch(
        self, conn: AsyncConnection, projection: Projection, position: int, held: bool = True
    ) -> int:
        """Apply the events after ``position``; ``held``: this process's own, if they follow."""
        batch = self._held_after(position) if held else []
        if not batch:  # read on the connection held: a second one might not come in time
            batch = await self.store.read_all_in(conn, position, self.batch_size)
        for recorded in batch:
            await projection.apply(conn, recorded)
        if self.fault_hook is not None:
            await self.fault_hook("before_checkpoint")
        if batch:
            await _set_checkpoint(conn, projection.name, batch[-1].position)
        self._applied[projection.name] = batch[-1].position if batch else position
        return len(batch)


async def _lock_checkpoint(conn: AsyncConnection, name: str) -> int:
    """The checkpoint, row-locked until commit (created at 0 the first time)."""
    dialect = upsert_dialect(conn.dialect.name == "postgresql")
    await conn.execute(
        dialect.insert(checkpoints).values(name=name, position=0).on_conflict_do_nothing()
    )
    query = select(checkpoints.c.position).where(checkpoints.c.name == name).with_for_update()
    return int((await conn.execute(query)).scalar_one())


async def _read_checkpoint(conn: AsyncConnection, name: str) -> int:
    query = select(checkpoints.c.position).where(checkpoints.c.name == name)
    return int((await conn.execute(query)).scalar_one())


async def _set_checkpoint(conn: AsyncConnection, name: str, position: int) -> None:
    await conn.execute(
        update(checkpoints).where(checkpoints.c.name == name).values(position=position)
    )
