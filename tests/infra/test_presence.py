"""Presence per (match, seat), shared by two "processes" (two Presence objects on one
database), on both databases: a socket on one match says nothing of another, a player
stream counts in every match of its player, a killed process stops counting, and on
PostgreSQL a change written by one process wakes the readers of the other."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest

from infra import presence as presence_module
from infra.event_store import RecordedEvent
from infra.presence import NOTIFY_CHANNEL, Presence
from infra.sql_event_store import SqlEventStore
from infra.tailer import LogTailer
from tests.infra.helpers import ids


async def test_a_seat_is_present_only_in_the_match_whose_socket_it_holds(
    store: SqlEventStore,
) -> None:
    here, there = Presence(store.engine), Presence(store.engine)  # two server processes
    m1, m2, ada, bob = ids("m1", "m2", "ada", "bob")
    assert await there.away_since(m1, 1, ada) == 0, "never connected: away since ever"
    await here.arrive_at_seat(m1, 1)
    assert await there.away_since(m1, 1, ada) is None, "present, seen from the other process"
    assert await there.away_since(m2, 1, ada) == 0, "a socket on m1 is no presence in m2"
    assert await there.away_since(m1, 0, bob) == 0, "nor for the other seat of m1"
    await here.arrive_at_seat(m1, 1)  # a second tab
    await here.leave_seat(m1, 1)
    assert await there.away_since(m1, 1, ada) is None, "one socket is still open"
    before = int(time.time() * 1000)
    await here.leave_seat(m1, 1)
    away = await there.away_since(m1, 1, ada)
    assert away is not None and before <= away <= int(time.time() * 1000) + 1


async def test_a_player_stream_is_presence_in_every_match_of_its_player(
    store: SqlEventStore,
) -> None:
    here, there = Presence(store.engine), Presence(store.engine)
    m1, m2, bot, other = ids("m1", "m2", "bot", "other")
    await here.arrive_on_stream(bot)
    for match_id, seat in ((m1, 0), (m2, 1)):
        assert await there.away_since(match_id, seat, bot) is None
    assert await there.away_since(m1, 1, other) == 0
    await here.leave_stream(bot)
    assert await there.away_since(m2, 1, bot) not in (None, 0)


async def test_a_killed_process_stops_counting_once_its_rows_are_stale(
    store: SqlEventStore,
) -> None:
    killed, survivor = Presence(store.engine), Presence(store.engine)
    m1, ada = ids("m1", "ada")
    await killed.arrive_at_seat(m1, 0)
    await killed.arrive_on_stream(ada)
    del killed  # kill -9: it never leaves, and never refreshes again
    assert await survivor.away_since(m1, 0, ada) is None
    survivor.fresh_ms = 50
    await asyncio.sleep(0.1)
    away = await survivor.away_since(m1, 0, ada)
    assert away is not None and away > 0, "away since the dead process last wrote"
    await survivor.refresh()  # a live process's refresh rewrites only its own rows
    assert await survivor.away_since(m1, 0, ada) == away


async def test_a_change_written_by_one_process_wakes_the_readers_of_another(
    store: SqlEventStore,
) -> None:
    """On PostgreSQL each arrival and leave NOTIFYs, and the tailer's LISTEN session hands
    it to every Presence: the other process's readers are woken at once, the writer's own
    once (as it writes, not again by its own NOTIFY). SQLite (one process) NOTIFYs none."""
    here, there = Presence(store.engine), Presence(store.engine)
    m1, ada = ids("m1", "ada")
    woken: Counter[str] = Counter()
    here.on_change(m1, 1, ada, lambda: woken.update(["here"]))
    there.on_change(m1, 1, ada, lambda: woken.update(["there"]))

    def hear(payload: str | None) -> None:
        here.heard(payload)
        there.heard(payload)

    async def ignore(_event: RecordedEvent) -> None:
        pass

    tailer = LogTailer(store, await store.last_position(), ignore, also_hear={NOTIFY_CHANNEL: hear})
    await tailer.start()
    try:
        if store.is_postgres:
            await asyncio.wait_for(tailer.listening.wait(), 10)
            assert woken == Counter({"here": 1, "there": 1}), "listening, each looks once"
            woken.clear()
        await here.arrive_at_seat(m1, 1)
        await here.leave_seat(m1, 1)
        await here.arrive_on_stream(ada)
        expected = Counter({"here": 3, "there": 3 if store.is_postgres else 0})
        for _ in range(200):
            if woken == expected:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # nothing more comes
        assert woken == expected
    finally:
        await tailer.stop()
    here.heard("not json")  # a payload not understood wakes nobody
    here.heard('["elsewhere"]')
    assert woken == expected


async def test_looking_again_is_made_once_a_gap_and_the_last_ask_is_never_dropped(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A LISTEN session that drops as soon as it is made reconnects many times a second;
    each reconnect asks every reader to look again (a read each). Asks within the gap are
    made once, as it ends: none is lost, and the readers are not stormed."""
    monkeypatch.setattr(presence_module, "LOOK_AGAIN_GAP_S", 0.3)
    here = Presence(store.engine)
    m1, ada = ids("m1", "ada")
    woken: list[float] = []
    here.on_change(m1, 1, ada, lambda: woken.append(time.monotonic()))
    for _ in range(20):  # twenty reconnects at once
        here.heard(None)
    assert len(woken) == 1, "the first at once"
    await asyncio.sleep(0.5)
    assert len(woken) == 2, "the nineteen others as one, when the gap ended"
    assert woken[1] - woken[0] >= 0.29
    await asyncio.sleep(0.4)
    assert len(woken) == 2, "nothing more was asked"
    here.heard(None)  # the gap is over: at once again
    assert len(woken) == 3


async def test_a_look_put_off_is_not_made_once_presence_is_closed(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At shutdown the readers go with the process: a look waiting for the gap to end
    must not wake them after the store is closed."""
    monkeypatch.setattr(presence_module, "LOOK_AGAIN_GAP_S", 0.2)
    here = Presence(store.engine)
    m1, ada = ids("m1", "ada")
    woken: list[float] = []
    here.on_change(m1, 1, ada, lambda: woken.append(time.monotonic()))
    here.heard(None)
    here.heard(None)  # put off to the gap's end
    here.close()
    await asyncio.sleep(0.4)
    assert len(woken) == 1
