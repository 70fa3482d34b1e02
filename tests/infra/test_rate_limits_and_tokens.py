"""The shared counters, the tokens table and sign-in codes, on both databases."""

from __future__ import annotations

import asyncio

import pytest

from infra.players import Players
from infra.rate_limits import RateCounters
from infra.sign_in_codes import SignInCodes
from infra.sql_event_store import SqlEventStore
from infra.tokens import Tokens
from server.limits import Limit, RateLimited, RateLimits


async def test_concurrent_hits_each_see_their_own_count(store: SqlEventStore) -> None:
    counters = RateCounters(store.engine)
    counts = await asyncio.gather(*(counters.hit(["k"], 60) for _ in range(20)))
    assert sorted(c["k"] for c in counts) == list(range(1, 21))
    both = await counters.hit(["k", "other"], 60)
    assert both == {"k": 21, "other": 1}
    assert await counters.hit(["k"], 120) == {"k": 1}  # a new window starts at one
    await counters.sweep(before=120)
    assert await counters.hit(["k"], 60) == {"k": 1}, "the old window was swept"


async def test_a_limit_refuses_past_its_count_with_the_seconds_left(store: SqlEventStore) -> None:
    limits = RateLimits(RateCounters(store.engine), 60, {"creates": Limit(2, 0)})
    for _ in range(2):
        await limits.spend("creates", "p", "1.2.3.4", now=125.5)
    with pytest.raises(RateLimited) as refused:
        await limits.spend("creates", "p", "1.2.3.4", now=130.2)
    assert refused.value.retry_after == 50
    assert refused.value.headers == {
        "Retry-After": "50",
        "RateLimit-Policy": '"creates-player";q=2;w=60',
        "RateLimit": '"creates-player";r=0;t=50',
    }
    await limits.spend("creates", "q", "1.2.3.4", now=130.2)  # another player; no address limit
    await limits.spend("creates", "p", "1.2.3.4", now=180.0)  # the next window
    await limits.spend("chat", "p", None, now=180.0)  # a bucket with no limit costs nothing


async def test_tokens_rotate_once_and_revoke_all(store: SqlEventStore) -> None:
    await Players(store.engine).create_player("p", "Ada", "h1", expires_ms=None)
    tokens = Tokens(store.engine)
    await tokens.issue("p", "h2", expires_ms=1_000)
    assert await tokens.valid({"h1", "h2", "nope"}, now_ms=999) == {"h1", "h2"}
    assert await tokens.valid({"h1", "h2"}, now_ms=1_000) == {"h1"}, "h2 expired"
    rotations = await asyncio.gather(*(tokens.rotate("h1", f"n{i}", None) for i in range(4)))
    assert sorted(rotations) == [False, False, False, True], "one token rotates once"
    holder = await tokens.holder(next(f"n{i}" for i in range(4) if rotations[i]))
    assert holder is not None and holder.player.id == "p" and holder.expires_ms is None
    assert await tokens.holder("h1") is None
    assert len(await tokens.revoke_all("p")) == 2
    assert await tokens.valid({"h2", *(f"n{i}" for i in range(4))}, now_ms=0) == set()


async def test_a_sign_in_code_is_spent_once_and_replaced_by_the_next(store: SqlEventStore) -> None:
    await Players(store.engine).create_player("p", "Ada", "h1", expires_ms=None)
    codes, tokens = SignInCodes(store.engine), Tokens(store.engine)
    await codes.replace("p", "c1", "h1", expires_ms=2_000, now_ms=1_000)
    spent = await asyncio.gather(*(codes.redeem("c1", 1_500, f"t{i}", None) for i in range(6)))
    assert (spent.count("p"), spent.count(None)) == (1, 5), "one redeem wins"
    winner = next(f"t{i}" for i in range(6) if spent[i])
    assert await tokens.valid({f"t{i}" for i in range(6)}, now_ms=0) == {winner}

    await codes.replace("p", "c2", "h1", expires_ms=3_000, now_ms=1_000)
    await codes.replace("p", "c3", "h1", expires_ms=3_000, now_ms=1_000)  # replaces c2
    assert await codes.redeem("c2", 1_500, "late", None) is None
    assert await codes.redeem("c3", 3_000, "late", None) is None, "expired at 3000"
    assert await codes.redeem("c3", 2_999, "t", None) == "p"

    # the code works while the token that made it does: rotated (the page's Sign out),
    # expired or revoked, the code is dead, whenever it was written
    await codes.replace("p", "c5", "h1", expires_ms=3_000, now_ms=1_000)
    assert await tokens.rotate("h1", "h1b", None)
    assert await codes.redeem("c5", 1_500, "rotated", None) is None
    await tokens.issue("p", "short", expires_ms=1_200)
    await codes.replace("p", "c6", "short", expires_ms=3_000, now_ms=1_000)
    assert await codes.redeem("c6", 1_500, "expired", None) is None

    await codes.replace("p", "c4", "h1b", expires_ms=3_000, now_ms=1_000)
    await tokens.revoke_all("p")  # signing out everywhere ends the code too
    assert await codes.redeem("c4", 1_500, "after", None) is None
    await codes.replace("p", "c7", "h1b", expires_ms=3_000, now_ms=1_000)  # written after
    assert await codes.redeem("c7", 1_500, "after", None) is None
    assert await tokens.valid({"late", "after", "rotated", "expired"}, now_ms=0) == set()
