"""The clock sweeper: one match it cannot time out does not stop it timing out the rest."""

from __future__ import annotations

import asyncio

from domain.events import TurnTimedOut
from domain.rules import MIN_CLOCK_MS, Clock, make_rules
from infra.deadlines import Deadlines
from infra.store import open_store
from server.match_service import MatchService


async def test_a_deadline_that_fails_does_not_hold_up_the_others(sqlite_url: str) -> None:
    store = await open_store(sqlite_url, migrate=False)
    deadlines = Deadlines(store.engine)
    service = MatchService(store, deadlines=deadlines)
    try:
        match_id = await service.start(
            ("p1", "ai:easy"), make_rules(), "sweep", clock=Clock(per_move_ms=MIN_CLOCK_MS)
        )
        # a row no match answers (the longest overdue, so the first one tried) fails
        await deadlines.set("no-such-match", 1, 1)
        await asyncio.sleep(MIN_CLOCK_MS / 1000 + 0.05)  # the shortest clock runs out
        assert await service.fire_due() == 1
        recorded = await store.read_stream(match_id)
        assert [r.match_event for r in recorded if isinstance(r.match_event, TurnTimedOut)]
    finally:
        await store.close()
