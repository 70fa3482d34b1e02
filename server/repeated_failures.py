"""A failure that repeats is logged once, then at most once a while, with a count.

When the database goes away every request's 503 and every background loop's round
(the clock sweep runs twice a second) failed with a full traceback: an operator saw
2,883 log lines in 10 s of an outage with no traffic, the one line that mattered lost
among them. The first failure of a kind is logged as it comes; the same kind again
within ``interval`` seconds is counted, and said with the next one logged.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable


class RepeatedFailures:
    def __init__(self, interval: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.interval = interval
        self.clock = clock
        self._logged_at: dict[str, float] = {}
        self._skipped: Counter[str] = Counter()

    def due(self, kind: str) -> int | None:
        """None: stay quiet (counted); else log now, saying this many were skipped."""
        now = self.clock()
        last = self._logged_at.get(kind)
        if last is not None and now - last < self.interval:
            self._skipped[kind] += 1
            return None
        self._logged_at[kind] = now
        return self._skipped.pop(kind, 0)


def skipped_note(skipped: int) -> str:
    return f" ({skipped} more like it since the last said)" if skipped else ""
