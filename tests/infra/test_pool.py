"""The PostgreSQL pool keeps the connections a burst opened (issue 22, the latency tail).

A connection closed on its return is opened again by the next burst, on a request's
critical path: bursts of up to ``POOL_SIZE`` requests in flight must cost no connect
after the first, while up to ``MAX_CONNECTIONS`` may still be in flight at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event, text

from infra.database import MAX_CONNECTIONS, POOL_SIZE, create_engine


async def _burst(engine: Any, width: int) -> None:
    """``width`` connections in use at once, each running a statement, then returned."""
    gate = asyncio.Barrier(width)

    async def one() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
            await gate.wait()  # all ``width`` are checked out together

    await asyncio.gather(*(one() for _ in range(width)))


async def test_bursts_within_the_pool_open_no_new_connection(pg_url: str) -> None:
    engine = create_engine(pg_url)
    opened = 0

    @event.listens_for(engine.sync_engine, "connect")
    def _count(*_: object) -> None:
        nonlocal opened
        opened += 1

    try:
        await _burst(engine, POOL_SIZE)
        assert opened == POOL_SIZE
        for _ in range(3):
            await _burst(engine, POOL_SIZE)
        assert opened == POOL_SIZE  # every later burst reused what the first opened
    finally:
        await engine.dispose()


async def test_the_pool_still_allows_max_connections_in_flight(pg_url: str) -> None:
    """A burst past what the pool keeps is served, and only ``POOL_SIZE`` stay open after."""
    engine = create_engine(pg_url)
    try:
        assert MAX_CONNECTIONS >= 16  # the 16 concurrent writers the store is built for
        assert MAX_CONNECTIONS > POOL_SIZE  # room for a burst beyond the kept connections
        await asyncio.wait_for(_burst(engine, MAX_CONNECTIONS), timeout=30)
        assert engine.sync_engine.pool.checkedin() == POOL_SIZE  # the overflow was let go
    finally:
        await engine.dispose()
