"""The sequence-based log prototype (benchmarks/proto_sequence.sql) keeps what subscribers
rely on, so that benchmarks/scaleout.py compares two correct designs, not a fast wrong one.

Real PostgreSQL, a scratch database with the product's schema and the prototype's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import asyncpg  # type: ignore[import-untyped]
import pytest

from benchmarks.bench_store import random_match
from benchmarks.scaleout import ProtoStore, ProtoTailer, prepare
from domain.events import encode_event, event_type
from infra.database import asyncpg_dsn, create_engine
from infra.event_store import RecordedEvent
from infra.scratch_database import drop_scratch_database


@pytest.fixture
async def proto_url(pg_url: str) -> AsyncIterator[str]:
    url = await prepare(pg_url)
    try:
        yield url
    finally:
        await drop_scratch_database(url)


def _group(stream: str, expected: int) -> str:
    """One append of a real event (a reader decodes it), in proto_append's document."""
    first = random_match(99)[0][0]
    events = [[event_type(first), type(first).schema_version, encode_event(first).decode()]]
    return json.dumps([{"s": stream, "v": expected, "c": None, "h": None, "e": events}])


async def test_every_committed_event_once_and_each_stream_in_order(proto_url: str) -> None:
    """Two stores (as two processes) append while a slow transaction holds the first
    position open and commits last; the reader must deliver it too, exactly once."""
    delivered: list[RecordedEvent] = []

    async def handler(recorded: RecordedEvent) -> None:
        delivered.append(recorded)

    reader = ProtoTailer(create_engine(proto_url), proto_url, handler)
    await reader.start()
    stores = [
        ProtoStore(create_engine(proto_url), proto_url, notify_in_tx=notify)
        for notify in (True, False)
    ]
    slow = await asyncpg.connect(asyncpg_dsn(proto_url))
    try:
        transaction = slow.transaction()
        await transaction.start()
        await slow.execute("SELECT proto_append($1::jsonb, now(), false)", _group("slow", 0))
        matches = [random_match(seed) for seed in range(4)]

        async def play(store: ProtoStore, index: int) -> None:
            for batches in matches[index::2]:
                stream, version = f"s{index}-{id(batches)}-{id(store)}", 0
                for batch in batches[:40]:
                    version = (await store.append(stream, version, batch)).last_version

        await asyncio.gather(*(play(store, i) for store in stores for i in range(2)))
        await reader.catch_up()
        # Hundreds of rows committed after it, but the reader does not pass the oldest
        # running transaction: it waits, whatever database of the cluster that is in.
        assert delivered == []
        await transaction.commit()
        # The reader waits for the oldest transaction running anywhere in the cluster: in
        # CI another test's may still be open, so it is given up to 10 s to pass them all.
        total = await slow.fetchval("SELECT count(*) FROM proto_events")
        for _ in range(50):
            await asyncio.sleep(0.2)
            await reader.catch_up()
            if len(delivered) >= total:
                break
    finally:
        await slow.close()
        for store in stores:
            await store.close()
        await reader.stop()

    check = await asyncpg.connect(asyncpg_dsn(proto_url))
    try:
        stored = {r["position"] for r in await check.fetch("SELECT position FROM proto_events")}
        slow_position = await check.fetchval(
            "SELECT position FROM proto_events WHERE stream_id = 'slow'"
        )
    finally:
        await check.close()
    positions = [r.position for r in delivered]
    assert sorted(positions) == sorted(stored) and len(positions) == len(set(positions))
    # The slow row's position was taken first and committed last: a reader following
    # positions alone would have moved past it while it ran, and never seen it.
    assert slow_position == min(stored) and positions[0] == slow_position
    versions: dict[str, int] = {}
    for recorded in delivered:
        assert recorded.version == versions.get(recorded.stream_id, 0) + 1
        versions[recorded.stream_id] = recorded.version


async def test_a_stream_last_written_by_a_younger_transaction_is_answered_later(
    proto_url: str,
) -> None:
    """Else the older transaction's rows would be delivered before the stream's previous
    version; the driver retries such an append in a new transaction."""
    old = await asyncpg.connect(asyncpg_dsn(proto_url))
    young = await asyncpg.connect(asyncpg_dsn(proto_url))
    try:
        transaction = old.transaction()
        await transaction.start()
        await old.fetchval("SELECT pg_current_xact_id()")  # the older id, taken first
        await young.fetchval("SELECT proto_append($1::jsonb, now(), false)", _group("s", 0))
        answer = json.loads(
            await old.fetchval("SELECT proto_append($1::jsonb, now(), false)", _group("s", 1))
        )
        assert answer["out"] == [["later"]]
        await transaction.rollback()
        retried = json.loads(
            await old.fetchval("SELECT proto_append($1::jsonb, now(), false)", _group("s", 1))
        )
        assert retried["out"][0][0] == "ok"
    finally:
        await old.close()
        await young.close()
