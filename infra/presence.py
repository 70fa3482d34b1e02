"""Who is connected to which seat, shared by every server process through the database.

Presence is per seat of a match: a seat is present while its player has that match's
``live`` socket open, or its player stream (which hears every match of the player, so
a bot on its stream is present in all of them). A socket on match A says nothing about
match B. Each process counts its open sockets per (match, seat) and per player stream
and writes one row per key and process, refreshed every ``REFRESH_S`` while any is
open. A seat is connected while some fresh row counts a socket; otherwise it has been
away since the newest row's time (when its last socket closed, or when a killed
process last refreshed). No row at all: never connected (away since ever). Nothing
lives only in memory: a restarted process, or another one, reads the same rows.
Spectator sockets do not count: presence is about a seat.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from typing import Any

from sqlalchemy import Table, delete, select, union_all
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.schema import seat_presence, stream_presence
from infra.sql_event_store import translate_errors

REFRESH_S = 5.0
FRESH_MS = 20_000
KEEP_MS = 7 * 24 * 3600 * 1000  # rows of seats and players away this long are forgotten

SeatKey = tuple[str, int]  # (match id, seat)


def _now_ms() -> int:
    return int(time.time() * 1000)


class Presence:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.process_id = uuid.uuid4().hex
        self._seats: Counter[SeatKey] = Counter()
        self._streams: Counter[str] = Counter()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._insert = dialect.insert

    async def arrive_at_seat(self, match_id: str, seat: int) -> None:
        """A seat's ``live`` socket opened on this process."""
        self._seats[(match_id, seat)] += 1
        await self._write_seat((match_id, seat))

    async def leave_seat(self, match_id: str, seat: int) -> None:
        key = (match_id, seat)
        self._seats[key] -= 1
        if self._seats[key] <= 0:
            del self._seats[key]
        await self._write_seat(key)

    async def arrive_on_stream(self, player_id: str) -> None:
        """A player stream opened on this process: present in each of the player's matches."""
        self._streams[player_id] += 1
        await self._write_stream(player_id)

    async def leave_stream(self, player_id: str) -> None:
        self._streams[player_id] -= 1
        if self._streams[player_id] <= 0:
            del self._streams[player_id]
        await self._write_stream(player_id)

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
        fresh = _now_ms() - FRESH_MS
        if any(sockets > 0 and updated > fresh for sockets, updated in rows):
            return None
        return max((updated for _, updated in rows), default=0)

    async def refresh(self) -> None:
        """Rewrite this process's rows of connected seats and streams; forget very old rows."""
        for key in list(self._seats):
            await self._write_seat(key)
        for player_id in list(self._streams):
            await self._write_stream(player_id)
        old = _now_ms() - KEEP_MS
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(delete(seat_presence).where(seat_presence.c.updated_ms < old))
                await conn.execute(
                    delete(stream_presence).where(stream_presence.c.updated_ms < old)
                )

    async def _write_seat(self, key: SeatKey) -> None:
        match_id, seat = key
        row = {"match_id": match_id, "seat": seat, "sockets": self._seats.get(key, 0)}
        await self._upsert(seat_presence, row, ["match_id", "seat", "process_id"])

    async def _write_stream(self, player_id: str) -> None:
        row = {"player_id": player_id, "sockets": self._streams.get(player_id, 0)}
        await self._upsert(stream_presence, row, ["player_id", "process_id"])

    async def _upsert(self, table: Table, row: dict[str, Any], key: list[str]) -> None:
        row = {**row, "process_id": self.process_id, "updated_ms": _now_ms()}
        upsert = self._insert(table).values(row)
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    upsert.on_conflict_do_update(
                        index_elements=key,
                        set_={"sockets": row["sockets"], "updated_ms": row["updated_ms"]},
                    )
                )
