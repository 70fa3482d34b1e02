"""The live lobby's answer to its viewer's own block (``after_own_blocks``) when the
database fails that read: the socket stays, and the block is shown once a read answers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from domain.blocks import stream_of
from infra.errors import StoreUnavailable
from server.fanout import Hub
from server.renames import Renames
from server.schemas import PlayerRef
from server.ws import lobby as lobby_module


async def next_while_busy(
    hub: Hub, frames: AsyncIterator[dict[str, Any]], moves: int
) -> dict[str, Any]:
    """The feed's next frame (within 4 s) on a busy server, a move made somewhere every
    10 ms (``moves`` of them), each a wake; the feed is closed after."""

    async def move() -> None:
        for version in range(1, moves):
            hub.publish("m1", version)
            await asyncio.sleep(0.01)

    busy = asyncio.create_task(move())
    try:
        async with asyncio.timeout(4):
            return await anext(frames)
    finally:
        busy.cancel()
        await frames.aclose()


def ref(player_id: str) -> PlayerRef:
    return PlayerRef(id=player_id, name=player_id.title(), kind="person", rating=None)


async def test_a_failed_read_after_the_viewers_block_keeps_the_socket_and_is_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = SimpleNamespace(table_id="t1", host=ref("ada"))
    answers: list[Any] = [[table], StoreUnavailable("down"), []]

    async def public_table_views(*_: Any) -> list[Any]:
        answer = answers.pop(0) if answers else []
        if isinstance(answer, Exception):
            raise answer
        return list(answer)

    async def blocks(blocker: str, blocked: str) -> bool:
        return (blocker, blocked) == ("cleo", "ada")

    monkeypatch.setattr(lobby_module, "public_table_views", public_table_views)
    hub = Hub()
    services = SimpleNamespace(
        hub=hub,
        renames=Renames(),
        settings=SimpleNamespace(stream_ping_s=0.3),
        blocks=SimpleNamespace(blocks=blocks),
    )
    frames = lobby_module.lobby_frames(services, "cleo")  # type: ignore[arg-type]
    assert (await anext(frames))["type"] == "tables"
    hub.publish(stream_of("cleo"), 1)  # Cleo blocked Ada elsewhere; the read fails
    got: list[dict[str, Any]] = []
    try:
        async with asyncio.timeout(3):
            while not any(f["type"] == "table_closed" for f in got):
                got.append(await anext(frames))
    finally:
        await frames.aclose()
    assert {"type": "table_closed", "table_id": "t1", "status": "blocked"} in got


async def test_a_failed_read_of_a_renamed_hosts_table_waits_for_its_back_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every match's move wakes a lobby socket: a read of a renamed host's table that the
    database failed was made again at each wake, by every lobby socket of the process, in
    a tight loop while the database was down. It now waits for a back-off, and the new
    name is sent once a read answers."""
    table = SimpleNamespace(table_id="t1", host=ref("ada"))
    reads: list[float] = []

    async def public_table_views(*_: Any) -> list[Any]:
        return [table]

    async def renamed_hosts(*_: Any) -> list[Any]:
        reads.append(asyncio.get_running_loop().time())
        if len(reads) < 3:
            raise StoreUnavailable("down")
        return [SimpleNamespace(table_id="t1", host=PlayerRef("ada", "Ada B", "person", None))]

    monkeypatch.setattr(lobby_module, "public_table_views", public_table_views)
    monkeypatch.setattr(lobby_module, "renamed_hosts", renamed_hosts)
    hub, renames = Hub(), Renames()
    services = SimpleNamespace(hub=hub, renames=renames, settings=SimpleNamespace(stream_ping_s=5))
    frames = lobby_module.lobby_frames(services, "cleo")  # type: ignore[arg-type]
    assert (await anext(frames))["type"] == "tables"
    renames.told("ada")

    frame = await next_while_busy(hub, frames, moves=400)
    assert frame["type"] == "table" and frame["table"].host.name == "Ada B"
    assert len(reads) == 3, reads  # not one a wake: the first, then after 0.5 s and 1 s
    assert reads[1] - reads[0] >= 0.45 and reads[2] - reads[1] >= 0.9
