"""The hub's firehose: what wakes the player streams and the lobby feed."""

from __future__ import annotations

import asyncio

from domain.chat import stream_of
from server.fanout import Backoff, Hub
from server.player_stream import Owed


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


def test_a_backoff_doubles_while_reads_fail_to_its_limit_and_starts_over_once_answered() -> None:
    backoff = Backoff(first=0.5, at_most=2.0)
    assert backoff.seconds_left() is None and not backoff.take()
    delays = []
    for _ in range(4):
        backoff.failed()
        left = backoff.seconds_left()
        assert left is not None
        delays.append(round(left, 1))
    assert delays == [0.5, 1.0, 2.0, 2.0]
    assert not backoff.take()  # not due yet
    backoff.answered()
    assert backoff.seconds_left() is None
    backoff.failed()
    assert round(backoff.seconds_left() or 0, 1) == 0.5


async def test_what_a_stream_owes_keeps_its_retry_when_more_fails_meanwhile() -> None:
    """New failures join the scheduled retry instead of pushing it back: on a server whose
    streams move all the time, a stream reads (and may fail) on every wake-up."""
    owed = Owed()
    owed.backoff = Backoff(first=0.2, at_most=10.0)
    owed.move("m-1", 7)
    owed.after_round(retried=False)
    first = owed.backoff.seconds_left()
    assert first is not None
    for version in (8, 9):  # the match moved again and its reads failed again
        await asyncio.sleep(0.05)
        owed.move("m-1", version)
        owed.start("m-2")
        owed.after_round(retried=False)
    left = owed.backoff.seconds_left()
    assert left is not None and left < first
    assert owed.take_due() == ({}, [])
    await asyncio.sleep(left + 0.05)
    assert owed.take_due() == ({"m-1": 9}, ["m-2"])
    owed.after_round(retried=True)  # all answered
    assert owed.backoff.seconds_left() is None and owed.backoff.delay == 0.2
