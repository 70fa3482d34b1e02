"""The PostgreSQL pool keeps every connection a burst opened (issue 22, the latency tail).

A connection closed on its return is opened again by the next burst, on a request's
critical path (tens of milliseconds of the event loop each). So every connection, up
to the process's limit (``GINRUMMY_DB_CONNECTIONS``), is kept once opened, and a request
past the limit waits for one to come back (up to the pool's timeout) instead of opening more.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event, text

from infra.database import MAX_CONNECTIONS, create_engine
from infra.store import open_store


async def _burst(engine: Any, width: int, hold_s: float = 0.0) -> None:
    """``width`` requests at once, each running a statement on a connection of its own."""
    gate = asyncio.Barrier(width) if hold_s == 0 else None

    async def one() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            if gate is not None:
                await gate.wait()  # all ``width`` are checked out together
            else:
                await asyncio.sleep(hold_s)

    await asyncio.gather(*(one() for _ in range(width)))


def _counting(engine: Any) -> list[int]:
    opened = [0]

    @event.listens_for(engine.sync_engine, "connect")
    def _count(*_: object) -> None:
        opened[0] += 1

    return opened


async def test_bursts_up_to_the_limit_open_no_connection_after_the_first(pg_url: str) -> None:
    engine = create_engine(pg_url)
    opened = _counting(engine)
    try:
        assert MAX_CONNECTIONS >= 16  # the 16 concurrent writers the store is built for
        await _burst(engine, MAX_CONNECTIONS)
        assert opened[0] == MAX_CONNECTIONS
        for _ in range(3):
            await _burst(engine, MAX_CONNECTIONS)
        assert opened[0] == MAX_CONNECTIONS  # every later burst reused what the first opened
        assert engine.sync_engine.pool.checkedin() == MAX_CONNECTIONS  # all kept
    finally:
        await engine.dispose()


async def test_requests_past_the_limit_wait_for_a_connection_and_open_none(pg_url: str) -> None:
    engine = create_engine(pg_url, connections=4)
    opened = _counting(engine)
    try:
        await asyncio.wait_for(_burst(engine, 12, hold_s=0.05), timeout=30)  # all served
        assert opened[0] == 4
        assert engine.sync_engine.pool.checkedin() == 4
    finally:
        await engine.dispose()


async def test_the_store_holds_the_connections_it_is_given(pg_url: str) -> None:
    store = await open_store(pg_url, migrate=False, connections=3)
    opened = _counting(store.engine)
    try:
        await asyncio.gather(*(store.last_position() for _ in range(9)))
        assert opened[0] <= 3
        assert store.engine.sync_engine.pool.size() == 3
    finally:
        await store.close()


async def test_a_projection_catches_up_on_one_connection(pg_url: str) -> None:
    """Catching up reads the log on the connection its transaction holds, so callers
    that each hold one (list_tables catching the lobby up, say) can never all wait for a
    second: here a pool of one must suffice, where a second checkout would wait out the pool's
    timeout and fail."""
    from infra.projections import projector
    from tests.infra.helpers import random_match, stream

    store = await open_store(pg_url, migrate=False, connections=1)
    try:
        match_id = stream()
        _, batches = random_match(3, match_id, ("ann", "ai:easy"))
        await store.append(match_id, 0, [e for b in batches for e in b])
        runner = projector(store)  # made after the appends: it holds none, it must read
        applied = await asyncio.wait_for(runner.catch_up(), timeout=15)
        assert applied == await store.last_position() * len(runner.projections)
        runner.close()
    finally:
        await store.close()


async def test_catch_ups_in_one_process_take_turns_before_taking_a_connection(
    pg_url: str,
) -> None:
    """Eight requests catching a projection up at once hold one connection between them,
    not eight each waiting in the database for the checkpoint's row lock."""
    from infra.projections import projector
    from tests.infra.helpers import random_match, stream

    store = await open_store(pg_url, migrate=False, connections=10)
    in_use, peak = [0], [0]

    @event.listens_for(store.engine.sync_engine, "checkout")
    def _out(*_: object) -> None:
        in_use[0] += 1
        peak[0] = max(peak[0], in_use[0])

    @event.listens_for(store.engine.sync_engine, "checkin")
    def _in(*_: object) -> None:
        in_use[0] -= 1

    try:
        match_id = stream()
        _, batches = random_match(4, match_id, ("ann", "ai:easy"))
        await store.append(match_id, 0, [e for b in batches for e in b])
        runner = projector(store)  # holds none of those events: it reads them
        peak[0] = 0
        applied = await asyncio.gather(*(runner.catch_up() for _ in range(8)))
        assert sum(applied) == await store.last_position() * len(runner.projections)
        assert peak[0] == 1
        runner.close()
    finally:
        await store.close()
