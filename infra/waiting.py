"""Waiting for an asyncio.Event with a time limit, in a way that never loses a cancel.

``asyncio.wait_for`` on Python 3.11 returns normally when the event fires in the same
step as a cancel of the waiting task, so a loop stopped by cancelling it ran on (the
log tailer's stop once hung a test run). ``asyncio.timeout`` does not.
"""

from __future__ import annotations

import asyncio


async def wait_set(event: asyncio.Event, timeout: float | None) -> bool:
    """True once ``event`` is set, False when ``timeout`` seconds pass first."""
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return False
    return True
