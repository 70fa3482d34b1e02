"""Projections apply what their own process wrote without reading it back (issue 22 item 2).

The guarantees are the log's: every committed event applied once, in position order,
whoever wrote it; an explicit ``catch_up`` reaches the head (read-your-own-writes).
Two stores on one database stand for two server processes.
"""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

from sqlalchemy import event

from infra.errors import ConcurrencyConflict
from infra.event_store import Batch, RecordedEvent
from infra.projections import projector, stats_for_player
from infra.projections.stats import COUNTERS
from infra.sql_event_store import SqlEventStore
from infra.store import open_store
from tests.infra.helpers import batch, random_match, stream
from tests.infra.test_projections import _expected_stats, _interleave, _matches, _snapshot


def _log_reads(store: SqlEventStore) -> list[str]:
    """Every statement that reads the global log (``read_all``), as the database saw it."""
    seen: list[str] = []

    @event.listens_for(store.engine.sync_engine, "before_cursor_execute")
    def _count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "FROM events" in statement and "position >" in statement:
            seen.append(statement)

    return seen


async def test_a_projector_reads_back_nothing_its_own_store_wrote(store: SqlEventStore) -> None:
    runner = projector(store)  # before the appends: from here on it holds what they write
    played = _matches(3, seed=5)
    await _interleave(store, played, random.Random(5))
    reads = _log_reads(store)
    applied = await runner.catch_up()
    head = await store.last_position()
    assert applied == head * len(runner.projections)
    assert reads == []
    for name in runner.projections:
        assert await runner.checkpoint(name) == head
    incremental = await _snapshot(store)
    for player, expected in _expected_stats(played).items():
        stats = await stats_for_player(store.engine, player)
        assert {c: getattr(stats, c) for c in COUNTERS} == {c: expected[c] for c in COUNTERS}
    for name in runner.projections:  # from the log itself: the very same read model
        await runner.rebuild(name)
    assert reads != []
    assert await _snapshot(store) == incremental
    runner.close()


async def test_a_run_of_own_events_cut_by_another_processes_reaches_the_head(
    store: SqlEventStore, db_url: str
) -> None:
    other = await open_store(db_url, migrate=False)
    try:
        runner = projector(store)
        ours, theirs = stream(), stream()
        _, (started, *rest) = random_match(7, ours)
        await store.append(ours, 0, started)  # held here
        _, (theirs_started, *_) = random_match(8, theirs)
        await other.append(theirs, 0, theirs_started)  # not held here
        await store.append(ours, len(started), rest[0])  # held, after a gap
        head = await store.last_position()
        await runner.catch_up()
        for name in runner.projections:
            assert await runner.checkpoint(name) == head
        incremental = await _snapshot(store)
        for name in runner.projections:
            await runner.rebuild(name)
        assert await _snapshot(store) == incremental
        runner.close()
    finally:
        await other.close()


async def test_two_processes_projecting_one_log_apply_each_event_once(
    store: SqlEventStore, db_url: str
) -> None:
    other = await open_store(db_url, migrate=False)
    try:
        runners = [projector(store), projector(other)]
        for runner in runners:
            runner.batch_size = 29  # batches cut in odd places, by both
        rng = random.Random(13)
        played = _matches(6, seed=9)
        owners = {match_id: rng.choice([store, other]) for match_id, _, _ in played}

        # Each match is written by one store, the matches interleaved across both, and
        # either projector catches up now and then: the checkpoints move by both, through
        # runs held and runs read.
        cursors = dict.fromkeys(owners, 0)
        versions = dict.fromkeys(owners, 0)
        pending = [(m, b) for m, _, b in played]
        while pending:
            match_id, batches = rng.choice(pending)
            chunk = batches[cursors[match_id] : cursors[match_id] + rng.randint(1, 30)]
            events = [e for b in chunk for e in b]
            result = await owners[match_id].append(match_id, versions[match_id], events)
            versions[match_id] = result.last_version
            cursors[match_id] += len(chunk)
            if cursors[match_id] == len(batches):
                pending.remove((match_id, batches))
            if rng.random() < 0.4:
                await rng.choice(runners).catch_up()
        await runners[0].catch_up()
        await runners[1].catch_up()
        head = await store.last_position()
        for runner in runners:
            for name in runner.projections:
                assert await runner.checkpoint(name) == head
        for player, expected in _expected_stats(played).items():
            stats = await stats_for_player(store.engine, player)
            assert {c: getattr(stats, c) for c in COUNTERS} == {c: expected[c] for c in COUNTERS}
        incremental = await _snapshot(store)
        for name in runners[0].projections:
            await runners[0].rebuild(name)
        assert await _snapshot(store) == incremental
        for runner in runners:
            runner.close()
    finally:
        await other.close()


async def test_what_the_store_hands_over_is_what_read_all_returns(
    store: SqlEventStore, db_url: str
) -> None:
    """Field by field, for every kind of outcome a group can hold: written, retried with
    its command id, refused, a chain's follow-up, and another process's append between."""
    other = await open_store(db_url, migrate=False)
    handed: list[RecordedEvent] = []
    store.add_own_events_listener(handed.extend)
    try:
        ours, theirs = stream(), stream()
        _, (started, *rest) = random_match(11, ours)
        await store.append(ours, 0, started, command_id="c-1", command_hash="h-1")
        retried = await asyncio.gather(  # one group: a retry beside a new append
            store.append(ours, 0, started, command_id="c-1", command_hash="h-1"),
            store.append(stream(), 0, batch(1)),
        )
        assert retried[0].duplicate
        await other.append(theirs, 0, batch(2))
        version = len(started)
        refused, _ = await asyncio.gather(  # one group: a refusal beside a new append
            store.append(ours, version - 1, rest[0]),
            store.append(stream(), 0, batch(2)),
            return_exceptions=True,
        )
        assert isinstance(refused, ConcurrencyConflict)
        chain = [Batch(rest[0], "c-2", "h-2"), Batch(rest[1]), Batch(rest[2], "c-3")]
        await store.append_chain(ours, version, chain)
        await store.append_chain(ours, version, chain)  # the retry: its first is a duplicate
        written = await store.read_all(0)
        assert handed == [e for e in written if e.stream_id != theirs]
        assert {e.command_id for e in handed} == {"c-1", "c-2", None, "c-3"}
    finally:
        store.remove_own_events_listener(handed.extend)
        await other.close()


async def test_one_projection_caught_up_alone_lets_go_of_nothing_the_others_need(
    store: SqlEventStore,
) -> None:
    """The endpoints catch up one projection by name: what the other three have not
    applied yet must still be held for them, not read back."""
    runner = projector(store)
    try:
        ours = stream()
        _, (started, *rest) = random_match(3, ours)
        reads = _log_reads(store)
        await store.append(ours, 0, started)
        await runner.catch_up("lobby")  # as a request does, before the others were ever seen
        await runner.catch_up()
        await store.append(ours, len(started), rest[0])
        await runner.catch_up("lobby")  # and once every projection has been seen
        await runner.catch_up()
        assert reads == []
        head = await store.last_position()
        for name in runner.projections:
            assert await runner.checkpoint(name) == head
    finally:
        runner.close()


async def test_what_every_projection_applied_is_let_go_and_the_rest_kept(
    store: SqlEventStore,
) -> None:
    """The held events are memory: once every projection has applied one it goes (a
    white-box check of the hold itself, which no read-back would show)."""
    runner = projector(store)
    try:
        ours = stream()
        _, (started, *rest) = random_match(3, ours)
        await store.append(ours, 0, started)
        await runner.catch_up()
        assert runner._own == {}, "all applied: nothing held"
        await store.append(ours, len(started), rest[0])
        held = dict(runner._own)
        assert sorted(held) == list(range(len(started) + 1, len(started) + len(rest[0]) + 1))
        await runner.catch_up("lobby")
        assert runner._own == held, "three projections still need them"
        await runner.catch_up()
        assert runner._own == {}
    finally:
        runner.close()


async def test_past_the_cap_the_oldest_held_go_and_catch_up_reads_them_from_the_log(
    store: SqlEventStore, monkeypatch: Any
) -> None:
    """Catch-up failing for long: at most MAX_HELD events are held, the newest, and the
    hold is not copied again on every commit once at the cap (each copy is O(MAX_HELD)
    on the event loop: 100,000 events, tens of ms). Nothing is lost: what was let go is
    read from the log."""
    # the module (the package's ``projector`` is the function of that name)
    monkeypatch.setattr(sys.modules["infra.projections.projector"], "MAX_HELD", 10)
    runner = projector(store)
    try:
        ours = stream()
        copies, seen = 0, runner._own
        for version in range(60):
            await store.append(ours, version, batch())
            assert len(runner._own) <= 10
            if runner._own is not seen:
                copies, seen = copies + 1, runner._own
        head = await store.last_position()
        assert max(runner._own) == head, "the newest are held"
        assert copies <= 60 // 5, f"the hold was copied {copies} times for 60 commits"
        await runner.catch_up()
        for name in runner.projections:
            assert await runner.checkpoint(name) == head
    finally:
        runner.close()
