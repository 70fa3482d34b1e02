"""Rate limits: how many creations and moves a player and a client address may make.

Each bucket (``creates``, ``actions``; chat may add its own) has a limit per player (all
its tokens together, so rotating a token buys no new budget) and one per client
address, counted in fixed windows of ``GINRUMMY_RATE_WINDOW_S`` in the shared database
(infra/rate_limits.py). Over either limit the request is refused before it changes
anything: a 429 problem with ``Retry-After``, the seconds until the window ends.
A limit of 0 is no limit; a bucket with both at 0 costs no database round trip.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from infra.rate_limits import RateCounters
from server.background import every
from server.config import Settings
from server.problems import ServerError

SWEEP_S = 60.0


class RateLimited(ServerError):
    """Too many requests of one kind in the current window."""

    rule = "rate_limited"
    status = 429

    def __init__(self, detail: str, retry_after: int = 1) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


class Allowance:
    """At most ``count`` uses in any ``window_s`` seconds, counted in memory: for what one
    connection asks of its own process, which no other process needs to count."""

    def __init__(self, count: int, window_s: float) -> None:
        self.window_s = window_s
        self.used: deque[float] = deque(maxlen=count)

    def spend(self, what: str, now: float | None = None) -> None:
        """Count one use; RateLimited, and nothing counted, if the window holds ``count``."""
        now = time.monotonic() if now is None else now
        if len(self.used) == self.used.maxlen and now - self.used[0] < self.window_s:
            retry_after = max(1, math.ceil(self.used[0] + self.window_s - now))
            raise RateLimited(
                f"at most {self.used.maxlen} {what} in any {self.window_s:g} s; "
                f"retry in {retry_after} s",
                retry_after,
            )
        self.used.append(now)


@dataclass(frozen=True)
class Limit:
    per_player: int
    per_address: int


def limits_of(settings: Settings) -> dict[str, Limit]:
    return {
        "creates": Limit(settings.rate_creates_per_player, settings.rate_creates_per_address),
        "actions": Limit(settings.rate_actions_per_player, settings.rate_actions_per_address),
    }


class RateLimits:
    def __init__(self, counters: RateCounters, window_s: int, limits: Mapping[str, Limit]) -> None:
        self.counters = counters
        self.window_s = max(1, window_s)
        self.limits = dict(limits)

    async def spend(
        self, bucket: str, player_id: str | None, address: str | None, now: float | None = None
    ) -> None:
        """Count one request in ``bucket``; RateLimited if it is over a limit."""
        limit = self.limits.get(bucket)
        if limit is None:
            return
        wanted: dict[str, int] = {}
        if player_id is not None and limit.per_player > 0:
            wanted[f"{bucket}:player:{player_id}"] = limit.per_player
        if address and limit.per_address > 0:
            wanted[f"{bucket}:address:{address}"] = limit.per_address
        if not wanted:
            return
        now = time.time() if now is None else now
        window_start = int(now // self.window_s) * self.window_s
        counts = await self.counters.hit(list(wanted), window_start)
        over = [key for key, allowed in wanted.items() if counts.get(key, 0) > allowed]
        if over:
            retry_after = max(1, math.ceil(window_start + self.window_s - now))
            who = "this player" if ":player:" in over[0] else "this address"
            raise RateLimited(
                f"too many {bucket} from {who}: at most {wanted[over[0]]} per "
                f"{self.window_s} s; retry in {retry_after} s",
                retry_after,
            )

    async def sweep_forever(self) -> None:
        """Delete counters of windows long past, every minute (each process may)."""
        await every(
            SWEEP_S,
            lambda: self.counters.sweep(int(time.time()) - 2 * self.window_s),
            "sweeping rate-limit counters",
        )
