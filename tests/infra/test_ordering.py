"""Ordering that subscribers can trust: positions follow commit order, with no gaps.

A plain auto-increment hands out positions at insert time, so a slow transaction can
commit position 1 after a fast one committed position 2 and a reader that already
moved past 2 never sees 1. These tests hold transactions open and roll some back while
readers poll, on both databases, and check that readers get exactly what committed.
"""

from __future__ import annotations

import asyncio
import random

from infra.errors import ConcurrencyConflict
from infra.event_store import RecordedEvent
from infra.sql_event_store import SqlEventStore
from infra.store import open_store
from infra.tailer import LogTailer
from tests.infra.helpers import batch, stream


async def test_a_slow_first_writer_is_never_overtaken(store: SqlEventStore, db_url: str) -> None:
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold_first(_stage: str) -> None:
        if not holding.is_set():
            holding.set()
            await release.wait()

    slow_stream, fast_stream = stream(), stream()
    store.fault_hook = hold_first
    other = await open_store(db_url, migrate=False)  # a second process, in effect
    try:
        slow = asyncio.create_task(store.append(slow_stream, 0, batch(2)))
        await holding.wait()  # the slow writer has inserted and holds its transaction
        fast = asyncio.create_task(other.append(fast_stream, 0, batch(1)))
        polled: list[RecordedEvent] = []
        for _ in range(10):  # a tailer polling while the slow writer is still open
            polled += await other.read_all(polled[-1].position if polled else 0)
            await asyncio.sleep(0.02)
        assert polled == []
        assert not fast.done()  # it waits for the head lock, it cannot commit first
        release.set()
        await asyncio.gather(slow, fast)
        polled += await other.read_all(polled[-1].position if polled else 0)
        assert [(e.stream_id, e.position) for e in polled] == [
            (slow_stream, 1),
            (slow_stream, 2),
            (fast_stream, 3),
        ]
    finally:
        await other.close()


class _Rollback(Exception):
    """A writer that changes its mind after inserting."""


async def test_many_writers_with_delays_and_rollbacks_against_a_live_tailer(
    store: SqlEventStore, db_url: str
) -> None:
    rng = random.Random(20261129)
    second = await open_store(db_url, migrate=False)
    stores = [store, second]

    async def jitter(_stage: str) -> None:
        await asyncio.sleep(rng.random() * 0.004)
        if rng.random() < 0.2:
            raise _Rollback

    for s in stores:
        s.fault_hook = jitter

    delivered: list[RecordedEvent] = []

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event)

    tailer = LogTailer(store, 0, collect, poll_interval=0.05)
    polled: list[RecordedEvent] = []
    committed: set[tuple[str, int]] = set()
    shared = [stream() for _ in range(3)]
    stop_polling = asyncio.Event()

    async def poller() -> None:  # a second, naive reader following the position
        while not stop_polling.is_set():
            polled.extend(await second.read_all(polled[-1].position if polled else 0))
            await asyncio.sleep(rng.random() * 0.01)

    async def writer(index: int) -> None:
        own = stream()
        target = stores[index % 2]
        for _ in range(30):
            name = own if rng.random() < 0.6 else rng.choice(shared)
            events = batch(rng.randint(1, 4))
            try:
                version = await target.stream_version(name)
                await asyncio.sleep(rng.random() * 0.003)
                result = await target.append(name, version, events)
            except (_Rollback, ConcurrencyConflict):
                continue
            committed.update(
                (name, v) for v in range(result.first_version, result.last_version + 1)
            )

    await tailer.start()
    poll_task = asyncio.create_task(poller())
    try:
        await asyncio.gather(*(writer(i) for i in range(8)))
        last = await store.last_position()
        for _ in range(500):
            if tailer.position >= last:
                break
            await asyncio.sleep(0.02)
        stop_polling.set()
        await poll_task
        polled.extend(await second.read_all(polled[-1].position if polled else 0))
    finally:
        await tailer.stop()
        await second.close()

    assert committed and last == len(committed)
    for seen in (delivered, polled):
        positions = [e.position for e in seen]
        assert positions == list(range(1, last + 1))  # strictly increasing, no gap, no dup
        assert {(e.stream_id, e.version) for e in seen} == committed
    assert [e.position for e in await store.read_all(limit=10_000)] == list(range(1, last + 1))
