"""An outage is a few log lines, not thousands: a failure that repeats is logged once,
then at most once a while with a count, and the database being away has no traceback."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from infra.errors import StoreUnavailable
from server.background import every
from server.repeated_failures import RepeatedFailures


def test_a_repeated_failure_is_said_once_a_while_with_how_many_were_not() -> None:
    now = [0.0]
    failures = RepeatedFailures(interval=30, clock=lambda: now[0])
    assert failures.due("store") == 0  # the first at once
    for second in (1, 10, 29):
        now[0] = second
        assert failures.due("store") is None
    assert failures.due("other") == 0  # another kind is its own
    now[0] = 30
    assert failures.due("store") == 3  # then again, saying how many were skipped
    assert failures.due("store") is None


async def test_a_loop_with_the_database_away_logs_one_line_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rounds = 0

    async def work() -> None:
        nonlocal rounds
        rounds += 1
        raise StoreUnavailable("connection refused")

    caplog.set_level(logging.WARNING, logger="ginrummy.server")
    loop = asyncio.create_task(every(0.001, work, "the clock sweep"))
    while rounds < 50:
        await asyncio.sleep(0.01)
    loop.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await loop
    said = [r for r in caplog.records if r.name == "ginrummy.server"]
    assert [r.getMessage() for r in said] == ["the clock sweep: connection refused; retrying"]
    assert said[0].levelno == logging.WARNING and said[0].exc_info is None
