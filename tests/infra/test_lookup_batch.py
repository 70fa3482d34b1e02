"""LookupBatch: the batching of lookups, with a fetch whose timing the test controls."""

from __future__ import annotations

import asyncio
from collections.abc import Collection

import pytest

from infra.errors import StoreUnavailable
from infra.lookup_batch import LookupBatch


async def settle() -> None:
    """Let every task that is ready run (a lookup, then the query it starts)."""
    for _ in range(5):
        await asyncio.sleep(0)


class Table:
    """A fetch that answers from a dict once the test lets it, recording each call."""

    def __init__(self, rows: dict[str, int]) -> None:
        self.rows = rows
        self.calls: list[set[str]] = []
        self.release = asyncio.Event()
        self.fail_next = False

    async def fetch(self, keys: Collection[str]) -> dict[str, int]:
        self.calls.append(set(keys))
        await self.release.wait()
        if self.fail_next:
            self.fail_next = False
            raise StoreUnavailable("the database is down")
        return {k: self.rows[k] for k in keys if k in self.rows}


async def test_lookups_made_while_a_query_is_out_go_together_in_the_next() -> None:
    table = Table({"a": 1, "b": 2})
    lookups = LookupBatch(table.fetch)
    first = asyncio.ensure_future(lookups.get("a"))
    await settle()
    assert table.calls == [{"a"}]  # a lone lookup does not wait for company
    later = [asyncio.ensure_future(lookups.get(k)) for k in ("b", "c", "a", "b")]
    await settle()
    assert len(table.calls) == 1
    table.release.set()
    assert await first == 1
    assert await asyncio.gather(*later) == [2, None, 1, 2]
    assert table.calls == [{"a"}, {"a", "b", "c"}]
    assert lookups.queries == 2


async def test_a_failed_query_fails_its_own_waiters_only() -> None:
    table = Table({"a": 1})
    lookups = LookupBatch(table.fetch)
    table.fail_next = True
    failing = asyncio.ensure_future(lookups.get("a"))
    await settle()
    after = asyncio.ensure_future(lookups.get("a"))
    table.release.set()
    with pytest.raises(StoreUnavailable):
        await failing
    assert await after == 1


async def test_a_cancelled_waiter_leaves_the_others_their_answers() -> None:
    table = Table({"a": 1})
    lookups = LookupBatch(table.fetch)
    gone = asyncio.ensure_future(lookups.get("a"))
    kept = asyncio.ensure_future(lookups.get("a"))
    await settle()
    gone.cancel()
    table.release.set()
    assert await kept == 1
    assert gone.cancelled()


async def test_a_cancelled_lookup_task_fails_every_waiter_queued_behind_it() -> None:
    """A waiter holds its match's lock: none may be left waiting, even when the task
    that asks the database is cancelled (a shutdown) with more lookups queued."""
    table = Table({"a": 1, "b": 2})
    lookups = LookupBatch(table.fetch)
    in_flight = asyncio.ensure_future(lookups.get("a"))
    await settle()
    queued = asyncio.ensure_future(lookups.get("b"))
    await settle()
    assert lookups._running is not None
    lookups._running.cancel()
    for waiter in (in_flight, queued):
        with pytest.raises(RuntimeError, match="interrupted"):
            await asyncio.wait_for(waiter, 5)
    table.release.set()
    assert await asyncio.wait_for(lookups.get("b"), 5) == 2  # and it works again


def test_a_lookup_left_by_a_closed_event_loop_does_not_hang_the_next_loop() -> None:
    table = Table({"z": 26})
    lookups = LookupBatch(table.fetch)
    old = asyncio.new_event_loop()
    left = old.create_task(lookups.get("z"))
    old.run_until_complete(settle())  # its query is out, and never answered...
    queued = old.create_task(lookups.get("z"))
    old.run_until_complete(settle())  # ...and another waits behind it
    assert not left.done() and not queued.done()
    assert lookups._running is not None
    for abandoned in (left, queued, lookups._running):  # the scenario: they stay pending
        abandoned._log_destroy_pending = False  # type: ignore[attr-defined]
    old.close()
    table.release = asyncio.Event()
    table.release.set()
    assert asyncio.run(asyncio.wait_for(lookups.get("z"), 5)) == 26
