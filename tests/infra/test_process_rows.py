"""Per-process count rows (infra/process_rows.py) through their two users, on both
databases: spectators counted across processes, a refresh that rewrites every row of a
process in batched statements, and sweeps that forget only stale rows."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event

from infra import presence as presence_module
from infra import process_rows
from infra.presence import Presence
from infra.spectators import Spectators
from infra.sql_event_store import SqlEventStore
from tests.infra.helpers import ids


async def test_spectators_are_counted_across_processes_and_a_closed_count_goes(
    store: SqlEventStore,
) -> None:
    here, there = Spectators(store.engine), Spectators(store.engine)
    (m1,) = ids("m1")
    await here.arrive(m1)
    await here.arrive(m1)
    await there.arrive(m1)
    assert await there.count(m1) == 3
    await here.leave(m1)
    await here.leave(m1)
    assert await there.count(m1) == 1
    await there.leave(m1)
    assert await here.count(m1) == 0


async def test_a_listing_counts_several_matches_spectators_in_one_read(
    store: SqlEventStore,
) -> None:
    """``counts`` agrees with ``count`` match by match, across processes, and leaves
    out neither a match nobody watches nor one whose only watcher's row went stale."""
    here, there, killed = (Spectators(store.engine) for _ in range(3))
    m1, m2, m3, m4 = ids("m1", "m2", "m3", "m4")
    for counter, match_id in ((here, m1), (there, m1), (here, m2), (killed, m4)):
        await counter.arrive(match_id)
    assert await here.counts([m1, m2, m3, m4]) == {m1: 2, m2: 1, m3: 0, m4: 1}
    assert await here.counts([]) == {}
    del killed  # kill -9: its row stops counting once stale, the others are rewritten
    there.fresh_ms = 500
    await asyncio.sleep(1.0)
    await here.refresh()
    await there.refresh()
    listed = await there.counts([m4, m2, m1])
    assert listed == {m4: 0, m2: 1, m1: 2}
    assert listed == {m: await there.count(m) for m in (m4, m2, m1)}


async def test_a_killed_process_spectators_stop_counting_and_are_swept(
    store: SqlEventStore,
) -> None:
    killed, survivor = Spectators(store.engine), Spectators(store.engine)
    m1, m2 = ids("m1", "m2")
    await killed.arrive(m1)
    await survivor.arrive(m2)
    del killed  # kill -9: never leaves, never refreshes
    survivor.fresh_ms = 50
    await asyncio.sleep(0.1)
    assert await survivor.count(m1) == 0, "a stale row no longer counts"
    survivor.fresh_ms = 5  # sweep: older than 50 ms
    await survivor.refresh()
    survivor.fresh_ms = 60_000
    assert await survivor.count(m1) == 0, "the dead process's row was swept, not just stale"
    assert await survivor.count(m2) == 1, "the refresh kept (and rewrote) its own row"


@pytest.fixture
def upserts(store: SqlEventStore) -> Iterator[list[str]]:
    """The INSERT statements the store's engine sends, as the driver sees them."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT"):
            seen.append(statement)

    event.listen(store.engine.sync_engine, "before_cursor_execute", record)
    yield seen
    event.remove(store.engine.sync_engine, "before_cursor_execute", record)


async def test_a_refresh_rewrites_every_row_one_statement_a_batch(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch, upserts: list[str]
) -> None:
    here, there = Presence(store.engine), Presence(store.engine)
    matches = ids("m1", "m2", "m3", "m4", "m5")
    (bot,) = ids("bot")
    for match_id in matches:
        await here.arrive_at_seat(match_id, 0)
    await here.arrive_on_stream(bot)
    # rows a second old are stale; rewritten ones stay fresh for half a second, time enough
    # for the checks below on a loaded machine (at 50 ms a busy database outlasted it)
    there.fresh_ms = 500
    await asyncio.sleep(1.0)
    assert all([await there.away_since(m, 0, "nobody") for m in matches]), "all stale"
    monkeypatch.setattr(process_rows, "BATCH_ROWS", 2)
    upserts.clear()
    await here.refresh()
    assert len(upserts) == 3 + 1, "5 seats in batches of 2, and the one stream"
    for match_id in matches:
        assert await there.away_since(match_id, 0, "nobody") is None, match_id
    assert await there.away_since(ids("m6")[0], 1, bot) is None


async def test_a_presence_sweep_forgets_only_rows_older_than_the_keep(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    killed, survivor = Presence(store.engine), Presence(store.engine)
    m1, m2, ada = ids("m1", "m2", "ada")
    await killed.arrive_at_seat(m1, 0)
    await killed.arrive_on_stream(ada)
    await survivor.arrive_at_seat(m2, 1)
    del killed
    survivor.fresh_ms = 500  # as above: room for a slow database
    monkeypatch.setattr(presence_module, "KEEP_MS", 500)
    await asyncio.sleep(1.0)
    assert await survivor.away_since(m1, 0, ada) not in (None, 0), "stale: away since"
    await survivor.refresh()
    assert await survivor.away_since(m1, 0, ada) == 0, "forgotten: as if never connected"
    assert await survivor.away_since(m2, 1, "nobody") is None, "its own rows were rewritten"


async def test_a_leave_during_a_refresh_is_not_undone_by_it(store: SqlEventStore) -> None:
    """A refresh writes the counts it read; a socket closing meanwhile must not have its
    row rewritten as still open (it would count as present for ``fresh_ms``)."""
    here, there = Presence(store.engine), Presence(store.engine)
    watchers, other = Spectators(store.engine), Spectators(store.engine)
    for _ in range(20):
        m1, bot = ids("m1", "bot")
        await here.arrive_at_seat(m1, 1)
        await here.arrive_on_stream(bot)
        await watchers.arrive(m1)
        await asyncio.gather(
            here.refresh(), here.leave_seat(m1, 1), watchers.refresh(), watchers.leave(m1)
        )
        assert await there.away_since(m1, 1, "nobody") not in (None, 0), "it left"
        assert await other.count(m1) == 0, "its spectator left"
        await here.leave_stream(bot)
