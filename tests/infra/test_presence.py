"""Presence per (match, seat), shared by two "processes" (two Presence objects on one
database), on both databases: a socket on one match says nothing of another, a player
stream counts in every match of its player, and a killed process stops counting."""

from __future__ import annotations

import asyncio
import time
import uuid

from infra.presence import Presence
from infra.sql_event_store import SqlEventStore


def ids(*names: str) -> list[str]:
    """Fresh match and player ids: a PostgreSQL test database outlives one test."""
    return [f"{name}-{uuid.uuid4().hex[:8]}" for name in names]


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
