"""The event-store contract, run against real SQLite and real PostgreSQL alike."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import msgspec
import pytest
from sqlalchemy import func, select, update

from domain.events import Discarded, UpCardPassed
from infra.append_pg import append_group
from infra.append_plan import AppendRequest
from infra.errors import (
    ConcurrencyConflict,
    IdempotencyMismatch,
    StoreUnavailable,
    UndecodableEvent,
)
from infra.event_store import AppendResult, Batch
from infra.schema import commands, events, log_head
from infra.sql_event_store import GROUP_SIZE, SqlEventStore
from tests.infra.helpers import batch, statements, stream


async def test_append_then_read_back_in_order(store: SqlEventStore) -> None:
    s = stream()
    first = await store.append(s, 0, [UpCardPassed(seat=1), Discarded(seat=0, card="7H")])
    second = await store.append(s, 2, [UpCardPassed(seat=0)], command_id="c2")
    assert (first.first_version, first.last_version, first.last_position) == (1, 2, 2)
    assert (second.first_version, second.last_version, second.last_position) == (3, 3, 3)
    read = await store.read_stream(s)
    assert [e.version for e in read] == [1, 2, 3]
    assert [e.position for e in read] == [1, 2, 3]
    assert read[1].event == Discarded(seat=0, card="7H")
    assert read[1].type == "discarded" and read[1].schema_version == 1
    assert read[2].command_id == "c2" and read[0].command_id is None
    assert read[0].recorded_at.tzinfo is not None
    # the append says when the store recorded its events, to the microsecond (a process
    # keeping its own append's record stamps the events with it)
    assert [e.recorded_at for e in read] == [first.recorded_at] * 2 + [second.recorded_at]
    assert await store.stream_version(s) == 3
    assert await store.stream_version(stream()) == 0
    assert [e.version for e in await store.read_stream(s, after_version=1, limit=1)] == [2]
    assert await store.last_position() == 3


async def test_read_all_follows_positions_across_streams(store: SqlEventStore) -> None:
    a, b = stream(), stream()
    await store.append(a, 0, batch(2))
    await store.append(b, 0, batch(1))
    await store.append(a, 2, batch(1))
    log = await store.read_all()
    assert [(e.stream_id, e.version) for e in log] == [(a, 1), (a, 2), (b, 1), (a, 3)]
    assert [e.position for e in await store.read_all(after_position=2, limit=1)] == [3]


async def test_stale_version_conflicts_and_uses_no_position(store: SqlEventStore) -> None:
    s = stream()
    await store.append(s, 0, batch(2))
    for stale in (0, 1, 3):
        with pytest.raises(ConcurrencyConflict) as caught:
            await store.append(s, stale, batch(1))
        assert caught.value.actual == 2 and caught.value.expected == stale
    assert await store.last_position() == 2
    result = await store.append(stream(), 0, batch(1))
    assert result.last_position == 3  # the failed attempts consumed no position


async def test_ten_writers_at_one_version_exactly_one_wins(store: SqlEventStore) -> None:
    s = stream()
    await store.append(s, 0, batch(1))
    outcomes = await asyncio.gather(
        *(store.append(s, 1, batch(2, seat=i % 2)) for i in range(10)), return_exceptions=True
    )
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(winners) == 1
    assert len(losers) == 9 and all(isinstance(o, ConcurrencyConflict) for o in losers)
    assert await store.stream_version(s) == 3
    assert [e.position for e in await store.read_all()] == [1, 2, 3]


async def test_new_stream_race_has_one_creator(store: SqlEventStore) -> None:
    s = stream()
    outcomes = await asyncio.gather(
        *(store.append(s, 0, batch(1)) for _ in range(8)), return_exceptions=True
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert all(isinstance(o, ConcurrencyConflict) for o in outcomes if isinstance(o, BaseException))
    assert len(await store.read_stream(s)) == 1


async def test_retried_command_returns_first_result_and_writes_nothing(
    store: SqlEventStore,
) -> None:
    s = stream()
    first = await store.append(s, 0, batch(2), command_id="cmd-1", command_hash="h1")
    await store.append(s, 2, batch(1))
    retry = await store.append(s, 0, batch(2), command_id="cmd-1", command_hash="h1")
    assert retry.duplicate and not first.duplicate
    assert retry.recorded_at is None and first.recorded_at is not None  # not read back
    assert (retry.first_version, retry.last_version, retry.last_position) == (1, 2, 2)
    assert await store.stream_version(s) == 3
    assert await store.last_position() == 3


async def test_concurrent_duplicates_append_once(store: SqlEventStore) -> None:
    s = stream()
    results = await asyncio.gather(
        *(store.append(s, 0, batch(3), command_id="dup", command_hash="h") for _ in range(6))
    )
    assert sum(not r.duplicate for r in results) == 1
    assert {(r.first_version, r.last_version, r.last_position) for r in results} == {(1, 3, 3)}
    assert len(await store.read_all()) == 3


async def test_same_command_id_with_other_payload_is_refused(store: SqlEventStore) -> None:
    s = stream()
    await store.append(s, 0, batch(1), command_id="cmd", command_hash="one")
    with pytest.raises(IdempotencyMismatch):
        await store.append(s, 1, batch(1), command_id="cmd", command_hash="two")
    assert await store.stream_version(s) == 1


async def test_exception_after_insert_before_commit_leaves_nothing(store: SqlEventStore) -> None:
    async def explode(stage: str) -> None:
        raise RuntimeError(f"crash at {stage}")

    s = stream()
    store.fault_hook = explode
    with pytest.raises(RuntimeError):
        await store.append(s, 0, batch(3), command_id="doomed", command_hash="h")
    store.fault_hook = None
    assert await store.read_all() == []
    assert await store.last_position() == 0
    async with store.engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(commands)) == 0
    # the same command can now go through, at the first position
    result = await store.append(s, 0, batch(3), command_id="doomed", command_hash="h")
    assert (result.last_position, result.duplicate) == (3, False)


async def test_undecodable_payload_names_its_position(store: SqlEventStore) -> None:
    s = stream()
    await store.append(s, 0, batch(3))
    async with store.engine.begin() as conn:
        await conn.execute(
            update(events).where(events.c.position == 2).values(payload='{"type":"nonsense"}')
        )
    with pytest.raises(UndecodableEvent) as caught:
        await store.read_all()
    assert caught.value.position == 2 and "position 2" in str(caught.value)
    with pytest.raises(UndecodableEvent):
        await store.read_stream(s)
    assert [e.position for e in await store.read_all(limit=1)] == [1]


async def test_empty_batch_is_refused(store: SqlEventStore) -> None:
    with pytest.raises(ValueError):
        await store.append(stream(), 0, [])


async def test_log_head_matches_the_last_event(store: SqlEventStore) -> None:
    for i in range(5):
        await store.append(stream(), 0, batch(i + 1))
    async with store.engine.connect() as conn:
        head = await conn.scalar(select(log_head.c.position))
        top = await conn.scalar(select(func.max(events.c.position)))
    assert head == top == 15


async def test_unreachable_database_is_store_unavailable() -> None:
    from infra.store import open_store

    dead = await open_store("postgresql+asyncpg://postgres@127.0.0.1:1/none", migrate=False)
    try:
        with pytest.raises(StoreUnavailable):
            await dead.append(stream(), 0, batch(1))
        with pytest.raises(StoreUnavailable):
            await dead.read_all()
    finally:
        await dead.close()


async def test_a_refused_append_does_not_take_concurrent_appends_down(
    store: SqlEventStore,
) -> None:
    taken, fresh = stream(), [stream() for _ in range(5)]
    await store.append(taken, 0, batch(1), command_id="first", command_hash="h")
    outcomes = await asyncio.gather(
        *(store.append(s, 0, batch(2)) for s in fresh),
        store.append(taken, 0, batch(1)),  # stale: conflict
        store.append(taken, 0, batch(1), command_id="first", command_hash="h"),  # retry
        store.append(taken, 1, batch(1), command_id="first", command_hash="other"),
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes[5:]] == [
        "ConcurrencyConflict",
        "AppendResult",
        "IdempotencyMismatch",
    ]
    written = [o for o in outcomes[:5] if not isinstance(o, BaseException)]
    assert len(written) == 5
    assert sorted(o.last_position for o in written) == [3, 5, 7, 9, 11]
    assert [e.position for e in await store.read_all()] == list(range(1, 12))


async def test_a_chain_commits_as_one_and_a_follow_up_never_lands_alone(
    store: SqlEventStore,
) -> None:
    s = stream()
    move, reply = await store.append_chain(
        s, 0, [Batch(batch(2), "move", "h"), Batch(batch(1, seat=1), "reply")]
    )
    assert (move.first_version, move.last_version, reply.first_version) == (1, 2, 3)
    read = await store.read_stream(s)
    assert [e.command_id for e in read] == ["move", "move", "reply"]
    assert len({e.recorded_at for e in read}) == 1  # one commit
    # A retried move gets its first result and no second reply.
    assert await store.append_chain(
        s, 0, [Batch(batch(2), "move", "h"), Batch(batch(1), "reply-2")]
    ) == [msgspec.structs.replace(move, duplicate=True, recorded_at=None)]
    # Another process moved the stream by exactly as many events as the refused move
    # had: the reply's expected version (3 + 2) now matches, yet it must not land.
    await store.append(s, 3, batch(2), command_id="foreign")
    with pytest.raises(ConcurrencyConflict):
        await store.append_chain(s, 3, [Batch(batch(2)), Batch(batch(1), "stray")])
    assert await store.command_hash("stray") is None
    assert [e.command_id for e in await store.read_stream(s)][3:] == ["foreign", "foreign"]
    assert await store.last_position() == 5
    if store.is_postgres:  # ginrummy_append's own answer for the follow-up it left out
        encoded = [("up_card_passed", 1, '{"seat":0}')]
        chain = [AppendRequest(s, 5, encoded, "ok"), AppendRequest(s, 0, encoded)]
        chain += [AppendRequest(s, 6, encoded, "left-out", after_previous=True)]
        async with store.engine.connect() as conn, conn.begin():
            decided = await append_group(conn, chain, datetime.now(UTC))
        ok, refused, left_out = decided.outcomes
        assert isinstance(ok, AppendResult) and isinstance(refused, ConcurrencyConflict)
        assert isinstance(left_out, ConcurrencyConflict) and "its chain" in str(left_out)
        assert await store.stream_version(s) == 6


async def test_a_chain_is_never_split_between_two_commits(store: SqlEventStore) -> None:
    """More appends wait than one group holds; a chain at the cut still commits whole."""
    streams = [stream() for _ in range(GROUP_SIZE + 2)]
    chained = streams[GROUP_SIZE - 1]
    outcomes = await asyncio.gather(
        *(
            store.append_chain(s, 0, [Batch(batch(1)), Batch(batch(1), f"reply-{s}")])
            if s == chained
            else store.append(s, 0, batch(1))
            for s in streams
        )
    )
    assert len(outcomes[GROUP_SIZE - 1]) == 2
    read = await store.read_stream(chained)
    assert read[0].recorded_at == read[1].recorded_at
    assert read[1].position == read[0].position + 1


async def test_a_command_id_is_one_across_streams_and_refuses_only_its_own_append(
    store: SqlEventStore,
) -> None:
    """An Idempotency-Key's binding is its command id (server/action_keys.py), so the id
    must be unique across the whole log, not per stream: the same id on another stream
    is a mismatch, in a later group or in the same one, and it refuses only itself.
    A keyed move in a chain keeps its hash; the reply after it keeps none."""
    bound, other, bystanders = stream(), stream(), [stream() for _ in range(3)]
    move, _ = await store.append_chain(
        bound, 0, [Batch(batch(1), "key:p:K", "h1"), Batch(batch(1, seat=1), "reply-1")]
    )
    assert await store.command_hash("key:p:K") == "h1"
    assert await store.command_hash("reply-1") is None
    for hash_ in ("h1", "h2"):  # another stream is a reuse whatever the hash
        with pytest.raises(IdempotencyMismatch):
            await store.append(other, 0, batch(1), command_id="key:p:K", command_hash=hash_)
    outcomes = await asyncio.gather(
        *(store.append(s, 0, batch(1)) for s in bystanders),
        store.append_chain(
            other, 0, [Batch(batch(1), "key:p:K", "h3"), Batch(batch(1, seat=1), "reply-2")]
        ),
        store.append(other, 0, batch(1), command_id="key:p:L", command_hash="h4"),
        store.append(bystanders[0], 1, batch(1), command_id="key:p:L", command_hash="h4"),
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes] == [
        "AppendResult",
        "AppendResult",
        "AppendResult",
        "IdempotencyMismatch",  # the chain's keyed move, so its reply does not land either
        "AppendResult",  # a fresh key on that stream goes ahead in the same group
        "IdempotencyMismatch",  # ... and binds it: the next append with it elsewhere is refused
    ]
    assert [e.command_id for e in await store.read_stream(other)] == ["key:p:L"]
    assert await store.command_hash("reply-2") is None
    assert await store.stream_version(bystanders[0]) == 1
    retry = await store.append(bound, 0, batch(1), command_id="key:p:K", command_hash="h1")
    expected = msgspec.structs.replace(move, duplicate=True, recorded_at=None)  # not read back
    assert retry == expected, "its own stream: the retry"


async def test_command_lookups_made_together_share_one_query(store: SqlEventStore) -> None:
    """Keyed moves ask whether their key is bound before the AI thinks; under load the
    lookups made while one query is out go together in the next, each with its answer."""
    s = stream()
    await store.append(s, 0, batch(1), command_id="key:p:A", command_hash="hA")
    await store.append(s, 1, batch(1), command_id="ai:1")
    asked = ["key:p:A", "key:p:B", "ai:1", "key:p:A", "key:p:C"] * 3
    with statements(store, "commands") as together:
        answers = await asyncio.gather(*(store.command_hash(c) for c in asked))
    assert answers == ["hA", None, None, "hA", None] * 3
    assert len(together) == 1, "all were asked before the query went: one statement"
    with statements(store, "commands") as in_turn:
        first = asyncio.ensure_future(store.command_hash("key:p:A"))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        later = [asyncio.ensure_future(store.command_hash(c)) for c in ("key:p:B", "key:p:A")]
        assert await first == "hA"
        assert await asyncio.gather(*later) == [None, "hA"]
    # The first went alone, without waiting for company; the two asked while it was
    # out went together in the next.
    keys_asked = [statement.rsplit(" IN ", 1)[1].count(",") + 1 for statement in in_turn]
    assert keys_asked == [1, 2]


async def test_a_failed_append_never_quotes_its_events(store: SqlEventStore) -> None:
    """A write the database refuses is logged with its exception (a 500 or 503), and the
    events it carried may hold cards no one else may see (the AI's stock draw, a deal's
    deck): the exception must name the statement, never its parameters."""
    s = stream()
    await store.append(s, 0, batch(1))
    async with store.engine.begin() as connection:
        if store.is_postgres:
            await connection.exec_driver_sql(
                "CREATE FUNCTION refuse_events() RETURNS trigger AS $$ BEGIN "
                "RAISE EXCEPTION 'no space left on device'; END $$ LANGUAGE plpgsql"
            )
            await connection.exec_driver_sql(
                "CREATE TRIGGER refuse_events BEFORE INSERT ON events "
                "FOR EACH ROW EXECUTE FUNCTION refuse_events()"
            )
        else:
            await connection.exec_driver_sql(
                "CREATE TRIGGER refuse_events BEFORE INSERT ON events "
                "BEGIN SELECT RAISE(ABORT, 'no space left on device'); END"
            )
    try:
        with pytest.raises(Exception) as refused:
            await store.append(s, 1, [Discarded(seat=1, card="QS")], command_id="secret")
        told = "".join(str(e) + repr(e) for e in _chain(refused.value))
        assert "no space left" in told  # the cause is there...
        assert "QS" not in told and "secret" not in told, told  # ...the parameters are not
    finally:
        async with store.engine.begin() as connection:
            await connection.exec_driver_sql(
                "DROP TRIGGER refuse_events" + (" ON events" if store.is_postgres else "")
            )
            if store.is_postgres:
                await connection.exec_driver_sql("DROP FUNCTION refuse_events()")


def _chain(error: BaseException | None) -> list[BaseException]:
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen
