"""The matches' logs as this process holds them: read once, then only what is new.

The match service decides; this is where its decisions meet the store. A match is
folded from the store once and kept (``RecordCache``); a later ``load`` reads only the
events after the kept version, and this process's own appends are folded in from what
it wrote, never read back. Each match has one in-process lock, held while a move is
decided and appended, and at most ``APPENDS_IN_FLIGHT`` appends of the process wait on
the store at once. The store's expected version is the last word: a kept record that
another process made stale loses its append, and its caller reads again.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from domain.blocks import STREAM_PREFIX as BLOCKS_STREAM_PREFIX
from domain.chat import STREAM_PREFIX as CHAT_STREAM_PREFIX
from domain.errors import quoted
from domain.events import Event, event_type
from infra.errors import StreamNotFound
from infra.event_store import AppendResult, Batch, EventStore, RecordedEvent
from infra.projections.lobby import TABLE_STREAM_PREFIX
from server.match_record import MatchRecord, RecordCache, empty_record
from server.problems import MatchNotFound

APPENDS_IN_FLIGHT = 16
# The store's streams that are not matches: read as one (``GET /v1/matches/blocks:<id>``),
# a stream that exists would fold into no match (a 500) where a missing one is a 404.
OTHER_STREAMS = (TABLE_STREAM_PREFIX, CHAT_STREAM_PREFIX, BLOCKS_STREAM_PREFIX)


class MatchLog:
    """Loads, locks and appends matches on a cache of their folded logs; tells
    ``on_append`` (the live fan-out) of every version this process appends."""

    def __init__(
        self, store: EventStore, on_append: Callable[[str, int], None] | None = None
    ) -> None:
        self.store = store
        self.records = RecordCache()
        self._on_append = on_append or (lambda match_id, version: None)
        self._appending = asyncio.Semaphore(APPENDS_IN_FLIGHT)
        # a lock lives while someone holds or awaits it, so eviction never splits one
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def load(self, match_id: str, at_least: int | None = None) -> MatchRecord:
        """The match caught up with the store; MatchNotFound if it has no events.

        With ``at_least``, a cached record that has reached that version is returned
        without asking the store (a socket woken for version V needs no read if this
        process appended V itself).
        """
        if match_id.startswith(OTHER_STREAMS):
            raise MatchNotFound(f"no match {quoted(match_id)}")  # a table's, chat's or block list's
        cached = self.records.get(match_id)
        if cached is not None and at_least is not None and cached.state.version >= at_least:
            return cached
        after = cached.state.version if cached else 0
        try:
            new = await self.store.read_stream(match_id, after_version=after)
        except StreamNotFound:
            new = []
        if cached is None and not new:
            raise MatchNotFound(f"no match {quoted(match_id)}")
        if cached is not None and not new:
            return cached
        record = (cached or empty_record()).folded(new)
        latest = self.records.peek(match_id)
        if latest is not None and latest.state.version >= record.state.version:
            return latest  # a concurrent load got further
        self.records.keep(record)
        return record

    def lock(self, match_id: str) -> asyncio.Lock:
        """The match's lock in this process: one move at a time is decided on a record."""
        lock = self._locks.get(match_id)
        if lock is None:
            lock = self._locks[match_id] = asyncio.Lock()
        return lock

    def tell_listeners(self, match_id: str, version: int) -> None:
        """The listeners hear that the match reached ``version``."""
        self._on_append(match_id, version)

    async def append(
        self,
        match_id: str,
        expected_version: int,
        events: Sequence[Event],
        command_id: str | None = None,
        command_hash: str | None = None,
    ) -> AppendResult:
        """Append, with at most a few appends of this process in flight at once.

        Appends serialise on the log head in the database anyway (the store commits
        concurrent ones as a group, one group at a time); queueing the excess here bounds
        how many wait in the store's queue, and so a group's size. Measured on two shared
        cores: 4 starved the group commit at 16 clients, 64 let 64 clients thrash; 16 did
        well at both.
        """
        async with self._appending:
            return await self.store.append(
                match_id, expected_version, events, command_id, command_hash
            )

    async def append_chain(
        self, match_id: str, expected_version: int, batches: Sequence[Batch]
    ) -> list[AppendResult]:
        """``append`` for a move and the reply that goes with it, in one commit."""
        async with self._appending:
            if len(batches) > 1:
                return await self.store.append_chain(match_id, expected_version, batches)
            (only,) = batches
            return [
                await self.store.append(
                    match_id, expected_version, only.events, only.command_id, only.command_hash
                )
            ]

    def remember(
        self,
        record: MatchRecord,
        events: Sequence[Event],
        result: AppendResult,
        command_id: str,
    ) -> MatchRecord:
        """The record after our own append, without reading it back from the store: its
        events stamped with the time the store recorded (a clock read of our own here was
        a millisecond or two later, so a deadline moved by that much when another process,
        or this one after a restart, read the match from the store)."""
        now = result.recorded_at or datetime.now(UTC)
        first_position = result.last_position - len(events) + 1
        recorded = [
            RecordedEvent(
                position=first_position + i,
                stream_id=result.stream_id,
                version=result.first_version + i,
                type=event_type(event),
                schema_version=event.schema_version,
                event=event,  # type: ignore[arg-type]
                recorded_at=now,
                command_id=command_id,
            )
            for i, event in enumerate(events)
        ]
        updated = record.folded(recorded)
        self.records.keep_if_newer(updated)
        return updated
