"""The event store contract: append-only streams (one per match) and one global log.

This module states the contract that every backend (SQLite, PostgreSQL) honours and
that the server codes against. The implementation lives beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple, Protocol

import msgspec

from domain.events import AnyEvent, Event
from domain.log import Storable, StoredEvent


class RecordedEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as stored: its global position, its stream and version within it.

    ``gc=False``: immutable, so in no cycle; a server holds many (issue 22).
    """

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    event: StoredEvent
    recorded_at: datetime
    command_id: str | None

    @property
    def match_event(self) -> AnyEvent:
        """The event, read from a match's stream (a table's stream holds table events)."""
        if not isinstance(self.event, Event):
            raise TypeError(
                f"{self.stream_id!r} v{self.version} is a {self.type}, not a match event"
            )
        return self.event


class AppendResult(msgspec.Struct, frozen=True):
    """What an append wrote (or, for a retried command id, what the first one wrote)."""

    stream_id: str
    first_version: int
    last_version: int
    last_position: int
    duplicate: bool = False
    # When the events were recorded, as the store keeps it; None for a retried command id
    # (the first append's time is not read back). A process that keeps its own append's
    # record in memory stamps the events with this, so its clock and a match's end agree
    # with what another process, or this one after a restart, reads from the store.
    recorded_at: datetime | None = None


class Batch(NamedTuple):
    """One command's events for ``append_chain``: what one ``append`` call would take."""

    events: Sequence[Storable]
    command_id: str | None = None
    command_hash: str | None = None


class EventStore(Protocol):
    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[Storable],
        command_id: str | None = None,
        command_hash: str | None = None,
    ) -> AppendResult:
        """Append atomically at ``expected_version`` (0 for a new stream).

        Raises ConcurrencyConflict if the stream is not at that version (nothing
        written, no position used). A ``command_id`` already recorded returns the first
        result with ``duplicate=True`` and writes nothing; with a different
        ``command_hash`` it raises IdempotencyMismatch.
        """
        ...

    async def append_chain(
        self, stream_id: str, expected_version: int, batches: Sequence[Batch]
    ) -> list[AppendResult]:
        """Append ``batches`` one after another to one stream, in one commit.

        Each batch goes in only if the one before it was newly written: a player's move
        and a reply decided on the state after it land together or the reply not at
        all. The first batch is answered as ``append`` would answer it (its refusal is
        raised); the list of results stops at the first batch not written, and after a
        duplicate (a retried first command), whose first result it ends with.
        """
        ...

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]:
        """The stream's events with version > ``after_version``, in order."""
        ...

    async def stream_version(self, stream_id: str) -> int:
        """The stream's last version (0 if it has no events)."""
        ...

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """The global log after a position, in commit order with no gaps."""
        ...

    async def last_position(self) -> int: ...

    async def command_hash(self, command_id: str) -> str | None:
        """The hash recorded with a command id (None if it had none, or is unknown)."""
        ...

    async def close(self) -> None: ...
