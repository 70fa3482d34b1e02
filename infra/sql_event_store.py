"""The event store over SQLAlchemy Core: one implementation for PostgreSQL and SQLite.

Every append is one transaction that first moves the single ``log_head`` row forward by
the batch size (the UPDATE row-locks it until commit on PostgreSQL; ``BEGIN IMMEDIATE``
has already taken the database write lock on SQLite), then checks the command id and
the stream version, and inserts the events at the positions it reserved. Appends are thus serialised and each commits before
the next one can even read the head, so positions follow commit order with no gaps: a
reader that follows the global position never skips an event committed later. A
conflict or a duplicate rolls the transaction back, head move included, so it uses no
position. Six round trips per append: BEGIN, reserve, check, insert, command, COMMIT.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Text, cast, func, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import ColumnElement

from domain.events import Event, decode_event, encode_event, event_type
from infra.database import IMMEDIATE
from infra.errors import (
    ConcurrencyConflict,
    IdempotencyMismatch,
    InfraError,
    StoreUnavailable,
    UndecodableEvent,
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

    # --- writing ---------------------------------------------------------------------

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Event],
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
        now = datetime.now(UTC)
        try:
            with translate_errors():
                async with self.write_transaction() as conn:
                    result = await self._append_locked(
                        conn, stream_id, expected_version, encoded, command_id, command_hash, now
                    )
        except _Duplicate as duplicate:
            return duplicate.result  # rolled back: the reserved positions were not used
        self._wake()
        return result

    async def _append_locked(
        self,
        conn: AsyncConnection,
        stream_id: str,
        expected_version: int,
        encoded: list[tuple[str, int, str]],
        command_id: str | None,
        command_hash: str | None,
        now: datetime,
    ) -> AppendResult:
        # 1. Lock the head and reserve the positions in one statement; on PostgreSQL the
        #    same statement queues the NOTIFY, which is delivered only if we commit.
        n = len(encoded)
        moved = log_head.c.position
        returning: list[ColumnElement[Any]] = [moved]
        if self.is_postgres:
            returning.append(func.pg_notify(NOTIFY_CHANNEL, cast(moved, Text)))
        reserve = (
            update(log_head)
            .where(log_head.c.id == 1)
            .values(position=log_head.c.position + n)
            .returning(*returning)
        )
        last_position = int((await conn.execute(reserve)).scalar_one())
        # 2. Under the lock, one query reads the stream version and any earlier result
        #    of this command. A duplicate or a conflict rolls back: no position is used.
        checks = [
            select(func.max(events.c.version))
            .where(events.c.stream_id == stream_id)
            .scalar_subquery()
            .label("current")
        ]
        if command_id is not None:
            checks += [
                select(commands.c[column])
                .where(commands.c.command_id == command_id)
                .scalar_subquery()
                .label(column)
                for column in _COMMAND_COLUMNS
            ]
        found = (await conn.execute(select(*checks))).one()
        if command_id is not None and found.last_position is not None:
            if command_hash is not None and found.command_hash != command_hash:
                raise IdempotencyMismatch(
                    f"command id {command_id!r} was already used with a different payload"
                )
            raise _Duplicate(
                AppendResult(
                    stream_id=found.stream_id,
                    first_version=found.first_version,
                    last_version=found.last_version,
                    last_position=found.last_position,
                    duplicate=True,
                )
            )
        current = int(found.current or 0)
        if current != expected_version:
            raise ConcurrencyConflict(
                f"stream {stream_id!r} is at version {current}, not {expected_version}",
                stream_id=stream_id,
                expected=expected_version,
                actual=current,
            )
        # 3. The events, and the command's result for retries.
        head = last_position - n
        await conn.execute(
            insert(events),
            [
                {
                    "position": head + i,
                    "stream_id": stream_id,
                    "version": expected_version + i,
                    "type": type_,
                    "schema_version": schema_version,
                    "payload": payload,
                    "recorded_at": now,
                    "command_id": command_id,
                }
                for i, (type_, schema_version, payload) in enumerate(encoded, start=1)
            ],
        )
        result = AppendResult(
            stream_id=stream_id,
            first_version=expected_version + 1,
            last_version=expected_version + n,
            last_position=last_position,
        )
        if command_id is not None:
            await conn.execute(
                insert(commands).values(
                    command_id=command_id,
                    stream_id=stream_id,
                    command_hash=command_hash,
                    first_version=result.first_version,
                    last_version=result.last_version,
                    last_position=last_position,
                    recorded_at=now,
                )
            )
        if self.fault_hook is not None:
            await self.fault_hook("before_commit")
        return result

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

    async def close(self) -> None:
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


_COMMAND_COLUMNS = ("stream_id", "command_hash", "first_version", "last_version", "last_position")


class _Duplicate(Exception):
    """Raised inside the transaction to roll it back and answer with the first result."""

    def __init__(self, result: AppendResult) -> None:
        super().__init__(result)
        self.result = result


def to_recorded(row: Any) -> RecordedEvent:
    """A stored row as a RecordedEvent; a payload that does not decode names its position."""
    try:
        event = decode_event(row.payload)
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
    """asyncpg's connection-loss errors, recognised by class name to avoid importing it."""
    names = {cls.__name__ for cls in type(orig).__mro__} if orig is not None else set()
    return bool(
        names
        & {
            "PostgresConnectionError",
            "ConnectionDoesNotExistError",
            "AdminShutdownError",
            "ConnectionFailureError",
            "InterfaceError",
            "CannotConnectNowError",
        }
    )
