"""The log tailer on both databases: from a position on, each event once, in order."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

from sqlalchemy import insert, select, update

from domain.events import encode_event, event_type
from infra.event_store import AppendResult, RecordedEvent
from infra.schema import events, log_head
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


async def test_a_tailer_skipping_its_own_appends_reads_only_what_others_wrote(
    store: SqlEventStore, db_url: str
) -> None:
    # The server's tailer: its process publishes its own appends, so the tailer must
    # step over them unread and still deliver every other process's event, in order.
    delivered: list[int] = []

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event.position)

    other = await open_store(db_url, migrate=False)
    tailer = LogTailer(store, 0, collect, poll_interval=0.05, skip_own=True)
    theirs: list[int] = []
    try:
        await tailer.start()
        mine, yours = stream(), stream()
        await store.append(mine, 0, batch(2))
        theirs += _positions(await other.append(yours, 0, batch(1)))
        await store.append(mine, 2, batch(1))
        theirs += _positions(await other.append(yours, 1, batch(2)))
        await store.append(mine, 3, batch(3))
        await _until(lambda: tailer.position == 9)
    finally:
        await tailer.stop()
        await other.close()
    assert tailer.position == 9
    assert delivered == theirs == [3, 5, 6]  # never its own: they were not read back


async def test_skipping_its_own_keeps_every_other_event_under_concurrent_writers(
    store: SqlEventStore, db_url: str
) -> None:
    rng = random.Random(20261201)
    delivered: list[int] = []

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event.position)

    other = await open_store(db_url, migrate=False)
    tailer = LogTailer(store, 0, collect, poll_interval=0.05, skip_own=True)
    written: dict[str, list[int]] = {"mine": [], "theirs": []}

    async def writer(index: int) -> None:
        target, whose = (store, "mine") if index % 2 else (other, "theirs")
        s, version = stream(), 0
        for _ in range(25):
            result = await target.append(s, version, batch(rng.randint(1, 3)))
            version = result.last_version
            written[whose] += _positions(result)
            await asyncio.sleep(rng.random() * 0.004)

    try:
        await tailer.start()
        await asyncio.gather(*(writer(i) for i in range(6)))
        last = await store.last_position()
        await _until(lambda: tailer.position >= last)
    finally:
        await tailer.stop()
        await other.close()
    assert sorted(written["mine"] + written["theirs"]) == list(range(1, last + 1))
    assert tailer.position == last
    assert delivered == sorted(written["theirs"])  # in order, none twice, none missed


async def test_skipping_its_own_still_recovers_an_event_whose_notify_was_lost(
    store: SqlEventStore,
) -> None:
    # Another process's event that came with no NOTIFY (written here by hand): the
    # tailer reads it when its own next range shows a gap below, and by the poll when
    # nothing follows.
    delivered: list[int] = []

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event.position)

    tailer = LogTailer(store, 0, collect, poll_interval=0.3, skip_own=True)
    try:
        await tailer.start()
        await store.append(stream(), 0, batch(1))
        await _until(lambda: tailer.position == 1)
        await _append_silently(store, 2)
        await store.append(stream(), 0, batch(1))  # position 3, ours: 2 lies below it
        await _until(lambda: tailer.position == 3)
        assert delivered == [2]
        await _append_silently(store, 4)  # nothing follows: the poll finds it
        await _until(lambda: tailer.position == 4)
    finally:
        await tailer.stop()
    assert delivered == [2, 4]


def _positions(result: AppendResult) -> list[int]:
    first = result.last_position - (result.last_version - result.first_version)
    return list(range(first, result.last_position + 1))


async def _append_silently(store: SqlEventStore, position: int) -> None:
    """One event at ``position`` as another process would write it, minus the NOTIFY."""
    async with store.write_transaction() as conn:
        head = await conn.scalar(
            select(log_head.c.position).where(log_head.c.id == 1).with_for_update()
        )
        assert head == position - 1
        await conn.execute(
            insert(events).values(
                position=position,
                stream_id=stream(),
                version=1,
                type=event_type(batch(1)[0]),
                schema_version=type(batch(1)[0]).schema_version,
                payload=encode_event(batch(1)[0]).decode(),
                recorded_at=datetime.now(UTC),
            )
        )
        await conn.execute(update(log_head).where(log_head.c.id == 1).values(position=position))


async def test_a_tailer_skipping_its_own_reads_none_of_its_rows(store: SqlEventStore) -> None:
    # Even when the NOTIFY of an append reaches the tailer before the append's answer
    # reaches the store (it often does on PostgreSQL), the tailer reads none of it back.
    rows_read: list[int] = []
    read_all = store.read_all

    async def counting(after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        found = await read_all(after_position, limit)
        rows_read.extend(e.position for e in found)
        return found

    store.read_all = counting  # type: ignore[method-assign]

    delivered: list[int] = []

    async def record(event: RecordedEvent) -> None:
        delivered.append(event.position)

    # The production poll interval: a forced poll read that is in flight while the store
    # commits may return (and then drop) our rows, by design; wake-ups alone must not.
    tailer = LogTailer(store, 0, record, poll_interval=5.0, skip_own=True)
    s = stream()
    try:
        await tailer.start()
        for version in range(60):
            await store.append(s, version, batch(1))
            await asyncio.sleep(0.003)
        await _until(lambda: tailer.position == 60)
    finally:
        await tailer.stop()
    assert tailer.position == 60
    assert delivered == []
    assert rows_read == []
