"""The hub's firehose: what wakes the player streams and the lobby feed."""

from __future__ import annotations

from domain.chat import stream_of
from server.fanout import Hub


async def test_a_chat_append_wakes_no_firehose_so_a_mute_moves_no_ping() -> None:
    """A player stream that wakes with nothing to send waits a whole ping interval again:
    woken by a chat's mute, the muted player's ping would come late, and tell."""
    hub = Hub()
    hose = hub.firehose("p1")
    hub.publish(stream_of("m1"), 2)
    assert await hose.wait(timeout=0.05) == {}
    hub.publish("m1", 7)  # a move in a match still wakes it
    assert await hose.wait(timeout=0.05) == {"m1": 7}
    hub.close_firehose(hose)
