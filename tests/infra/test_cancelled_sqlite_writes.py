"""A write cancelled mid-statement leaves SQLite's write lock free (a CI run: held for minutes).

A live socket's reader is cancelled when its client leaves, perhaps in the middle of the
rate limiter's upsert (``INSERT … RETURNING``). SQLAlchemy then discards the connection;
closed while that statement was still stepping (its rows unread), SQLite keeps it as a
"zombie" holding its transaction and the write lock until the cursor is freed, which
takes the garbage collector (the cursor is in a cycle with the traceback), and the
server collects rarely (``server/gc_tuning.py``): every other write waited 60 s and failed.
"""

from __future__ import annotations

import asyncio
import gc
import random
import sqlite3
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from infra.database import create_engine, sqlite_file
from infra.projections import projector
from infra.rate_limits import RateCounters
from infra.store import open_store
from tests.infra.helpers import random_match, stream


@contextmanager
def collecting_rarely() -> Iterator[None]:
    """No cyclic garbage collection inside the block, as in a server between its rare ones."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def can_write(path: Path, within_s: float = 1.0) -> bool:
    """Whether another connection takes the write lock within ``within_s``."""
    other = sqlite3.connect(path, isolation_level=None, timeout=within_s)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


async def test_a_hit_cancelled_while_it_waits_for_the_lock_leaves_the_lock_free(
    sqlite_url: str,
) -> None:
    """Its upsert runs in aiosqlite's thread after its caller is gone, once the lock is free."""
    path = sqlite_file(sqlite_url)
    assert path is not None
    engine = create_engine(sqlite_url)
    upserting = asyncio.Event()

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("INSERT INTO rate_limits"):
            upserting.set()

    holder = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        with collecting_rarely():
            holder.execute("BEGIN IMMEDIATE")
            hit = asyncio.create_task(RateCounters(engine).hit(["k"], 60))
            await asyncio.wait_for(upserting.wait(), timeout=30)
            await asyncio.sleep(0.1)  # in the thread now, waiting for the lock
            hit.cancel()
            holder.execute("ROLLBACK")  # it takes the lock and steps, for no one
            with pytest.raises(asyncio.CancelledError):
                await hit
            assert can_write(path), "the cancelled upsert's connection kept the write lock"
    finally:
        holder.close()
        await engine.dispose()


async def first_run_left_holding_the_lock(
    path: Path,
    write: Callable[[int], Coroutine[Any, Any, Any]],
    *,
    runs: int,
    seed: int,
    longest_s: float,
    before: Callable[[int], Awaitable[None]] | None = None,
) -> int | None:
    """Run ``write(i)`` ``runs`` times (``before(i)`` first, not cancelled), each cancelled
    after a random wait of up to ``longest_s``; the first run that left the write lock
    held, with the collector as rare as a server's (None: none). It stops there: every
    later write would wait for the busy timeout (60 s)."""
    rng = random.Random(seed)
    with collecting_rarely():
        for i in range(runs):
            if before is not None:
                await before(i)
            writing = asyncio.create_task(write(i))
            await asyncio.sleep(rng.random() * longest_s)
            writing.cancel()
            await asyncio.gather(writing, return_exceptions=True)
            if not can_write(path):
                return i
    return None


async def test_hits_cancelled_at_any_moment_leave_the_lock_free(sqlite_url: str) -> None:
    """Cancelled at random points of their run, none leaves the lock held."""
    path = sqlite_file(sqlite_url)
    assert path is not None
    engine = create_engine(sqlite_url)
    counters = RateCounters(engine)
    try:
        held = await first_run_left_holding_the_lock(
            path, lambda i: counters.hit([f"k{i}"], 60), runs=80, seed=7, longest_s=0.004
        )
        assert held is None, f"the hit cancelled at step {held} left the write lock held"
    finally:
        await engine.dispose()


async def test_catch_ups_cancelled_at_any_moment_leave_the_lock_free(sqlite_url: str) -> None:
    """A player stream opening catches the matches up (a write transaction that reads the
    checkpoint and the log) and is cancelled there when its page closes."""
    path = sqlite_file(sqlite_url)
    assert path is not None
    store = await open_store(sqlite_url, migrate=False)

    async def append_a_match(i: int) -> None:
        match_id = stream()
        _, batches = random_match(i, match_id, ("ann", "ai:easy"))
        await store.append(match_id, 0, [event for batch in batches[:3] for event in batch])

    try:
        held = await first_run_left_holding_the_lock(
            path,
            lambda _: projector(store).catch_up(),
            runs=40,
            seed=11,
            longest_s=0.02,
            before=append_a_match,
        )
        assert held is None, f"the catch-up cancelled at step {held} left the write lock held"
    finally:
        await store.close()
