"""The log tailer on both databases: from a position on, each event once, in order."""

from __future__ import annotations

import asyncio
import random

from sqlalchemy import select, update

from infra.event_store import RecordedEvent
from infra.schema import events
from infra.sql_event_store import SqlEventStore
from infra.store import open_store
from infra.tailer import STOP_GRACE_S, LogTailer
from tests.infra.helpers import batch, stream


async def _until(condition: object, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)


async def test_tailer_starts_after_its_position_and_follows_other_writers(
    store: SqlEventStore, db_url: str
) -> None:
    s = stream()
    await store.append(s, 0, batch(3))
    delivered: list[RecordedEvent] = []

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event)

    tailer = LogTailer(store, 2, collect, poll_interval=0.05)
    other = await open_store(db_url, migrate=False)
    try:
        await tailer.start()
        await _until(lambda: tailer.position == 3)
        await other.append(s, 3, batch(2))  # from "another process"
        await store.append(stream(), 0, batch(1))  # and from this one
        await _until(lambda: tailer.position == 6)
    finally:
        await tailer.stop()
        await other.close()
    assert [e.position for e in delivered] == [3, 4, 5, 6]


async def test_a_failing_handler_does_not_stall_the_tailer(store: SqlEventStore) -> None:
    seen: list[int] = []

    async def fussy(event: RecordedEvent) -> None:
        seen.append(event.position)
        if event.position == 2:
            raise RuntimeError("subscriber bug")

    tailer = LogTailer(store, 0, fussy, poll_interval=0.05)
    await store.append(stream(), 0, batch(3))
    try:
        await tailer.start()
        await _until(lambda: tailer.position == 3)
    finally:
        await tailer.stop()
    assert seen == [1, 2, 3]


async def test_an_undecodable_event_stops_the_tailer_there_until_it_is_repaired(
    store: SqlEventStore,
) -> None:
    s = stream()
    await store.append(s, 0, batch(3))
    async with store.engine.begin() as conn:
        original = await conn.scalar(select(events.c.payload).where(events.c.position == 2))
        await conn.execute(
            update(events).where(events.c.position == 2).values(payload='{"type":"?"}')
        )
    seen: list[int] = []

    async def collect(event: RecordedEvent) -> None:
        seen.append(event.position)

    tailer = LogTailer(store, 0, collect, poll_interval=0.05)
    try:
        await tailer.start()
        await _until(lambda: tailer.position == 1)
        await asyncio.sleep(0.3)
        assert seen == [1]  # neither skipped nor delivered out of order
        async with store.engine.begin() as conn:
            await conn.execute(
                update(events).where(events.c.position == 2).values(payload=original)
            )
        await _until(lambda: tailer.position == 3)
    finally:
        await tailer.stop()
    assert seen == [1, 2, 3]


async def test_stop_ends_the_tailer_whenever_it_comes(store: SqlEventStore) -> None:
    # Stopped at random moments while catching up on a long log and woken by appends:
    # before stop() asked the loop to leave, a cancel that landed as a wake-up fired was
    # swallowed (asyncio.wait_for on Python 3.11) and stop() waited forever, about one
    # stop in twenty on PostgreSQL. The stops run as tasks, as a server's shutdown does.
    rng = random.Random(11)
    s = stream()
    for version in range(0, 2000, 200):
        await store.append(s, version, batch(200))
    appended = 2000

    async def ignore(event: RecordedEvent) -> None:
        pass

    for _ in range(60):
        tailer = LogTailer(store, 0, ignore, poll_interval=0.01)
        await tailer.start()
        await asyncio.sleep(rng.random() * 0.05)
        if rng.random() < 0.5:
            await store.append(s, appended, batch(1))
            appended += 1
        stopping = asyncio.create_task(tailer.stop())
        done, _ = await asyncio.wait({stopping}, timeout=STOP_GRACE_S + 2)
        assert done, "stop() did not end the tailer"
