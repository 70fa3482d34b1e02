"""The hard level's time cap: the only place an AI reads the clock.

Work is sized to finish far inside the cap, so the cap only bites on a slow or
overloaded machine; then the player thinks less rather than answer late.
"""

from __future__ import annotations

import time

DEFAULT_BUDGET_MS = 400.0


class Clock:
    def __init__(self, budget_ms: float | None) -> None:
        budget = DEFAULT_BUDGET_MS if budget_ms is None else budget_ms
        self.deadline = time.perf_counter() + budget / 1000

    def expired(self) -> bool:
        return time.perf_counter() >= self.deadline
