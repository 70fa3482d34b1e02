"""What the match cache holds is invisible to the collector (issue 22, its pauses).

A server keeps up to thousands of matches folded, with every event; each young
collection counts the objects that survived it, and each older one walks them all.
Events, recorded events and states are immutable (``gc=False``), so a cached match
adds a handful of tracked objects (its record, its list), not one or more per event.
"""

from __future__ import annotations

import gc

from domain.rules import make_rules
from domain.views import player_view
from infra.store import open_store
from server.match_service import MatchService


async def test_a_cached_match_adds_few_tracked_objects_whatever_its_length(
    sqlite_url: str,
) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        writer = MatchService(store)
        rules = make_rules("classic", target=10000)
        ids = [await writer.start(("p1", "ai:easy"), rules, f"untracked-{n}") for n in range(6)]
        for match_id in ids * 25:
            legal = player_view((await writer.load(match_id)).state, 0).legal
            await writer.act(match_id, "p1", lambda seat, first=legal[0]: first, None)
        reader = MatchService(store)  # the same matches read back from the store
        for match_id in ids:
            await reader.load(match_id)
        for service in (writer, reader):
            events = sum(len(record.events) for record in service.records)
            assert events > len(ids) * 50  # long enough for a per-event cost to show
            gc.collect()
            gc.collect()  # a tuple of tuples is untracked a pass after the tuples it holds
            held = len(gc.get_objects())
            service.records.clear()
            gc.collect()
            tracked = held - len(gc.get_objects())
            assert tracked <= 4 * len(ids), (tracked, events)  # a record and its list each
    finally:
        await store.close()
