"""Snapshots: a state loaded from a snapshot plus later events equals the full fold."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import update

from domain.match import fold
from infra.errors import StreamNotFound
from infra.schema import snapshots
from infra.snapshots import latest_snapshot, load_state, save_snapshot
from infra.sql_event_store import SqlEventStore
from tests.infra.helpers import random_match, stream


async def test_snapshot_plus_later_events_equals_folding_everything(
    store: SqlEventStore,
) -> None:
    rng = random.Random(4)
    for seed in range(4):
        match_id = stream()
        _, batches = random_match(seed, match_id)
        events = [e for b in batches for e in b]
        await store.append(match_id, 0, events)
        cuts = sorted(rng.sample(range(1, len(events) + 1), 4))
        for cut in cuts:
            await save_snapshot(store, fold(events[:cut]))
        await save_snapshot(store, fold(events[: cuts[0]]))  # saving twice is harmless
        assert await load_state(store, match_id) == fold(events)
        for at in [*cuts, *(rng.randint(1, len(events)) for _ in range(6))]:
            assert await load_state(store, match_id, at) == fold(events[:at])
        newest = await latest_snapshot(store, match_id)
        assert newest is not None and newest.version == cuts[-1]


async def test_an_unreadable_snapshot_is_ignored(store: SqlEventStore) -> None:
    match_id = stream()
    _, batches = random_match(9, match_id)
    events = [e for b in batches for e in b]
    await store.append(match_id, 0, events)
    await save_snapshot(store, fold(events[:10]))
    await save_snapshot(store, fold(events[:20]))
    async with store.engine.begin() as conn:
        await conn.execute(
            update(snapshots).where(snapshots.c.version == 20).values(state=b"\xc1garbage")
        )
    assert (await latest_snapshot(store, match_id)).version == 10  # type: ignore[union-attr]
    assert await load_state(store, match_id, 30) == fold(events[:30])
    with pytest.raises(StreamNotFound):
        await load_state(store, stream())
