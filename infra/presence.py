"""Who is connected to which seat, shared by every server process through the database.

Presence is per seat of a match: a seat is present while its player has that match's
``live`` socket open, or its player stream (which hears every match of the player, so
a bot on its stream is present in all of them). A socket on match A says nothing about
match B. Each process counts its open sockets per (match, seat) and per player stream
and writes one row per key and process, refreshed every ``refresh_s``
(``GINRUMMY_PRESENCE_REFRESH_S``) while any is open; a row is fresh for ``fresh_ms``
(four refreshes) after it was written. A seat is connected while some fresh row counts
a socket; otherwise it has been away since the newest row's time (when its last socket
closed, or when a killed process last refreshed). No row at all: never connected (away
since ever). Nothing lives only in memory: a restarted process, or another one, reads
the same rows.
Spectator sockets do not count: presence is about a seat.

A reader waiting on a seat's presence (``server.claim_watch``) polls the rows, since a
row that goes stale says nothing; but a socket opening or closing is news the moment it
is written, so ``on_change`` tells the readers here at once (a returning player was said
to be away for up to a look interval, 30 s by default). On PostgreSQL the write also
NOTIFYs ``NOTIFY_CHANNEL``, in the write's own transaction, and every process hands what it hears
there to ``heard``, which tells its readers the same: a socket on another process is news
at once too. The payload names the key and the writing process (which has told its own
readers already), nothing else. When the listener reconnects, what was said while it was
down is lost, and every reader here is woken to look again.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable

from sqlalchemy import select, union_all
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.clock import now_ms
from infra.driver_errors import translate_errors
from infra.look_again import LookAgain
from infra.process_rows import REFRESH_S, CountedRows, ProcessRows, fresh_ms
from infra.schema import seat_presence, stream_presence

KEEP_MS = 7 * 24 * 3600 * 1000  # rows of seats and players away this long are forgotten
# Payload: a JSON list, the writing process's id then the key ("seat", match, seat) or
# ("stream", player).
NOTIFY_CHANNEL = "ginrummy_presence"

# Looks again after a LISTEN reconnect at most this often (infra/look_again.py).
LOOK_AGAIN_GAP_S = 1.0

Wake = Callable[[], None]
Key = tuple[str | int, ...]  # ("seat", match_id, seat) or ("stream", player_id)


class Presence:
    def __init__(self, engine: AsyncEngine, refresh_s: float = REFRESH_S) -> None:
        self.engine = engine
        self.fresh_ms = fresh_ms(refresh_s)
        self._seats = CountedRows(seat_presence, ("match_id", "seat"), "sockets", keep_empty=True)
        self._streams = CountedRows(stream_presence, ("player_id",), "sockets", keep_empty=True)
        self._rows = ProcessRows(engine, self._seats, self._streams, channel=NOTIFY_CHANNEL)
        self.process_id = self._rows.process_id
        self._wakes: defaultdict[Key, set[Wake]] = defaultdict(set)
        self._look_again = LookAgain(self._wake_every_reader, LOOK_AGAIN_GAP_S)

    def on_change(self, match_id: str, seat: int, player_id: str, wake: Wake) -> Wake:
        """Call ``wake`` each time this process writes, or hears that another wrote (``heard``),
        that the seat (its match socket, or its player's stream) arrived or left; the
        function returned stops it."""
        keys: list[Key] = [("seat", match_id, seat), ("stream", player_id)]
        for key in keys:
            self._wakes[key].add(wake)

        def stop() -> None:
            for key in keys:
                wakes = self._wakes.get(key)
                if wakes is not None:
                    wakes.discard(wake)
                    if not wakes:
                        del self._wakes[key]

        return stop

    def heard(self, payload: str | None) -> None:
        """A NOTIFY on ``NOTIFY_CHANNEL``: another process wrote that a key arrived or left.
        Our own were told here as they were written; a payload not understood is dropped
        (the readers' next look finds what it was about). ``None``: the listener was
        down and may have missed any, so every reader looks again."""
        if payload is None:
            self._look_again.ask()
            return
        try:
            process_id, *key = json.loads(payload)
        except (ValueError, TypeError):
            return
        if process_id != self.process_id and key:
            self._changed(tuple(key))

    def close(self) -> None:
        """At shutdown: a look put off to the end of the gap is not made."""
        self._look_again.close()

    def _wake_every_reader(self) -> None:
        for wake in {wake for wakes in self._wakes.values() for wake in wakes}:
            wake()

    def _changed(self, key: Key) -> None:
        for wake in tuple(self._wakes.get(key, ())):
            wake()

    def _notice(self, key: Key) -> str:
        return json.dumps([self.process_id, *key])

    async def arrive_at_seat(self, match_id: str, seat: int) -> None:
        """A seat's ``live`` socket opened on this process."""
        key: Key = ("seat", match_id, seat)
        await self._rows.arrive(self._seats, (match_id, seat), self._notice(key))
        self._changed(key)

    async def leave_seat(self, match_id: str, seat: int) -> None:
        key: Key = ("seat", match_id, seat)
        await self._rows.leave(self._seats, (match_id, seat), self._notice(key))
        self._changed(key)

    async def arrive_on_stream(self, player_id: str) -> None:
        """A player stream opened on this process: present in each of the player's matches."""
        key: Key = ("stream", player_id)
        await self._rows.arrive(self._streams, (player_id,), self._notice(key))
        self._changed(key)

    async def leave_stream(self, player_id: str) -> None:
        key: Key = ("stream", player_id)
        await self._rows.leave(self._streams, (player_id,), self._notice(key))
        self._changed(key)

    async def away_since(self, match_id: str, seat: int, player_id: str) -> int | None:
        """None while the seat is connected (its match socket or its player's stream);
        else when it was last seen connected (0: never)."""
        at_seat = select(seat_presence.c.sockets, seat_presence.c.updated_ms).where(
            seat_presence.c.match_id == match_id, seat_presence.c.seat == seat
        )
        on_stream = select(stream_presence.c.sockets, stream_presence.c.updated_ms).where(
            stream_presence.c.player_id == player_id
        )
        with translate_errors():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(union_all(at_seat, on_stream))).all()
        fresh = now_ms() - self.fresh_ms
        if any(sockets > 0 and updated > fresh for sockets, updated in rows):
            return None
        return max((updated for _, updated in rows), default=0)

    async def refresh(self) -> None:
        """Rewrite this process's rows of connected seats and streams; forget very old rows."""
        old = now_ms() - KEEP_MS
        await self._rows.refresh({seat_presence: old, stream_presence: old})
