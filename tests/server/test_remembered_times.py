"""A process's own append is stamped with the time the store recorded, not a clock read of
its own.

After an append the process keeps the match's record in memory rather than read it back
(``MatchLog.remember``); it stamped the new events with ``datetime.now()`` taken a
millisecond or two after the store's, so a move clock's deadline, which counts from the
last event's time, moved by that much when another process (or this one after a restart)
read the match from the store, and a match's ``finished_at_ms`` differed from the list's
``finished_at``.
"""

from __future__ import annotations

from domain.commands import Resign
from domain.rules import make_rules
from infra.store import open_store
from server.match_service import MatchService


async def test_a_kept_record_has_the_stores_times(sqlite_url: str) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        matches = MatchService(store)
        rules = make_rules("classic", target=100)
        match_id = await matches.start(("p0", "p1"), rules, "remembered-times")
        await matches.act(match_id, "p0", lambda seat: Resign(seat), None)
        kept = await matches.load(match_id)  # this process's record, never read back
        read = await MatchService(store).load(match_id)  # another process's: the store's
        assert kept.state.settlement is not None and kept.events is not read.events
        assert [e.recorded_at for e in kept.events] == [e.recorded_at for e in read.events]
        assert kept.settled_at_ms() == read.settled_at_ms() is not None
    finally:
        await store.close()
