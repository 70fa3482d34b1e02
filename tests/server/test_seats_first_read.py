"""A match socket's first ``seats`` frame, and a rename told while its read is in flight:
the socket is woken for it, and its pump reads the names again and sends them, after
the first frame (the first read may have been answered before the rename was made)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

from domain.rules import make_rules
from infra.store import open_store
from server.fanout import Hub
from server.match_service import MatchService
from server.renames import Renames
from server.schemas import PlayerRef
from server.ws.live import LiveSession


async def test_a_rename_told_during_the_first_read_of_the_seats_is_sent_after_it(
    sqlite_url: str,
) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        matches = MatchService(store)
        match_id = await matches.start(("p0", "p1"), make_rules("classic", target=100), "names")
        hub, renames = Hub(), Renames()
        reads: list[str] = []

        async def player_refs(players: list[str]) -> list[PlayerRef]:
            reads.append("read")
            bob = "Bob" if len(reads) == 1 else "Bob B"
            if len(reads) == 1:
                renames.told("p1")  # as the first read is in flight: it answered before
                await asyncio.sleep(0)
            return [PlayerRef("p0", "Ann", "person", None), PlayerRef("p1", bob, "person", None)]

        services: Any = SimpleNamespace(
            hub=hub,
            renames=renames,
            matches=matches,
            player_refs=player_refs,
            settings=SimpleNamespace(ws_queue_size=64, ws_heartbeat_s=15.0),
        )
        session = LiveSession(SimpleNamespace(), services, match_id)
        session.seat = None  # a spectator: no presence to follow
        record = await matches.load(match_id)
        await session.start(record)
        pump = asyncio.create_task(session.pump())
        try:
            frames = []
            async with asyncio.timeout(3):
                while len([f for f in frames if f["type"] == "seats"]) < 2:
                    frames.append(json.loads(await session.queue.get()))
        finally:
            pump.cancel()
            session.names.close()  # type: ignore[union-attr]
        seats = [[s["name"] for s in f["seats"]] for f in frames if f["type"] == "seats"]
        assert frames[0]["type"] == "snapshot" and frames[1]["type"] == "seats", frames
        assert seats == [["Ann", "Bob"], ["Ann", "Bob B"]]
        assert all(f["version"] == record.state.version for f in frames)
    finally:
        await store.close()
