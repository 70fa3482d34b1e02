"""A refused ``resume`` does not hold back the events its wake also brought.

The pump reads once per wake: a ``resume`` past the match's end (refused with a
``version_out_of_range`` frame) and an append's notice can wake it together. The refusal
returned before the events were sent, so the new event waited for the next append (or
never came, at a match's last move): the seat's table stood still with its socket open.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from domain.rules import make_rules
from infra.store import open_store
from server.fanout import Hub
from server.match_service import MatchService
from server.ws.live import LiveSession


async def test_a_refused_resume_still_sends_the_events_of_its_wake(sqlite_url: str) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        matches = MatchService(store)
        match_id = await matches.start(("p0", "p1"), make_rules("classic", target=100), "resume")
        record = await matches.load(match_id)
        latest = record.state.version
        assert latest >= 2
        services: Any = SimpleNamespace(
            hub=Hub(),
            matches=matches,
            settings=SimpleNamespace(ws_queue_size=64, ws_heartbeat_s=15.0),
        )
        socket: Any = SimpleNamespace()
        session = LiveSession(socket, services, match_id)
        session.record = record
        session.state = record.state_at(latest - 1)  # the socket has sent all but the newest
        session.watch.notify(latest)  # the newest's notice ...
        session.resume_after = latest + 5  # ... and a resume past the end, in one wake
        await session.catch_up()
        frames = []
        while not session.queue.empty():
            frames.append(json.loads(session.queue.get_nowait()))
        assert [f["type"] for f in frames][:1] == ["error"], frames
        assert frames[0]["problem"]["rule"] == "version_out_of_range"
        sent = [f["version"] for f in frames if f["type"] == "event"]
        assert sent == [latest], f"the newest event was held back: {frames}"
    finally:
        await store.close()
