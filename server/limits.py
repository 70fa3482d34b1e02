"""Rate limits: how many creations and moves a player and a client address may make.

Each bucket (``creates``, ``actions``, ``sign_ins``; chat may add its own) has a limit per
player (all its tokens together, so rotating a token buys no new budget) and one per
client address (``sign_ins``, whose requests carry no token, only this one), counted in
fixed windows of ``GINRUMMY_RATE_WINDOW_S`` in the shared database
(infra/rate_limits.py). Over either limit the request is refused before it changes
anything: a 429 problem with ``Retry-After``, the seconds until the window ends.
A limit of 0 is no limit; a bucket with both at 0 costs no database round trip.

Every answer a limit counted says where it stands, in the fields of the IETF draft
(draft-ietf-httpapi-ratelimit-headers): ``RateLimit-Policy`` names each limit that
counted it, ``"actions-player";q=120;w=60`` (the quota ``q`` in a window of ``w``
seconds), and ``RateLimit`` what is left of it now, ``"actions-player";r=119;t=42``
(``r`` requests left, the window ending in ``t`` seconds), so a bot paces itself
instead of learning the limit from a 429.
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

    def __init__(
        self, detail: str, retry_after: int = 1, quota: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after), **(quota or {})}


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


def quota_headers(
    window_s: int, counted: Mapping[str, tuple[int, int]], reset_s: int
) -> dict[str, str]:
    """``RateLimit-Policy`` and ``RateLimit`` for the policies ``counted`` (name ->
    (quota, requests counted so far)), the window ending in ``reset_s`` seconds."""
    if not counted:
        return {}
    policies = [f'"{name}";q={quota};w={window_s}' for name, (quota, _) in counted.items()]
    left = [
        f'"{name}";r={max(0, quota - used)};t={reset_s}' for name, (quota, used) in counted.items()
    ]
    return {"RateLimit-Policy": ", ".join(policies), "RateLimit": ", ".join(left)}


def limits_of(settings: Settings) -> dict[str, Limit]:
    return {
        "creates": Limit(settings.rate_creates_per_player, settings.rate_creates_per_address),
        "actions": Limit(settings.rate_actions_per_player, settings.rate_actions_per_address),
        # Redeeming a sign-in code needs no token: counted by address alone, tightly.
        "sign_ins": Limit(0, settings.rate_sign_ins_per_address),
    }


class RateLimits:
    def __init__(self, counters: RateCounters, window_s: int, limits: Mapping[str, Limit]) -> None:
        self.counters = counters
        self.window_s = max(1, window_s)
        self.limits = dict(limits)

    async def spend(
        self, bucket: str, player_id: str | None, address: str | None, now: float | None = None
    ) -> dict[str, str]:
        """Count one request in ``bucket``; RateLimited if it is over a limit. The
        ``RateLimit-Policy`` and ``RateLimit`` headers of the answer (none if no limit
        counted it), which a 429 carries too."""
        limit = self.limits.get(bucket)
        if limit is None:
            return {}
        wanted: dict[str, tuple[str, int]] = {}  # counter key -> (policy name, limit)
        if player_id is not None and limit.per_player > 0:
            wanted[f"{bucket}:player:{player_id}"] = (f"{bucket}-player", limit.per_player)
        if address and limit.per_address > 0:
            wanted[f"{bucket}:address:{address}"] = (f"{bucket}-address", limit.per_address)
        if not wanted:
            return {}
        now = time.time() if now is None else now
        window_start = int(now // self.window_s) * self.window_s
        counts = await self.counters.hit(list(wanted), window_start)
        reset_s = max(1, math.ceil(window_start + self.window_s - now))
        counted = {name: (allowed, counts.get(key, 0)) for key, (name, allowed) in wanted.items()}
        quota = quota_headers(self.window_s, counted, reset_s)
        over = [key for key, (_, allowed) in wanted.items() if counts.get(key, 0) > allowed]
        if over:
            who = "this player" if ":player:" in over[0] else "this address"
            raise RateLimited(
                f"too many {bucket} from {who}: at most {wanted[over[0]][1]} per "
                f"{self.window_s} s; retry in {reset_s} s",
                reset_s,
                quota,
            )
        return quota

    async def sweep_forever(self) -> None:
        """Delete counters of windows long past, every minute (each process may)."""
        await every(
            SWEEP_S,
            lambda: self.counters.sweep(int(time.time()) - 2 * self.window_s),
            "sweeping rate-limit counters",
        )
