"""The live lobby's answer to its viewer's own block (``after_own_blocks``) when the
database fails that read: the socket stays, and the block is shown once a read answers."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from domain.blocks import stream_of
from infra.errors import StoreUnavailable
from server.fanout import Hub
from server.renames import Renames
from server.schemas import PlayerRef
from server.ws import lobby as lobby_module


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
