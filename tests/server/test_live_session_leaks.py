"""A match socket lets go of what its first frames took, whatever ends it.

``LiveSession.start`` follows the seats' renames and the opponent's presence, and ran
before the ``try`` whose ``finally`` lets go of them: had it raised, they would have
stayed followed, and the seat counted as present (its opponent never able to claim),
for ever. Its one read (the seats' names) is made again by the pump when it fails, so
the failure here is made up: the presence refusing to be followed, after the renames are.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from domain.rules import make_rules
from infra.players import Player
from infra.store import open_store
from server.fanout import Hub
from server.match_service import MatchService
from server.renames import Renames
from server.ws.live import LiveSession


async def test_a_socket_whose_start_fails_holds_nothing(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        matches = MatchService(store)
        match_id = await matches.start(("p0", "p1"), make_rules("classic", target=100), "leaks")
        arrived: list[tuple[str, int]] = []
        left: list[tuple[str, int]] = []

        async def arrive_at_seat(match_id: str, seat: int) -> None:
            arrived.append((match_id, seat))

        async def leave_seat(match_id: str, seat: int) -> None:
            left.append((match_id, seat))

        def on_change(*_: Any) -> None:
            raise RuntimeError("the opponent's presence cannot be followed")

        async def load_chat(match_id: str) -> None:
            return None

        hub, renames = Hub(), Renames()
        services: Any = SimpleNamespace(
            hub=hub,
            renames=renames,
            matches=matches,
            presence=SimpleNamespace(
                arrive_at_seat=arrive_at_seat, leave_seat=leave_seat, on_change=on_change
            ),
            chat=SimpleNamespace(load=load_chat),
            token_watch=SimpleNamespace(),
            settings=SimpleNamespace(ws_queue_size=64, ws_heartbeat_s=15.0, absence_grace_s=60.0),
        )
        session = LiveSession(SimpleNamespace(), services, match_id)

        async def authenticate() -> Player:
            return Player(id="p0", name="Ann", created_at=datetime.now(UTC))

        monkeypatch.setattr(session, "authenticate", authenticate)
        with pytest.raises(RuntimeError, match="cannot be followed"):
            await session.run()
        assert arrived == [(match_id, 0)]
        assert left == arrived, "the seat is still counted as present"
        assert renames.followers() == 0, "the seats' renames are still followed"
    finally:
        await store.close()
