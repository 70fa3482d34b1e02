"""``Players.names_held``: the steps that bring two names together take turns, per player,
on either database; on PostgreSQL through advisory locks, so across processes too."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from infra.errors import LockWaitTimeout
from infra.players import NAME_LOCK_STRIPES, Players, _name_lock_key
from infra.sql_event_store import SqlEventStore


def stripe_of(player_id: str) -> int:
    """The stripe of this process's name locks that the player's id falls in."""
    return hash(player_id) % NAME_LOCK_STRIPES


async def test_holders_of_one_player_take_turns_and_others_do_not_wait(
    store: SqlEventStore,
) -> None:
    players, other = Players(store.engine), Players(store.engine)
    inside: list[str] = []
    entered = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with players.names_held("ada", "bob"):
            inside.append("first in")
            entered.set()
            await release.wait()
            inside.append("first out")

    async def second(*ids: str) -> None:
        await entered.wait()
        async with other.names_held(*ids):
            inside.append(f"{'+'.join(ids)} in")

    # a player whose stripe of this process's locks is neither ada's nor bob's
    taken = {hash(id) % NAME_LOCK_STRIPES for id in ("ada", "bob")}
    apart = next(f"dan{n}" for n in range(1000) if hash(f"dan{n}") % NAME_LOCK_STRIPES not in taken)
    holder = asyncio.create_task(first())
    waiting = asyncio.create_task(second("bob", "cleo"))  # shares bob: waits
    await asyncio.wait_for(second(apart), 5)  # shares nobody: goes at once
    await asyncio.sleep(0.2)
    assert inside == ["first in", f"{apart} in"]
    release.set()
    await asyncio.wait_for(asyncio.gather(holder, waiting), 5)
    assert inside == ["first in", f"{apart} in", "first out", "bob+cleo in"]


async def test_on_postgresql_another_process_finds_the_name_held(store: SqlEventStore) -> None:
    """Another process has locks of its own, not this one's: what it meets is PostgreSQL's
    advisory lock on the player, held until the step ends (SQLite serves one process)."""
    if store.engine.dialect.name != "postgresql":
        return
    try_lock = text("SELECT pg_try_advisory_xact_lock(:key)")
    async with Players(store.engine).names_held("ada"), store.engine.connect() as conn:
        held = (await conn.execute(try_lock, {"key": _name_lock_key("ada")})).scalar()
        free = (await conn.execute(try_lock, {"key": _name_lock_key("bob")})).scalar()
        await conn.rollback()
    assert (held, free) == (False, True)
    async with store.engine.connect() as conn:
        assert (await conn.execute(try_lock, {"key": _name_lock_key("ada")})).scalar() is True
        await conn.rollback()


async def test_steps_holding_names_never_take_the_last_connection_of_a_small_pool(
    pg_url: str,
) -> None:
    """Each step holds a connection for its advisory locks while its body takes another:
    as many steps at once as the pool has connections would each wait for a second one
    until the pool's timeout (30 s, then 503 to all of them). At most one less hold
    locks at once, so a body always finds one, whatever GINRUMMY_DB_CONNECTIONS is."""
    from infra.store import open_store

    store = await open_store(pg_url, migrate=False, connections=2)
    players = Players(store.engine)
    taken: set[int] = set()
    ids = []  # players on stripes of their own: only the pool can make them wait
    for n in range(1000):
        if (stripe := hash(f"p{n}") % NAME_LOCK_STRIPES) not in taken:
            taken.add(stripe)
            ids.append(f"p{n}")
        if len(ids) == 3:
            break

    async def step(id: str) -> None:
        async with players.names_held(id):
            await asyncio.sleep(0.2)  # the others take their locks meanwhile, if they may
            async with store.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))

    try:
        await asyncio.wait_for(asyncio.gather(*(step(id) for id in ids)), 10)
    finally:
        await store.close()


async def test_a_step_that_waits_too_long_for_a_name_is_refused_and_holds_nothing(
    store: SqlEventStore,
) -> None:
    """A step stuck while holding a name held back every later step on that player for
    as long as it stayed stuck, and their requests hung with it. Past ``wait_s`` a step
    is refused (``LockWaitTimeout``, a 503 to retry), holding nothing; once the name is
    free the next one goes in."""
    holder, waiter = Players(store.engine), Players(store.engine)
    entered, release = asyncio.Event(), asyncio.Event()

    async def stuck() -> None:
        async with holder.names_held("ada"):
            entered.set()
            await release.wait()

    # a player apart from ada in this process's lock stripes too (hashes vary per run;
    # "bob" shared ada's stripe one run in 64, and then found it held)
    apart = next(f"bob{n}" for n in range(1000) if stripe_of(f"bob{n}") != stripe_of("ada"))
    task = asyncio.create_task(stuck())
    await entered.wait()
    started = asyncio.get_running_loop().time()
    with pytest.raises(LockWaitTimeout):
        async with waiter.names_held("ada", apart, wait_s=0.3):
            pytest.fail("entered while ada's name was held")
    assert asyncio.get_running_loop().time() - started < 5
    async with waiter.names_held(apart, wait_s=1):  # waited for with ada, then let go
        pass
    release.set()
    await task
    async with waiter.names_held("ada", wait_s=1):
        pass


async def test_on_postgresql_a_name_held_by_another_process_too_long_is_refused(
    store: SqlEventStore,
) -> None:
    """Held by another process (a session of its own), past the wait PostgreSQL refuses
    the step (``lock_timeout``); the connection goes back to the pool fit for use."""
    if store.engine.dialect.name != "postgresql":
        return
    players = Players(store.engine)
    async with store.engine.connect() as other:
        await other.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _name_lock_key("ada")})
        with pytest.raises(LockWaitTimeout):
            async with players.names_held("ada", wait_s=0.3):
                pytest.fail("entered while another session held ada's name")
        await other.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _name_lock_key("ada")})
        await other.commit()
    for _ in range(3):  # the name is taken again, and no pooled session kept the wait
        async with players.names_held("ada", wait_s=1), store.engine.connect() as conn:
            timeout = (await conn.execute(text("SHOW lock_timeout"))).scalar()
            assert timeout == "0", timeout  # the wait was the step's transaction's alone


async def test_on_postgresql_the_wait_is_bounded_for_all_the_names_together(
    store: SqlEventStore,
) -> None:
    """PostgreSQL's ``lock_timeout`` bounds each lock's wait, not the step's: set once, a
    step needing two held names waited for the first almost the whole while, then for
    the second as long again (a rename or a seat takes two)."""
    if store.engine.dialect.name != "postgresql":
        return
    wait_s, first_freed_s = 4.0, 3.5
    lock, unlock = text("SELECT pg_advisory_lock(:key)"), text("SELECT pg_advisory_unlock(:key)")
    async with store.engine.connect() as one, store.engine.connect() as two:
        await one.execute(lock, {"key": _name_lock_key("ada")})
        await two.execute(lock, {"key": _name_lock_key("bob")})  # held throughout

        async def free_ada_late() -> None:
            await asyncio.sleep(first_freed_s)
            await one.execute(unlock, {"key": _name_lock_key("ada")})
            await one.commit()

        freeing = asyncio.create_task(free_ada_late())
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(LockWaitTimeout):
            async with Players(store.engine).names_held("ada", "bob", wait_s=wait_s):
                pytest.fail("entered while bob's name was held")
        waited = loop.time() - started
        await freeing
        await two.execute(unlock, {"key": _name_lock_key("bob")})
        await two.commit()
    # refused at wait_s (4 s), not at first_freed_s + wait_s (7.5 s): 2 s to spare each way
    assert waited < wait_s + 2, waited
