"""``GET /v1/bots/online`` lists the bots waiting for challenges: those with a player stream open.

A real server on each store. Bots and a person open and close their player streams
(plain HTTP, as ``examples/bot.py`` reads it); the list follows, by name, and never
names the person, whose open stream is theirs to tell. A stream that ends is noticed at
its next ping, a second here (``GINRUMMY_STREAM_PING_S``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player
from tests.e2e.server_log import serving


async def bot(url: str, name: str) -> Player:
    client = httpx.AsyncClient(base_url=url, timeout=30)
    made = await client.post("/v1/players", json={"name": name, "kind": "bot"})
    assert made.status_code == 201, made.text
    client.headers["Authorization"] = f"Bearer {made.json()['token']}"
    return Player(client, made.json()["token"], made.json()["id"])


@contextlib.asynccontextmanager
async def listening(player: Player) -> AsyncIterator[None]:
    """The player's stream, open and read as a bot reads it (its presence is written
    before its first line); closed on the way out."""
    async with player.client.stream("GET", "/v1/me/stream") as stream:
        lines = stream.aiter_lines()
        assert json.loads(await asyncio.wait_for(anext(lines), 10))["type"]

        async def read_on() -> None:
            async for _ in lines:
                pass

        reader = asyncio.create_task(read_on())
        try:
            yield
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader


async def online(url: str, **params: int) -> list[str]:
    async with httpx.AsyncClient(base_url=url, timeout=10) as anonymous:  # no token needed
        answer = await anonymous.get("/v1/bots/online", params=params)
    assert answer.status_code == 200, answer.text
    listed = answer.json()["players"]
    assert all(p["kind"] == "bot" and p["rating"]["provisional"] for p in listed), listed
    return [p["name"] for p in listed]


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_bots_are_listed_while_their_stream_is_open(
    database_url: str, tmp_path: Path
) -> None:
    with serving(database_url, tmp_path, GINRUMMY_STREAM_PING_S="1") as server:
        url = server.url
        beta, alpha = await bot(url, "Beta"), await bot(url, "Alpha")
        carol = await Player.create(url, "Carol")
        assert await online(url) == []
        async with listening(beta), listening(carol):
            assert await online(url) == ["Beta"]  # the person's stream is not told
            async with listening(alpha):
                assert await online(url) == ["Alpha", "Beta"]  # by name
                assert await online(url, limit=1) == ["Alpha"]
            deadline = time.monotonic() + 10
            while (names := await online(url)) != ["Beta"]:
                assert time.monotonic() < deadline, names  # noticed at the next ping
                await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=url, timeout=10) as anonymous:
            refused = await anonymous.get("/v1/bots/online", params={"limit": 0})
        assert refused.status_code == 422, refused.text
        assert refused.json()["rule"] == "invalid_request"
        assert refused.headers["content-type"].startswith("application/problem+json")
        for player in (alpha, beta, carol):
            await player.close()
