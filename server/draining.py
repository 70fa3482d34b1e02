"""A stopping server ends its NDJSON streams with a line that says so.

On SIGTERM or SIGINT uvicorn closes every WebSocket with 1012 (restarting) and waits,
up to its graceful-shutdown timeout, for HTTP responses to end. A player stream over
NDJSON never ends by itself: without this, each restart waited the whole timeout and
then cut every stream mid-chunk, with a traceback in the log and nothing to tell the
client why. The signal handler uvicorn installed is chained, never replaced, and only
where there is one (a process without uvicorn's handler keeps its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGTERM, signal.SIGINT)
# A stopping process first waits GINRUMMY_DRAIN_REQUESTS_S for HTTP requests in flight
# (uvicorn's graceful shutdown), then up to GINRUMMY_DRAIN_ACTIONS_S for the actions of
# sockets it closed to answer: a supervisor must allow more than their sum before it
# kills (docker-compose.yml, for the defaults).
Handler = Callable[[int, FrameType | None], Any]


class Draining:
    """Set once the process has been asked to stop; streams hold events it sets then."""

    def __init__(self) -> None:
        self.begun = False
        self._held: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        """Chain onto the handlers uvicorn installed (call from the lifespan, in the loop)."""
        self._loop = asyncio.get_running_loop()
        for number in SIGNALS:
            with contextlib.suppress(ValueError):  # not the main thread: no signals here
                previous = signal.getsignal(number)
                if callable(previous):
                    signal.signal(number, self._chained(previous))

    def _chained(self, previous: Handler) -> Handler:
        def handler(number: int, frame: FrameType | None) -> None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self.begin)  # safe from a signal handler
            previous(number, frame)

        return handler

    def begin(self) -> None:
        """Stop: every held event is set, and any held from now on is set at once."""
        self.begun = True
        for event in self._held:
            event.set()

    def hold(self, event: asyncio.Event) -> None:
        """``event`` is set when the process starts to stop."""
        if self.begun:
            event.set()
        self._held.add(event)

    def release(self, event: asyncio.Event) -> None:
        self._held.discard(event)
