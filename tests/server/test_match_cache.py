"""The match service's in-memory cache stays within its bounds, in matches and in events."""

from __future__ import annotations

import pytest

from domain.rules import make_rules
from domain.views import player_view
from infra.store import open_store
from server import match_service
from server.match_service import MatchService


async def test_the_cache_holds_no_more_events_than_its_bound(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long matches (a target of thousands) must not let a count of matches hold gigabytes."""
    monkeypatch.setattr(match_service, "CACHE_EVENTS", 30)
    store = await open_store(sqlite_url, migrate=False)
    service = MatchService(store)
    cache = service._cache  # private: the bound is the behaviour under test
    try:
        rules = make_rules("classic", target=10000)
        ids = [await service.start(("p1", "ai:easy"), rules, f"cache-{n}") for n in range(4)]
        for match_id in ids * 6:
            legal = player_view((await service.load(match_id)).state, 0).legal
            await service.act(match_id, "p1", lambda seat, first=legal[0]: first, None)
            total = sum(len(record.events) for record in cache.values())
            assert total <= 30 or len(cache) == 1, (total, len(cache))
            assert service._cached_events == total
        assert len(cache) < len(ids)  # some matches were evicted...
        fresh = MatchService(store)
        for match_id in ids:  # ...and read back from the store as they were
            assert (await service.load(match_id)).state == (await fresh.load(match_id)).state
    finally:
        await store.close()
