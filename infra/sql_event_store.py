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
together, up to GROUP_SIZE per transaction, with the statements of one: one read of
their streams and command ids, ``append_plan.plan`` deciding each in arrival order (a
refused one simply writes nothing), one insert. They share the lock and the flush,
and the ordering argument is unchanged. A lone append is a transaction of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Text, cast, func, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.events import encode_event, event_type
from domain.log import Storable, decode_stored
from infra.append_plan import AppendRequest, StoredCommand, plan
from infra.database import IMMEDIATE
from infra.errors import (
    ConcurrencyConflict,
    InfraError,
    StoreUnavailable,
    UndecodableEvent,
    UnstorableText,
)
from infra.event_store import AppendResult, RecordedEvent
from infra.schema import commands, events, log_head

NOTIFY_CHANNEL = "ginrummy_events"  # NOTIFY payload: only the new last position

FaultHook = Callable[[str], Awaitable[None]]


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
        self._queue: list[_Pending] = []
        self._committer: asyncio.Task[None] | None = None

    # --- writing ---------------------------------------------------------------------

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Storable],
        command_id: str | None = None,
        command_hash: str | None = None,
    ) -> AppendResult:
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        encoded = [
            (event_type(e), type(e).schema_version, encode_event(e).decode()) for e in events
        ]
        request = _Pending(
            AppendRequest(stream_id, expected_version, encoded, command_id, command_hash),
            asyncio.get_running_loop().create_future(),
        )
        request.result.add_done_callback(_retrieve)  # a cancelled caller leaves no warning
        self._queue.append(request)
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued(), name="store-commit")
        return await asyncio.shield(request.result)

    async def _commit_queued(self) -> None:
        """Commit waiting appends, up to GROUP_SIZE per transaction, until none wait."""
        while self._queue:
            group, self._queue = self._queue[:GROUP_SIZE], self._queue[GROUP_SIZE:]
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

    async def _commit_group(self, group: list[_Pending]) -> None:
        """One transaction for the whole group, with a fixed number of statements.

        Under the head lock it reads the group's stream versions and command ids, lets
        ``plan`` decide every append in arrival order (a refused one writes nothing;
        the others still commit), inserts all accepted events and command results, and
        moves the head once.
        """
        now = datetime.now(UTC)
        with translate_errors():
            async with self.write_transaction() as conn:
                lock = select(log_head.c.position).where(log_head.c.id == 1).with_for_update()
                start = int((await conn.execute(lock)).scalar_one())
                requests = [pending.request for pending in group]
                decided = plan(
                    requests,
                    await _stored_versions(conn, {r.stream_id for r in requests}),
                    await _stored_commands(
                        conn, {r.command_id for r in requests if r.command_id is not None}
                    ),
                    start,
                    now,
                )
                if decided.event_rows:
                    await conn.execute(insert(events), decided.event_rows)
                if decided.command_rows:
                    await conn.execute(insert(commands), decided.command_rows)
                if decided.head != start:
                    await self._move_head(conn, decided.head)
                if self.fault_hook is not None:
                    await self.fault_hook("before_commit")
        for pending, outcome in zip(group, decided.outcomes, strict=True):
            future = pending.result
            if future.done():
                continue
            if isinstance(outcome, InfraError):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
        if decided.head != start:
            self._wake()

    async def _move_head(self, conn: AsyncConnection, position: int) -> None:
        """Set the head; on PostgreSQL the same statement queues the NOTIFY for commit."""
        statement = update(log_head).where(log_head.c.id == 1).values(position=position)
        if self.is_postgres:
            moved = log_head.c.position
            statement = statement.returning(func.pg_notify(NOTIFY_CHANNEL, cast(moved, Text)))
        await conn.execute(statement)

    # --- reading ---------------------------------------------------------------------

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        query = (
            select(events)
            .where(events.c.stream_id == stream_id, events.c.version > after_version)
            .order_by(events.c.version)
        )
        if limit is not None:
            query = query.limit(limit)
        with translate_errors():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [to_recorded(row) for row in rows]

    async def stream_version(self, stream_id: str) -> int:
        with translate_errors():
            async with self.engine.connect() as conn:
                return await self._version(conn, stream_id)

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        query = (
            select(events)
            .where(events.c.position > after_position)
            .order_by(events.c.position)
            .limit(limit)
        )
        with translate_errors():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        return [to_recorded(row) for row in rows]

    async def last_position(self) -> int:
        with translate_errors():
            async with self.engine.connect() as conn:
                query = select(log_head.c.position).where(log_head.c.id == 1)
                return int((await conn.execute(query)).scalar_one())

    async def command_hash(self, command_id: str) -> str | None:
        with translate_errors():
            async with self.engine.connect() as conn:
                recorded = (await _stored_commands(conn, {command_id})).get(command_id)
        return recorded.command_hash if recorded is not None else None

    async def close(self) -> None:
        """Finish the appends already submitted, then close every connection."""
        if self._committer is not None and not self._committer.done():
            await asyncio.wait([self._committer])
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

    def _wake(self) -> None:
        for flag in self._wakeups:
            flag.set()

    @staticmethod
    async def _version(conn: AsyncConnection, stream_id: str) -> int:
        query = select(func.max(events.c.version)).where(events.c.stream_id == stream_id)
        return int((await conn.execute(query)).scalar() or 0)


GROUP_SIZE = 64  # appends committed together at most, when many wait at once


@dataclass
class _Pending:
    """An append waiting for the committer, and where its answer goes."""

    request: AppendRequest
    result: asyncio.Future[AppendResult]


def _retrieve(future: asyncio.Future[AppendResult]) -> None:
    if not future.cancelled():
        future.exception()


async def _stored_versions(conn: AsyncConnection, stream_ids: set[str]) -> dict[str, int]:
    query = (
        select(events.c.stream_id, func.max(events.c.version))
        .where(events.c.stream_id.in_(sorted(stream_ids)))
        .group_by(events.c.stream_id)
    )
    return {stream_id: int(version) for stream_id, version in await conn.execute(query)}


async def _stored_commands(
    conn: AsyncConnection, command_ids: set[str]
) -> dict[str, StoredCommand]:
    if not command_ids:
        return {}
    query = select(commands).where(commands.c.command_id.in_(sorted(command_ids)))
    return {
        row.command_id: StoredCommand(
            row.stream_id, row.command_hash, row.first_version, row.last_version, row.last_position
        )
        for row in await conn.execute(query)
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


# PostgreSQL's "character not in repertoire" and "untranslatable character": U+0000.
_UNSTORABLE_TEXT = ("22021", "22P05")


@contextmanager
def translate_errors() -> Iterator[None]:
    """Driver failures become the infra family: a lost connection is StoreUnavailable.

    A unique violation on (stream, version) can only mean another writer got there
    first, so it is a ConcurrencyConflict (the head lock makes this a backstop only).
    """
    try:
        yield
    except InfraError:
        raise
    except sa_exc.IntegrityError as error:
        raise ConcurrencyConflict(f"a concurrent append won: {error.orig}") from error
    except sa_exc.DBAPIError as error:
        if getattr(error.orig, "sqlstate", None) in _UNSTORABLE_TEXT:
            raise UnstorableText(
                "text with the NUL character (U+0000) cannot be stored or looked up"
            ) from error
        if error.connection_invalidated or isinstance(
            error, (sa_exc.OperationalError, sa_exc.InterfaceError)
        ):
            raise StoreUnavailable(f"the database connection failed: {error.orig}") from error
        if _is_connection_error(error.orig):
            raise StoreUnavailable(f"the database connection failed: {error.orig}") from error
        raise
    except (sa_exc.TimeoutError, OSError, ConnectionError) as error:
        raise StoreUnavailable(f"the database is unreachable: {error}") from error


def _is_connection_error(orig: BaseException | None) -> bool:
    """asyncpg's connection-loss errors, recognised by class name to avoid importing it.

    SQLAlchemy's adapter wraps the driver's exception, so the cause is checked too.
    """
    names: set[str] = set()
    for error in (orig, orig.__cause__ if orig is not None else None):
        if error is not None:
            names.update(cls.__name__ for cls in type(error).__mro__)
    return bool(
        names
        & {
            "PostgresConnectionError",
            "ConnectionDoesNotExistError",
            "AdminShutdownError",
            "ConnectionFailureError",
            "InterfaceError",
            "CannotConnectNowError",
            "InvalidCatalogNameError",  # the database itself is gone: retry once it is back
            "InvalidAuthorizationSpecificationError",  # no such role, or refused by pg_hba
            "InvalidPasswordError",
        }
    )
