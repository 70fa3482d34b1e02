"""``infra.look_again``: at most one look a gap, even when the loop runs late."""

from __future__ import annotations

import asyncio
import time

from infra.look_again import LookAgain


async def test_an_ask_after_the_gap_while_a_look_is_put_off_makes_one_look() -> None:
    """The put-off look's timer is late (a busy loop): an ask made after the gap's end
    looked at once and the timer looked again, two reads per reader at one moment."""
    looks: list[float] = []
    again = LookAgain(lambda: looks.append(time.monotonic()), 0.05)
    again.ask()  # at once
    again.ask()  # put off to the gap's end
    time.sleep(0.06)  # the loop is busy past the gap's end
    again.ask()  # answered by the look put off, due now
    await asyncio.sleep(0.01)
    assert len(looks) == 2
