"""The event store over SQLAlchemy Core: one implementation for PostgreSQL and SQLite.

Ordering: every append transaction first locks the single ``log_head`` row (``SELECT ...
FOR UPDATE`` on PostgreSQL; on SQLite ``BEGIN IMMEDIATE`` has already taken the write
lock), checks the stream version and the command id, inserts the events at the next
positions and moves the head. Appends are thus serialised, and each commits before the
next can read the head: positions follow commit order with no gaps, so a reader that
follows the global position never skips an event committed later. A refused append
(conflict, duplicate) writes nothing and moves nothing, so it uses no position.

Group commit: holding the head lock through the commit's disk flush would let only
one append per flush through. So the appends waiting in one process are committed
together, up to GROUP_SIZE per transaction, with the statements of one, deciding each
in arrival order (a refused one simply writes nothing). They share the lock and the
flush, and the ordering argument is unchanged. A lone append is a transaction of its own.

Lean: on PostgreSQL the group is one call of the ``ginrummy_append`` function, one round
trip in autocommit (``infra/append_pg.py``); on SQLite it is a few statements decided
by ``append_plan.plan``. Every statement is built once at import, so SQLAlchemy reuses
its compiled form instead of building and compiling it per call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import msgspec
from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.events import encode_event, event_type
from domain.log import Storable, StoredEvent, decode_stored
from infra.append_pg import append_group
from infra.append_plan import AppendRequest, Decided, StoredCommand, plan
from infra.database import IMMEDIATE, one_statement
from infra.driver_errors import translate_errors
from infra.errors import InfraError, StoreUnavailable, UndecodableEvent
from infra.event_store import AppendResult, Batch, RecordedEvent
from infra.lookup_batch import LookupBatch
from infra.schema import commands, events, log_head

NOTIFY_CHANNEL = "ginrummy_events"  # NOTIFY payload: only the new last position

FaultHook = Callable[[str], Awaitable[None]]
OwnListener = Callable[[int, int], None]  # (first, last) positions a commit of this store took
OwnEventsListener = Callable[[list["RecordedEvent"]], None]  # a commit's events, as read back


class SqlEventStore:
    """The ``EventStore`` for both databases; ``engine`` is shared with the repositories."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self.engine = engine
        self.url = url
        self.is_postgres = engine.dialect.name == "postgresql"
        # A test seam: awaited inside the append transaction after the insert and before
        # the commit, to hold a transaction open or to fail at the worst moment.
        self.fault_hook: FaultHook | None = None
        self._wakeups: set[asyncio.Event] = set()
        self._own_listeners: set[OwnListener] = set()
        self._own_events_listeners: set[OwnEventsListener] = set()
        self._queue: list[_Pending] = []
        self._committer: asyncio.Task[None] | None = None
        self._committing: asyncio.Future[None] | None = None
        self._command_hashes = LookupBatch[str | None](self._fetch_command_hashes)

    # --- writing ---------------------------------------------------------------------

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Storable],
        command_id: str | None = None,
        command_hash: str | None = None,
    ) -> AppendResult:
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        (pending,) = self._enqueue(
            [
                AppendRequest(
                    stream_id, expected_version, _encoded(events), command_id, command_hash
                )
            ],
            [events],
        )
        return await asyncio.shield(pending.result)

    async def append_chain(
        self, stream_id: str, expected_version: int, batches: Sequence[Batch]
    ) -> list[AppendResult]:
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        requests, version = [], expected_version
        for i, batch in enumerate(batches):
            encoded = _encoded(batch.events)
            requests.append(
                AppendRequest(
                    stream_id, version, encoded, batch.command_id, batch.command_hash, i > 0
                )
            )
            version += len(encoded)
        results: list[AppendResult] = []
        queued = self._enqueue(requests, [batch.events for batch in batches])
        for i, pending in enumerate(queued):
            try:
                result = await asyncio.shield(pending.result)
            except InfraError:
                if i == 0:
                    raise
                break  # a follow-up not written (the one before it was not): the chain ends
            results.append(result)
            if result.duplicate:
                break
        return results

    def _enqueue(
        self, requests: list[AppendRequest], events: Sequence[Sequence[Storable]]
    ) -> list[_Pending]:
        """Queue appends for the committer, side by side (a chain is never split)."""
        loop = asyncio.get_running_loop()
        queued = [
            _Pending(request, loop.create_future(), batch)
            for request, batch in zip(requests, events, strict=True)
        ]
        for pending in queued:
            pending.result.add_done_callback(_retrieve)  # a cancelled caller leaves no warning
        self._queue.extend(queued)
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued(), name="store-commit")
        return queued

    async def _commit_queued(self) -> None:
        """Commit waiting appends, up to GROUP_SIZE per transaction, until none wait."""
        while self._queue:
            cut = GROUP_SIZE
            while cut < len(self._queue) and self._queue[cut].request.after_previous:
                cut += 1  # a chain's follow-ups commit with the append they follow
            group, self._queue = self._queue[:cut], self._queue[cut:]
            self._committing = asyncio.get_running_loop().create_future()
            try:
                await self._commit_group(group)
            except BaseException as error:  # the whole transaction failed: so did each append
                for request in group:
                    if not request.result.done():
                        request.result.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    waiting, self._queue = self._queue, []
                    for request in waiting:
                        if not request.result.done():
                            request.result.set_exception(StoreUnavailable("the store closed"))
                    raise
            finally:
                self._committing.set_result(None)

    async def settled(self) -> None:
        """Wait until the group commit in flight, if any, has finished and said so.

        A reader that finds this store's rows in a result while their commit has not yet
        told the own-listeners waits here: groups commit one at a time, so the commit
        that wrote them is the one in flight (or is done).
        """
        committing = self._committing
        if committing is not None and not committing.done():
            await asyncio.shield(committing)

    async def _commit_group(self, group: list[_Pending]) -> None:
        """One transaction for the whole group, in a fixed number of round trips.

        Under the head lock it reads the group's stream versions and command ids,
        decides every append in arrival order (a refused one writes nothing; the others
        still commit), inserts all accepted events and command results, and moves the
        head once. On PostgreSQL that is one call of ``ginrummy_append`` (infra/append_pg.py),
        in autocommit unless a test holds the transaction open with ``fault_hook``.
        """
        now = datetime.now(UTC)
        requests = [pending.request for pending in group]
        with translate_errors():
            async with self.engine.connect() as conn:
                if self.is_postgres and self.fault_hook is None:
                    await conn.execution_options(isolation_level="AUTOCOMMIT")
                    decided = await append_group(conn, requests, now)
                else:
                    await conn.execution_options(**{IMMEDIATE: True})
                    async with conn.begin():
                        if self.is_postgres:
                            decided = await append_group(conn, requests, now)
                        else:
                            decided = await _commit_statements(conn, requests, now)
                        if self.fault_hook is not None:
                            await self.fault_hook("before_commit")
                # Committed. Said at once, before the connection goes back to the pool
                # (on SQLite that is an await), so a tailer of this store learns that
                # these positions are its own before it could read them.
                if decided.head != decided.start:
                    for listener in tuple(self._own_listeners):
                        listener(decided.start + 1, decided.head)
                    if self._own_events_listeners:
                        recorded = _recorded(group, decided, now)
                        for events_listener in tuple(self._own_events_listeners):
                            events_listener(recorded)
        for pending, outcome in zip(group, decided.outcomes, strict=True):
            future = pending.result
            if future.done():
                continue
            if isinstance(outcome, InfraError):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
        if decided.head != decided.start:
            self._wake()

    # --- reading ---------------------------------------------------------------------

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        params: dict[str, Any] = {"stream_id": stream_id, "after": after_version}
        query = _READ_STREAM
        if limit is not None:
            query, params["limit"] = _READ_STREAM_LIMITED, limit
        with translate_errors():
            async with one_statement(self.engine) as conn:
                rows = (await conn.execute(query, params)).all()
        return [to_recorded(row) for row in rows]

    async def stream_version(self, stream_id: str) -> int:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return int((await conn.execute(_VERSION, {"stream_id": stream_id})).scalar() or 0)

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                rows = await _log_rows(conn, after_position, limit)
        return [to_recorded(row) for row in rows]  # decoded once the connection is back

    async def read_all_in(
        self, conn: AsyncConnection, after_position: int, limit: int
    ) -> list[RecordedEvent]:
        """``read_all`` on a connection the caller holds, inside its transaction.

        A caller in a transaction that took a second pooled connection to read would
        wait for the pool's timeout (then fail) once every connection is held by callers
        like it.
        """
        return [to_recorded(row) for row in await _log_rows(conn, after_position, limit)]

    async def last_position(self) -> int:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return int((await conn.execute(_HEAD)).scalar_one())

    async def command_hash(self, command_id: str) -> str | None:
        """Lookups made together share one query (``LookupBatch``)."""
        return await self._command_hashes.get(command_id)

    async def _fetch_command_hashes(self, command_ids: Collection[str]) -> dict[str, str | None]:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                stored = await _stored_commands(conn, set(command_ids))
        return {command_id: recorded.command_hash for command_id, recorded in stored.items()}

    async def close(self) -> None:
        """Finish the appends and lookups already submitted, then close every connection."""
        if self._committer is not None and not self._committer.done():
            await asyncio.wait([self._committer])
        await self._command_hashes.wait_idle()
        await self.engine.dispose()

    # --- shared helpers --------------------------------------------------------------

    @asynccontextmanager
    async def write_transaction(self) -> AsyncIterator[AsyncConnection]:
        """A transaction that may write: ``BEGIN IMMEDIATE`` on SQLite, plain on PostgreSQL."""
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(**{IMMEDIATE: True})
            async with conn.begin():
                yield conn

    def add_wakeup(self, flag: asyncio.Event) -> None:
        """Set ``flag`` after every append through this store, so a local tailer reacts at once."""
        self._wakeups.add(flag)

    def remove_wakeup(self, flag: asyncio.Event) -> None:
        self._wakeups.discard(flag)

    def add_own_listener(self, listener: OwnListener) -> None:
        """Call ``listener(first, last)`` with the positions of every group this store commits.

        Called right after the commit, before the appends' callers hear of it: a tailer
        uses it to skip what this process wrote instead of reading it back.
        """
        self._own_listeners.add(listener)

    def remove_own_listener(self, listener: OwnListener) -> None:
        self._own_listeners.discard(listener)

    def add_own_events_listener(self, listener: OwnEventsListener) -> None:
        """Call ``listener(events)`` with the events of every group this store commits.

        In position order, as ``read_all`` would return them, right after the commit:
        a projector applies what this process wrote without reading it back.
        """
        self._own_events_listeners.add(listener)

    def remove_own_events_listener(self, listener: OwnEventsListener) -> None:
        self._own_events_listeners.discard(listener)

    def _wake(self) -> None:
        for flag in self._wakeups:
            flag.set()


GROUP_SIZE = 64  # appends committed together at most, when many wait at once


@dataclass
class _Pending:
    """An append waiting for the committer, and where its answer goes."""

    request: AppendRequest
    result: asyncio.Future[AppendResult]
    events: Sequence[Storable]  # what ``request.encoded`` encodes, for the own-events listeners


def _recorded(group: list[_Pending], decided: Decided, now: datetime) -> list[RecordedEvent]:
    """The events a group wrote, as ``read_all`` would return them (refused ones wrote none)."""
    recorded = []
    for pending, outcome in zip(group, decided.outcomes, strict=True):
        if not isinstance(outcome, AppendResult) or outcome.duplicate:
            continue
        request = pending.request
        first = outcome.last_position - (outcome.last_version - outcome.first_version)
        for i, (event, (type_, schema_version, _)) in enumerate(
            zip(pending.events, request.encoded, strict=True)
        ):
            recorded.append(
                RecordedEvent(
                    position=first + i,
                    stream_id=request.stream_id,
                    version=outcome.first_version + i,
                    type=type_,
                    schema_version=schema_version,
                    event=cast(StoredEvent, event),  # the object appended, as read_all decodes it
                    recorded_at=now,
                    command_id=request.command_id,
                )
            )
    return recorded


def _encoded(events: Sequence[Storable]) -> list[tuple[str, int, str]]:
    if not events:
        raise ValueError("append needs at least one event")
    return [(event_type(e), type(e).schema_version, encode_event(e).decode()) for e in events]


def _retrieve(future: asyncio.Future[AppendResult]) -> None:
    if not future.cancelled():
        future.exception()


# The statements, built once: SQLAlchemy then finds each compiled form in its cache
# instead of building and compiling it again on every call (about a fifth of the append
# path's time before). Lists go in as expanding bind parameters.
_HEAD = select(log_head.c.position).where(log_head.c.id == 1)
_LOCK_HEAD = _HEAD.with_for_update()
_MOVE_HEAD = update(log_head).where(log_head.c.id == 1).values(position=bindparam("head"))
_INSERT_EVENTS = insert(events)
_INSERT_COMMANDS = insert(commands)
_VERSION = select(func.max(events.c.version)).where(events.c.stream_id == bindparam("stream_id"))
_VERSIONS = (
    select(events.c.stream_id, func.max(events.c.version))
    .where(events.c.stream_id.in_(bindparam("ids", expanding=True)))
    .group_by(events.c.stream_id)
)
_COMMANDS = select(commands).where(commands.c.command_id.in_(bindparam("ids", expanding=True)))
_READ_STREAM = (
    select(events)
    .where(events.c.stream_id == bindparam("stream_id"), events.c.version > bindparam("after"))
    .order_by(events.c.version)
)
_READ_STREAM_LIMITED = _READ_STREAM.limit(bindparam("limit"))
_READ_ALL = (
    select(events)
    .where(events.c.position > bindparam("after"))
    .order_by(events.c.position)
    .limit(bindparam("limit"))
)


async def _commit_statements(
    conn: AsyncConnection, requests: list[AppendRequest], now: datetime
) -> Decided:
    """The group statement by statement (SQLite): lock, read, ``plan``, insert, move.

    On SQLite ``BEGIN IMMEDIATE`` has taken the write lock already; the ``FOR UPDATE``
    is kept so the path would be correct on any database that supports it.
    """
    start = int((await conn.execute(_LOCK_HEAD)).scalar_one())
    decided = plan(
        requests,
        await _stored_versions(conn, {r.stream_id for r in requests}),
        await _stored_commands(conn, {r.command_id for r in requests if r.command_id is not None}),
        start,
        now,
    )
    if decided.event_rows:
        await conn.execute(_INSERT_EVENTS, decided.event_rows)
    if decided.command_rows:
        await conn.execute(_INSERT_COMMANDS, decided.command_rows)
    if decided.head != start:
        await conn.execute(_MOVE_HEAD, {"head": decided.head})
    return Decided(start, decided.head, decided.outcomes)


async def _log_rows(conn: AsyncConnection, after_position: int, limit: int) -> Sequence[Any]:
    """The global log's rows after ``after_position``, at most ``limit``, in position order."""
    return (await conn.execute(_READ_ALL, {"after": after_position, "limit": limit})).all()


async def _stored_versions(conn: AsyncConnection, stream_ids: set[str]) -> dict[str, int]:
    rows = await conn.execute(_VERSIONS, {"ids": sorted(stream_ids)})
    return {stream_id: int(version) for stream_id, version in rows}


async def _stored_commands(
    conn: AsyncConnection, command_ids: set[str]
) -> dict[str, StoredCommand]:
    if not command_ids:
        return {}
    return {
        row.command_id: StoredCommand(
            row.stream_id, row.command_hash, row.first_version, row.last_version, row.last_position
        )
        for row in await conn.execute(_COMMANDS, {"ids": sorted(command_ids)})
    }


def to_recorded(row: Any) -> RecordedEvent:
    """A stored row as a RecordedEvent; a payload that does not decode names its position."""
    try:
        event = decode_stored(row.payload)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise UndecodableEvent(
            f"the event at position {row.position} ({row.stream_id!r} v{row.version}, "
            f"type {row.type!r}) does not decode: {error}",
            position=row.position,
        ) from error
    if event_type(event) != row.type:
        raise UndecodableEvent(
            f"the event at position {row.position} is stored as {row.type!r} "
            f"but decodes as {event_type(event)!r}",
            position=row.position,
        )
    recorded_at = row.recorded_at
    if recorded_at.tzinfo is None:  # SQLite keeps no zone; we always write UTC
        recorded_at = recorded_at.replace(tzinfo=UTC)
    return RecordedEvent(
        position=row.position,
        stream_id=row.stream_id,
        version=row.version,
        type=row.type,
        schema_version=row.schema_version,
        event=event,
        recorded_at=recorded_at,
        command_id=row.command_id,
    )
