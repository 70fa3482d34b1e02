"""A background loop outlives any failure of its work and still ends when cancelled."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.background import every


async def test_a_failing_round_is_logged_and_the_next_one_runs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rounds: list[int] = []

    async def work() -> None:
        rounds.append(len(rounds))
        if len(rounds) <= 2:
            raise RuntimeError("an error nobody foresaw")  # not one the store translates

    with caplog.at_level(logging.ERROR, logger="ginrummy.server"):
        loop = asyncio.create_task(every(0.01, work, "doing the work"))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if len(rounds) >= 4:
                break
        assert not loop.done()
        loop.cancel()
        with pytest.raises(asyncio.CancelledError):
            await loop
    assert len(rounds) >= 4  # it went on after both failures
    # the first is logged with its traceback; the same again so soon only counted
    assert caplog.text.count("doing the work failed; retrying later") == 1
    assert "an error nobody foresaw" in caplog.text
