"""The blocks projection: who blocks whom, as the lobby and the chat ask it, on both stores.

A row exists exactly while a block is in force; a rebuild from the log gives the same
rows; and the lobby's list of open challenges leaves out those sent to a player by
someone it blocks (but never a player's own, nor anyone else's).
"""

from __future__ import annotations

from domain import blocks as b
from domain.rules import make_rules
from domain.table import TableOpened
from infra.projections import projector
from infra.projections.blocks import blocks_between
from infra.projections.lobby import TABLE_STREAM_PREFIX, open_challenges
from infra.sql_event_store import SqlEventStore

T0 = 1_000_000


async def blocks(store: SqlEventStore, blocker: str, *events: b.BlockEvent) -> None:
    version = await store.stream_version(b.stream_of(blocker))
    await store.append(b.stream_of(blocker), version, list(events))


async def test_a_row_lives_while_its_block_is_in_force_and_a_rebuild_agrees(
    store: SqlEventStore,
) -> None:
    runner = projector(store)
    try:
        await blocks(store, "ada", b.PlayerBlocked(player="bob", blocked_ms=T0))
        await blocks(store, "bob", b.PlayerBlocked(player="ada", blocked_ms=T0))
        await blocks(store, "ada", b.PlayerBlocked(player="cleo", blocked_ms=T0))
        await runner.catch_up("blocks")
        assert await blocks_between(store.engine, "ada", "bob") == {("ada", "bob"), ("bob", "ada")}
        assert await blocks_between(store.engine, "cleo", "ada") == {("ada", "cleo")}
        assert await blocks_between(store.engine, "cleo", "bob") == set()

        await blocks(store, "ada", b.PlayerUnblocked(player="bob", unblocked_ms=T0 + 1))
        await blocks(store, "ada", b.PlayerBlocked(player="bob", blocked_ms=T0 + 2))  # again
        await blocks(store, "ada", b.PlayerUnblocked(player="cleo", unblocked_ms=T0 + 3))
        await runner.catch_up("blocks")
        assert await blocks_between(store.engine, "ada", "bob") == {("ada", "bob"), ("bob", "ada")}
        assert await blocks_between(store.engine, "ada", "cleo") == set()

        await runner.rebuild("blocks")
        assert await blocks_between(store.engine, "bob", "ada") == {("ada", "bob"), ("bob", "ada")}
        assert await blocks_between(store.engine, "ada", "cleo") == set()
    finally:
        runner.close()


async def challenge(store: SqlEventStore, table_id: str, host: str, invitee: str) -> None:
    opened = TableOpened(
        table_id=table_id,
        host=host,
        rules=make_rules("classic"),
        private=True,
        opened_ms=T0,
        expires_ms=T0 + 60_000,
        invitee=invitee,
    )
    await store.append(TABLE_STREAM_PREFIX + table_id, 0, [opened])


async def test_challenges_from_a_player_one_blocks_leave_ones_list_alone(
    store: SqlEventStore,
) -> None:
    runner = projector(store)
    try:
        await challenge(store, "t1", "bob", "ada")  # from Bob, whom Ada blocks
        await challenge(store, "t2", "cleo", "ada")
        await challenge(store, "t3", "ada", "bob")  # Ada's own, to Bob
        await challenge(store, "t4", "bob", "cleo")  # Bob's to Cleo: none of Ada's business
        await blocks(store, "ada", b.PlayerBlocked(player="bob", blocked_ms=T0))
        await runner.catch_up()
        now = T0 + 1
        assert await open_challenges(store.engine, "ada", now) == ["t2", "t3"]
        assert await open_challenges(store.engine, "bob", now) == ["t1", "t3", "t4"]  # untold
        assert await open_challenges(store.engine, "cleo", now) == ["t2", "t4"]
        await blocks(store, "ada", b.PlayerUnblocked(player="bob", unblocked_ms=T0 + 1))
        await runner.catch_up()
        assert await open_challenges(store.engine, "ada", now) == ["t1", "t2", "t3"]
    finally:
        runner.close()
