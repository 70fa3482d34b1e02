"""The token watch outlives a failing store: it logs each failed check and tries again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from infra.database import create_engine
from infra.tokens import Tokens
from server import background, token_watch
from server.repeated_failures import RepeatedFailures
from server.token_watch import TokenWatch, until_set


async def test_a_check_the_database_fails_is_logged_and_the_watch_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a database at all: SQLite's "file is not a database", an error the store does
    # not translate (nobody else has this file open, so nothing has it mapped).
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"\xff" * 8192)
    engine = create_engine(f"sqlite+aiosqlite:///{broken}")
    monkeypatch.setattr(token_watch, "CHECK_S", 0.05)
    # every failure logged (not once every 30 s), so the log counts the rounds that failed
    monkeypatch.setattr(background, "RepeatedFailures", lambda: RepeatedFailures(interval=0))
    watch = TokenWatch(Tokens(engine))
    dead = watch.hold("some-token-hash")
    running = asyncio.create_task(watch.run())
    try:
        with caplog.at_level(logging.ERROR, logger="ginrummy.server"):
            for _ in range(100):
                await asyncio.sleep(0.05)
                failures = caplog.text.count("checking open connections' tokens failed")
                if failures >= 3 or running.done():
                    break
        assert not running.done(), running.exception()
        assert failures >= 3
        assert not dead.is_set()  # a check that failed ends no connection
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await engine.dispose()


async def test_a_connection_that_holds_a_token_revoked_here_just_before_is_ended_at_once(
    tmp_path: Path,
) -> None:
    """Its token was looked up before the revocation, its hold came after: no wait for
    the next check (no query is made: the engine is never used)."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'unused.sqlite3'}")
    watch = TokenWatch(Tokens(engine))
    live = watch.hold("alive")
    watch.forget({"revoked"})
    late = watch.hold("revoked")
    assert late.is_set()
    assert not live.is_set()
    watch.forget({"alive"})
    assert live.is_set()
    await engine.dispose()


async def _endless(closed: asyncio.Event) -> AsyncIterator[int]:
    """Items that come only now and then, so a consumer waits inside a step."""
    try:
        yield 1
        await asyncio.sleep(3600)
        yield 2
    finally:
        closed.set()


async def test_a_consumer_cancelled_mid_step_closes_its_items_without_an_error() -> None:
    """A client hanging up cancels the consumer while a step of ``items`` is suspended
    in its own task: ``items`` is closed all the same, and nothing raises "aclose():
    asynchronous generator is already running" (once an ERROR per NDJSON hang-up)."""
    closed = asyncio.Event()
    seen: list[int] = []

    async def consume() -> None:
        async for item in until_set(_endless(closed), asyncio.Event()):
            seen.append(item)

    consumer = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    consumer.cancel()
    result = await asyncio.gather(consumer, return_exceptions=True)
    assert isinstance(result[0], asyncio.CancelledError), result
    await asyncio.wait_for(closed.wait(), 1)
    assert seen == [1]


async def test_a_consumer_in_an_anyio_scope_that_is_cancelled_closes_its_items() -> None:
    """Litestar's ``Stream`` cancels through an anyio scope, which cancels again at
    every await: ``items`` is still closed, by a task of its own."""
    closed = asyncio.Event()

    async def consume() -> None:
        with anyio.CancelScope() as scope:
            async for _ in until_set(_endless(closed), asyncio.Event()):
                scope.cancel()

    await asyncio.wait_for(consume(), 1)
    await asyncio.wait_for(closed.wait(), 1)


async def test_items_are_closed_when_the_token_dies() -> None:
    closed = asyncio.Event()
    dead = asyncio.Event()
    seen = []

    async def consume() -> None:
        async for item in until_set(_endless(closed), dead):
            seen.append(item)
            dead.set()

    await asyncio.wait_for(consume(), 1)
    assert closed.is_set() and seen == [1]
