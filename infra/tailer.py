"""Follow the global log and hand every new event, once and in order, to a handler.

The server runs one per process to fan out live events, whichever process appended
them. On PostgreSQL one dedicated asyncpg connection LISTENs on the channel that every
append NOTIFYs (the payload is only the new position); the events themselves are read
from the table. On every connect and reconnect it LISTENs first and then catches up,
so nothing committed in between is missed; a slow poll is the backstop, and it also
checks the LISTEN connection, so a killed session is noticed and replaced. On SQLite
(one process) it polls, and wakes at once for appends made through the same store.
The same connection LISTENs on the other channels it is given (``also_hear``: presence),
handing each payload to that channel's callback, so a process holds one LISTEN session
whatever it hears. What those channels said while no session listened is lost, so on
every connect and reconnect each callback is handed ``None`` ("look again"): a presence
reader woken then sees a socket that opened elsewhere meanwhile at once, not at its next
look (30 s).

Ordering is the store's guarantee: positions follow commit order with no gaps, so
"everything after the last position delivered" is exactly what is new.

``skip_own``: the server's match service already publishes its own appends, so reading
them back was wasted work (12% of a one-client run's samples). With it set, the store
tells the tailer the positions of each group it commits (before the connection is
returned, so before the tailer could have read them), and the tailer steps over them
without reading or delivering them. A read in flight while this store commits may still
return some of its rows; the tailer then waits for that commit to say so (``settled``)
and drops them, so they are not delivered either. Since a position is committed only after every
position below it, the positions before one of our own ranges are all committed and
are read exactly, up to the range. A wake-up with nothing beyond the highest position
known committed (the NOTIFY payload, our own ranges) reads nothing; the poll interval
still forces a read, so a missed NOTIFY is recovered as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from infra.database import application_name, asyncpg_dsn
from infra.errors import StoreUnavailable, UndecodableEvent
from infra.event_store import RecordedEvent
from infra.sql_event_store import NOTIFY_CHANNEL, SqlEventStore
from infra.waiting import wait_set

log = logging.getLogger(__name__)

Handler = Callable[[RecordedEvent], Awaitable[None]]
Hear = Callable[[str | None], None]  # a NOTIFY's payload on another channel; None: some missed

STOP_GRACE_S = 5.0  # how long stop() lets the loop finish a round before cancelling it


class LogTailer:
    """Deliver each event after ``after_position`` to ``handler`` exactly once, in order.

    A handler that raises is logged and skipped past: one bad subscriber must not stall
    the fan-out for everyone. ``position`` is the last position delivered.
    """

    def __init__(
        self,
        store: SqlEventStore,
        after_position: int,
        handler: Handler,
        *,
        poll_interval: float | None = None,
        batch_size: int = 500,
        skip_own: bool = False,
        also_hear: Mapping[str, Hear] | None = None,
    ) -> None:
        self.store = store
        self.position = after_position
        self.handler = handler
        self.poll_interval = poll_interval or (5.0 if store.is_postgres else 0.2)
        self.batch_size = batch_size
        self.connects = 0  # LISTEN sessions opened (PostgreSQL); > 1 means it reconnected
        self.listening = asyncio.Event()
        self._signal = asyncio.Event()
        self._conn: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self.skip_own = skip_own
        self._own: deque[tuple[int, int]] = deque()  # this store's committed ranges ahead
        self._known = after_position  # the highest position known to be committed
        self._last_read = 0.0  # monotonic time of the last read (0: read at once)
        self._also_hear = dict(also_hear or {})

    async def start(self) -> None:
        self._stop.clear()
        self.store.add_wakeup(self._signal)
        self.store.add_own_listener(self._on_own)
        self._task = asyncio.create_task(self._run(), name="log-tailer")

    async def stop(self) -> None:
        """Let the loop finish the round in hand and leave; cancel it only if it lingers.

        Cancelling mid-query leaves asyncpg with errors nobody reads, so the loop is
        asked first.
        """
        self.store.remove_wakeup(self._signal)
        self.store.remove_own_listener(self._on_own)
        task, self._task = self._task, None
        if task is not None:
            self._stop.set()
            self._signal.set()
            _, pending = await asyncio.wait({task}, timeout=STOP_GRACE_S)
            if pending:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._close_listener()

    async def catch_up(self, *, forced: bool = True) -> None:
        """Deliver everything committed so far (also what every wake-up does).

        Not ``forced`` (a wake-up, not the poll): read only if something beyond the
        highest position known to be committed may exist, or the poll interval has
        passed since the last read, so a stream of wake-ups cannot starve the poll.
        """
        if time.monotonic() - self._last_read >= self.poll_interval:
            forced = True
        while True:
            if self.skip_own:
                # A NOTIFY of our own commit can arrive before the commit's answer: let
                # that commit say its positions are ours before deciding what to read.
                await self.store.settled()
            self._skip_own()
            ahead = self._own[0][0] if self._own else None
            if ahead is None and not forced and self.position >= self._known:
                return
            # Before one of our ranges every position is committed: read exactly those.
            limit = (
                self.batch_size
                if ahead is None
                else min(self.batch_size, ahead - 1 - self.position)
            )
            self._last_read = time.monotonic()
            try:
                batch = await self.store.read_all(self.position, limit)
            except UndecodableEvent as bad:  # deliver what comes before it, then stop there
                if bad.position is None or bad.position <= self.position + 1:
                    raise
                await self._deliver(
                    await self.store.read_all(self.position, bad.position - 1 - self.position)
                )
                raise
            if self.skip_own and batch:
                await self.store.settled()  # our rows in it are then known as ours
            await self._deliver(batch)
            if len(batch) < limit:
                return  # all read (before a range of ours this cannot happen: a wake retries)

    def _skip_own(self) -> None:
        """Step over this store's ranges that start at the next position (or are behind)."""
        while self._own and self._own[0][0] <= self.position + 1:
            _, last = self._own.popleft()
            self.position = max(self.position, last)

    def _on_own(self, first: int, last: int) -> None:
        """This store committed ``first..last``: known committed, and skipped if asked."""
        self._known = max(self._known, last)
        if not self.skip_own or last <= self.position:
            return
        if self._own and self._own[-1][1] + 1 == first:
            self._own[-1] = (self._own[-1][0], last)  # contiguous: one range
        else:
            self._own.append((first, last))

    async def _deliver(self, batch: list[RecordedEvent]) -> None:
        for recorded in batch:
            self._skip_own()
            if recorded.position <= self.position:
                continue  # this store's own, committed while the read was in flight
            try:
                await self.handler(recorded)
            except Exception:
                log.exception("tailer handler failed at position %s", recorded.position)
            self.position = recorded.position

    # --- the loop --------------------------------------------------------------------

    async def _run(self) -> None:
        backoff = 0.05
        connection_lost = _connection_errors(self.store.is_postgres)
        while not self._stop.is_set():
            try:
                if self.store.is_postgres:
                    await self._listen()
                await self.catch_up()
                backoff = 0.05
                while True:
                    woken = await self._wait()
                    if self._stop.is_set():
                        return
                    await self._check_listener(ping=not woken)
                    await self.catch_up(forced=not woken)
            except asyncio.CancelledError:
                raise
            except connection_lost as e:
                log.warning("log tailer lost its connection (%s); reconnecting", e)
            except _ListenerLost:
                log.warning("log tailer's LISTEN connection closed; reconnecting")
            except UndecodableEvent:
                # Never skipped: the tailer stops at that position and says so until fixed.
                log.exception("log tailer cannot decode the next event; retrying")
                backoff = 2.0
            except Exception:
                log.exception("log tailer failed; restarting")
            await self._close_listener()
            await wait_set(self._stop, backoff)  # a stop cuts the back-off short
            backoff = min(backoff * 2, 2.0)

    async def _wait(self) -> bool:
        """True if woken (an append, a NOTIFY), False when the poll interval passed."""
        woken = await wait_set(self._signal, self.poll_interval)
        self._signal.clear()
        return woken

    async def _listen(self) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(
            asyncpg_dsn(self.store.url),
            timeout=10,
            server_settings={"application_name": application_name("listen")},
        )
        self._conn = conn
        conn.add_termination_listener(self._on_terminated)
        await conn.add_listener(NOTIFY_CHANNEL, self._on_notify)
        for channel, hear in self._also_hear.items():
            await conn.add_listener(channel, _payload_to(hear))
        self.connects += 1
        self.listening.set()
        # What was said before this session listened is lost: on a reconnect, and on the
        # first connect too (sockets reopened after a restart may be waiting already).
        for channel, hear in self._also_hear.items():
            _hand(hear, None, channel)

    async def _check_listener(self, *, ping: bool) -> None:
        """On PostgreSQL: is the LISTEN session alive? ``ping``: ask the server too.

        The round trip is for the backstop tick only; on a wake-up the closed check is
        enough, since asyncpg's termination callback is what wakes us when it dies.
        """
        if not self.store.is_postgres:
            return
        conn = self._conn
        if conn is None or conn.is_closed():
            raise _ListenerLost
        if ping:
            await conn.execute("SELECT 1")

    async def _close_listener(self) -> None:
        self.listening.clear()
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await conn.close()
        elif conn is not None:
            conn.terminate()

    def _on_notify(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        with contextlib.suppress(ValueError):
            position = int(payload)
            self._known = max(self._known, position)
            if position <= self.position:
                return
        self._signal.set()

    def _on_terminated(self, _conn: Any) -> None:
        self.listening.clear()
        self._signal.set()  # wake the loop so it notices at once


def _payload_to(hear: Hear) -> Callable[[Any, int, str, str], None]:
    """asyncpg's listener callback, handing only the payload on; one that raises is logged,
    not left to the event loop."""

    def on_notify(_conn: Any, _pid: int, channel: str, payload: str) -> None:
        _hand(hear, payload, channel)

    return on_notify


def _hand(hear: Hear, payload: str | None, channel: str) -> None:
    try:
        hear(payload)
    except Exception:
        log.exception("listener of %s failed", channel)


class _ListenerLost(Exception):
    """The dedicated LISTEN connection is gone."""


def _connection_errors(postgres: bool) -> tuple[type[BaseException], ...]:
    """What a lost connection raises: asyncpg's own errors too on PostgreSQL (imported
    only there: asyncpg was 15 ms of a SQLite server's start)."""
    if not postgres:
        return (StoreUnavailable, OSError)
    import asyncpg

    return (StoreUnavailable, OSError, asyncpg.PostgresError, asyncpg.InterfaceError)
