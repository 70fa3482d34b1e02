"""The match service's in-memory cache stays within its bounds, in matches and in events."""

from __future__ import annotations

import pytest

from domain.match import fold
from domain.rules import make_rules
from domain.views import player_view
from infra.store import open_store
from server import match_record
from server.match_service import MatchService


async def test_the_cache_holds_no_more_events_than_its_bound(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Long matches (a target of thousands) must not let a count of matches hold gigabytes."""
    monkeypatch.setattr(match_record, "CACHE_EVENTS", 30)
    store = await open_store(sqlite_url, migrate=False)
    service = MatchService(store)
    cache = service.records
    try:
        rules = make_rules("classic", target=10000)
        ids = [await service.start(("p1", "ai:easy"), rules, f"cache-{n}") for n in range(4)]
        for match_id in ids * 6:
            legal = player_view((await service.load(match_id)).state, 0).legal
            await service.act(match_id, "p1", lambda seat, first=legal[0]: first, None)
            total = sum(len(record.events) for record in cache)
            assert total <= 30 or len(cache) == 1, (total, len(cache))
            assert cache.events == total
        assert len(cache) < len(ids)  # some matches were evicted...
        fresh = MatchService(store)
        for match_id in ids:  # ...and read back from the store as they were
            assert (await service.load(match_id)).state == (await fresh.load(match_id)).state
    finally:
        await store.close()


async def test_an_older_state_folded_from_a_mark_or_a_known_state_is_the_one_from_the_start(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume or a replay step folds from the nearest kept state, never from version 1."""
    monkeypatch.setattr(match_record, "MARK_EVERY", 4)
    store = await open_store(sqlite_url, migrate=False)
    service = MatchService(store)
    try:
        match_id = await service.start(("p1", "ai:easy"), make_rules("classic"), "marks")
        for _ in range(12):  # appended a move and a reply at a time: marks kept on the way
            legal = player_view((await service.load(match_id)).state, 0).legal
            await service.act(match_id, "p1", lambda seat, first=legal[0]: first, None)
        record = await service.load(match_id)
        latest = record.state.version
        assert [mark.version for mark in record.marks] == list(range(4, latest + 1, 4))
        every = [fold(r.match_event for r in record.events[:v]) for v in range(1, latest + 1)]
        assert (await MatchService(store).load(match_id)).marks == record.marks  # read at once
        for version, expected in enumerate(every, start=1):
            assert record.state_at(version) == expected
            for known in (every[0], every[version // 2], expected, record.state):
                assert record.state_at(version, known) == expected
    finally:
        await store.close()
