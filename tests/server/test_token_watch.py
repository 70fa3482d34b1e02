"""The token watch outlives a failing store: it logs each failed check and tries again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from infra.database import create_engine
from infra.tokens import Tokens
from server import token_watch
from server.token_watch import TokenWatch


async def test_a_check_the_database_fails_is_logged_and_the_watch_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not a database at all: SQLite's "file is not a database", an error the store does
    # not translate (nobody else has this file open, so nothing has it mapped).
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"\xff" * 8192)
    engine = create_engine(f"sqlite+aiosqlite:///{broken}")
    monkeypatch.setattr(token_watch, "CHECK_S", 0.05)
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
