"""Looking again after a LISTEN reconnect, at most once a gap.

A LISTEN session that was down may have missed any NOTIFY, so each reconnect asks every
reader of that channel to look again, and each look is a read. A session dropped as soon
as it is made (a proxy, say) reconnects many times a second: the asks within a gap are
made once, as it ends, for all of them; none is dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class LookAgain:
    def __init__(self, look: Callable[[], None], gap_s: float) -> None:
        self._look = look
        self.gap_s = gap_s
        self._next = 0.0  # monotonic time before which looks are put off
        self._later: asyncio.TimerHandle | None = None

    def ask(self) -> None:
        """Look now, or once the gap since the last look ends (one look for all asked)."""
        if self._later is not None:
            return  # a look is put off already, and made after this ask: it is this one's
        wait = self._next - time.monotonic()
        if wait > 0:
            self._later = asyncio.get_running_loop().call_later(wait, self._look_now)
            return
        self._look_now()

    def close(self) -> None:
        """At shutdown: a look put off is not made (its readers are going too)."""
        if self._later is not None:
            self._later.cancel()
            self._later = None

    def _look_now(self) -> None:
        self._later = None
        self._next = time.monotonic() + self.gap_s
        self._look()
