"""A quiet player stream and a quiet lobby feed ping on time while other matches move.

Found on a club night: with matches being played elsewhere on the server, an idle
bot's player stream (``GET /v1/me/stream``) and the lobby's ``WS /v1/tables/live``
sent no ``ping`` for minutes, so ``examples/bot.py`` (60 s read timeout) hung up and
reconnected every minute, and a proxy that closes idle connections would have too. The
cause: every stream that moved anywhere woke them, and a ping was only sent after a
wake-up-free interval, which a busy server never has.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import websockets

from tests.e2e.harness import Player, ServerProcess

PING_S = 1.0


async def busy_server(database_url: str, tmp_path: Path) -> tuple[ServerProcess, Player, str]:
    """A server whose log moves every 0.1 s: two house AIs play at that pace."""
    server = ServerProcess(
        database_url, tmp_path, GINRUMMY_STREAM_PING_S=str(PING_S), GINRUMMY_AI_PACE_MS="100"
    ).start()
    host = await Player.create(server.url, "Host")
    started = await host.client.post(
        "/v1/house-matches", json={"seats": ["ai:easy", "ai:easy"], "rules": "classic"}
    )
    assert started.status_code == 201, started.text
    return server, host, started.json()["match_id"]


async def still_moving(host: Player, match_id: str, since: int) -> int:
    """The house match's version, asserting that it moved (the server stayed busy)."""
    answer = await host.client.get(f"/v1/matches/{match_id}/spectator")
    version: int = answer.json()["version"]
    assert version > since or answer.json()["view"]["phase"] == "match_over", version
    return version


async def test_an_idle_player_stream_pings_while_other_matches_move(
    database_url: str, tmp_path: Path
) -> None:
    server, host, match_id = await busy_server(database_url, tmp_path)
    idle = await Player.create(server.url, "Idle")
    try:
        before = await still_moving(host, match_id, -1)
        pings: list[float] = []
        start = time.monotonic()
        async with idle.client.stream("GET", "/v1/me/stream") as stream:
            lines = stream.aiter_lines()
            while time.monotonic() - start < 4 * PING_S:
                frame: dict[str, Any] = json.loads(await asyncio.wait_for(anext(lines), 5))
                assert frame["type"] == "ping", frame  # nothing of its own to hear
                pings.append(time.monotonic() - start)
        await still_moving(host, match_id, before)
        # nothing open: a ping at once; then one each second of its own quiet, however
        # often other streams moved
        assert pings[0] < 0.5 * PING_S, pings
        timed = pings[1:]
        assert len(timed) >= 3, pings
        assert timed[0] - pings[0] < 2.5 * PING_S, pings
    finally:
        await idle.close()
        await host.close()
        server.stop()


async def test_the_lobby_feed_pings_while_other_matches_move(
    database_url: str, tmp_path: Path
) -> None:
    server, host, match_id = await busy_server(database_url, tmp_path)
    try:
        before = await still_moving(host, match_id, -1)
        frames: list[tuple[float, str]] = []
        start = time.monotonic()
        async with websockets.connect(
            f"{server.ws_url}/v1/tables/live",
            additional_headers={"Authorization": f"Bearer {host.token}"},
        ) as ws:
            while time.monotonic() - start < 4 * PING_S:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                frames.append((time.monotonic() - start, frame["type"]))
        await still_moving(host, match_id, before)
        assert frames[0][1] == "tables", frames
        pings = [at for at, kind in frames if kind == "ping"]
        assert len(pings) >= 3, frames
    finally:
        await host.close()
        server.stop()
