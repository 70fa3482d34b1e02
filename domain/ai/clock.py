"""The hard level's time cap: the only place an AI reads the clock, and a last resort.

Hard's work is bounded by counts (``hard.GUESSES`` guesses of the opponent's hand,
each stock card once per guess), sized so a decision ends far inside the cap on the
2-core machine: then the clock never changes a decision and two runs of the same
match play the same moves. Only on an overloaded machine does the cap bite, and the
player thinks less rather than answer late; that changes the decision, so every time
it happens is counted (per thread, so a caller can tell which decision it was) for
the caller to log or report.
"""

from __future__ import annotations

import threading
import time

# The cap when the caller names none (benchmarks, tests): far above any decision
# measured (hard's slowest, 570 ms, was on a machine with a load average of 6 on 2
# cores), so runs are deterministic. The server passes its own cap (ai_time_cap_ms).
DEFAULT_BUDGET_MS = 5000.0

_counts = threading.local()


def cap_hits() -> int:
    """How many decisions made in this thread so far were cut short by their cap."""
    count: int = getattr(_counts, "hits", 0)
    return count


class Clock:
    def __init__(self, budget_ms: float | None) -> None:
        budget = DEFAULT_BUDGET_MS if budget_ms is None else budget_ms
        self.deadline = time.perf_counter() + budget / 1000
        self.hit = False

    def expired(self) -> bool:
        if self.hit:
            return True
        if time.perf_counter() < self.deadline:
            return False
        self.hit = True
        _counts.hits = cap_hits() + 1
        return True
