"""A player stream whose opening fails lets go of what it holds: its firehose (woken by
every stream that moves, its pending map never read) and its follow of renames."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from infra.errors import StoreUnavailable
from server.fanout import Hub
from server.player_stream import PlayerStream
from server.renames import Renames


async def test_a_stream_whose_presence_write_fails_holds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def arrive_on_stream(player_id: str) -> None:
        raise StoreUnavailable("down")

    async def leave_stream(player_id: str) -> None:
        return None

    hub, renames = Hub(), Renames()
    services: Any = SimpleNamespace(
        hub=hub,
        renames=renames,
        presence=SimpleNamespace(arrive_on_stream=arrive_on_stream, leave_stream=leave_stream),
        settings=SimpleNamespace(absence_grace_s=60.0, stream_ping_s=15.0),
    )
    for _ in range(3):  # a client that retries while the database is down
        with pytest.raises(StoreUnavailable):
            await anext(PlayerStream(services, "ada").frames())
    assert len(hub._firehoses) == 0
    assert renames.followers() == 0
