"""A player stream whose opening fails, or that never starts, holds nothing: not its
firehose (woken by every stream that moves, its pending map never read), nor its follow
of renames."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from infra.errors import StoreUnavailable
from server.fanout import Hub
from server.player_stream import PlayerStream
from server.renames import Renames


def services_of_a_stream(hub: Hub, renames: Renames, arriving: bool = True) -> Any:
    """What a stream's opening touches; ``arriving``: its presence write succeeds."""

    async def arrive_on_stream(player_id: str) -> None:
        if not arriving:
            raise StoreUnavailable("down")

    async def leave_stream(player_id: str) -> None:
        return None

    return SimpleNamespace(
        hub=hub,
        renames=renames,
        presence=SimpleNamespace(arrive_on_stream=arrive_on_stream, leave_stream=leave_stream),
        settings=SimpleNamespace(absence_grace_s=60.0, stream_ping_s=15.0),
    )


async def test_a_stream_whose_presence_write_fails_holds_nothing() -> None:
    hub, renames = Hub(), Renames()
    services = services_of_a_stream(hub, renames, arriving=False)
    for _ in range(3):  # a client that retries while the database is down
        with pytest.raises(StoreUnavailable):
            await anext(PlayerStream(services, "ada").frames())
    assert len(hub._firehoses) == 0
    assert renames.followers() == 0


async def test_a_stream_never_started_holds_nothing() -> None:
    """Frames made but never asked for (a socket whose client left before its first
    frame: the step that would have started them was cancelled before it ran) run no
    ``finally``; so nothing may be taken before they start."""
    hub, renames = Hub(), Renames()
    services = services_of_a_stream(hub, renames)
    closed = PlayerStream(services, "ada").frames()
    await closed.aclose()  # as ``until_set`` closes the frames it stops following
    PlayerStream(services, "bob").frames()  # dropped without even a close
    assert len(hub._firehoses) == 0
    assert renames.followers() == 0
