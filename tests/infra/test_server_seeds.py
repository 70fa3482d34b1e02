"""Each player's next server seed: committed before use, used once, on either database.

Two processes starting matches for one player at the same moment must not both take
the same seed: the swap is conditional on the seed read, so one of them reads again.
"""

from __future__ import annotations

import asyncio

from infra.players import Players
from infra.sql_event_store import SqlEventStore


async def test_a_seed_is_held_until_taken_and_then_replaced(store: SqlEventStore) -> None:
    players = Players(store.engine)
    await players.create_player("p1", "Ada", "hash-1")
    held = await players.next_seed("p1")
    assert held is not None and len(held[0]) == 64
    assert await players.next_seed("p1") == held  # shown again, unchanged, until used
    assert await players.take_seed("p1") == held
    after = await players.next_seed("p1")
    assert after is not None and after[0] != held[0] and after[1] >= held[1]
    assert await players.next_seed("nobody") is None
    assert await players.take_seed("nobody") is None


async def test_racing_takes_never_share_a_seed(store: SqlEventStore) -> None:
    players = Players(store.engine)
    await players.create_player("p2", "Bea", "hash-2")
    others = [Players(store.engine) for _ in range(8)]  # as if each were another process
    taken = await asyncio.gather(*(p.take_seed("p2") for p in others))
    seeds = [seed for seed, _ in (t for t in taken if t is not None)]
    assert len(seeds) == 8 and len(set(seeds)) == 8
