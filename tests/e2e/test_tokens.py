"""Tokens a player can rotate, add and revoke, and that may expire: a dead token is a 401
on every process within a second, and every socket and stream it opened closes (4401)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.test_openapi_conformance import frame_validators

CACHE_S = 1.0  # server/known_tokens.py TRUST_S: how long any process may trust a token


async def status_of(url: str, token: str) -> int:
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        response = await client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
        if response.status_code == 401:
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["type"] == "/problems/unauthorized"
            assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        return response.status_code


async def closing_frames(ws: Any, timeout: float = 10) -> tuple[list[dict[str, Any]], int | None]:
    """Every frame until the server closes the socket, and its close code."""
    frames = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                frame = json.loads(await ws.recv())
                frames.append(frame)
                if frame["type"] == "ping" and "version" in frame:
                    await ws.send(json.dumps({"type": "pong"}))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None


def assert_revoked(frames: list[dict[str, Any]], code: int | None, channel: str) -> None:
    assert code == 4401, (code, frames[-3:])
    last = frames[-1]
    assert last["type"] == "error" and last["problem"]["rule"] == "unauthorized", last
    assert "revoked or has expired" in last["problem"]["detail"]
    operation = {"live": "receiveFeed", "player": "receivePlayer"}[channel]
    validators = frame_validators(channel, operation)
    errors = [e.message for e in validators["error"].iter_errors(last)]
    assert not errors, errors


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_rotate_add_and_revoke_every_token(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(database_url, tmp_path).start()
    player = await Player.create(server.url, "Ada")
    try:
        first = player.token
        extra = await player.client.post("/v1/me/tokens")
        assert extra.status_code == 201, extra.text
        second = extra.json()["token"]
        assert extra.json()["token_expires_at"] is None  # GINRUMMY_TOKEN_TTL_S=0: never

        rotated = await player.client.post("/v1/me/tokens/rotate")
        assert rotated.status_code == 200, rotated.text
        third = rotated.json()["token"]
        assert len({first, second, third}) == 3
        assert await status_of(server.url, first) == 401  # the rotated token died at once
        assert await status_of(server.url, second) == 200  # the others live on
        assert await status_of(server.url, third) == 200
        again = await player.client.post("/v1/me/tokens/rotate")
        assert again.status_code == 401, "a dead token cannot rotate again"
        me = await player.client.get("/v1/me", headers={"Authorization": f"Bearer {third}"})
        assert me.json()["id"] == player.id and me.json()["name"] == "Ada"

        # An open socket and an NDJSON stream of the second token, then sign out everywhere.
        async with websockets.connect(f"{server.ws_url}/v1/me/live?token={second}") as ws:
            ndjson = httpx.AsyncClient(base_url=server.url, timeout=30)
            headers = {"Authorization": f"Bearer {second}"}
            async with ndjson.stream("GET", "/v1/me/stream", headers=headers) as stream:
                lines = stream.aiter_lines()
                revoked = await ndjson.delete(
                    "/v1/me/tokens", headers={"Authorization": f"Bearer {third}"}
                )
                assert revoked.status_code == 204, revoked.text
                frames, code = await closing_frames(ws)
                assert_revoked(frames, code, "player")
                streamed = [json.loads(line) async for line in lines if line]
                assert streamed[-1]["type"] == "error", streamed[-3:]
                assert streamed[-1]["problem"]["rule"] == "unauthorized"
            await ndjson.aclose()
        for token in (first, second, third):
            assert await status_of(server.url, token) == 401
        async with websockets.connect(f"{server.ws_url}/v1/me/live?token={third}") as ws:
            frames, code = await closing_frames(ws)
            assert code == 4401 and frames[-1]["problem"]["rule"] == "unauthorized"
    finally:
        await player.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_token_expires_and_its_socket_closes(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_TOKEN_TTL_S="2").start()
    player = await Player.create(server.url)
    try:
        created = time.time()
        match = await player.new_match()  # the token works until it expires
        live = f"{server.ws_url}/v1/matches/{match['match_id']}/live?token={player.token}"
        async with websockets.connect(live) as ws:
            frames, code = await closing_frames(ws, timeout=15)
        assert time.time() - created >= 2 - 0.05, "closed before the token expired"
        assert_revoked(frames, code, "live")
        assert frames[0]["type"] == "snapshot"
        assert await status_of(server.url, player.token) == 401
        rotated = await player.client.post("/v1/me/tokens/rotate")
        assert rotated.status_code == 401, "an expired token cannot be rotated back to life"
    finally:
        await player.close()
        server.stop()


async def test_new_tokens_carry_their_expiry(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'ginrummy.sqlite3'}"
    server = ServerProcess(url, tmp_path, GINRUMMY_TOKEN_TTL_S="3600").start()
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            created = await client.post("/v1/players", json={"name": "Exp"})
            body = created.json()
            expires = body["token_expires_at"]
            from datetime import datetime

            left = datetime.fromisoformat(expires).timestamp() - time.time()
            assert 3500 < left <= 3600, expires
            headers = {"Authorization": f"Bearer {body['token']}"}
            rotated = await client.post("/v1/me/tokens/rotate", headers=headers)
            assert rotated.json()["token_expires_at"] is not None
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_token_revoked_on_one_process_is_dead_on_another_with_its_sockets(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    player = await Player.create(first.url)
    try:
        match = await player.new_match()
        assert await status_of(second.url, player.token) == 200  # the second process trusts it
        live = f"{second.ws_url}/v1/matches/{match['match_id']}/live?token={player.token}"
        async with websockets.connect(live) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            await asyncio.sleep(0.2)
            revoked = await player.client.delete("/v1/me/tokens")  # on the first process
            revoked_at = time.monotonic()
            assert revoked.status_code == 204, revoked.text
            frames, code = await closing_frames(ws)
        assert_revoked(frames, code, "live")
        await asyncio.sleep(max(0.0, revoked_at + CACHE_S + 0.05 - time.monotonic()))
        assert await status_of(second.url, player.token) == 401
        assert await status_of(first.url, player.token) == 401
        action = await player.client.post(
            f"/v1/matches/{match['match_id']}/actions", json={"action": {"type": "pass"}}
        )
        assert action.status_code == 401
        events = httpx.get(
            f"{second.url}/v1/matches/{match['match_id']}/events",
            headers={"Authorization": f"Bearer {player.token}"},
        )
        assert events.status_code == 401
    finally:
        await player.close()
        first.stop()
        second.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_player_and_lobby_sockets_take_the_token_in_a_first_message(
    server: ServerProcess,
) -> None:
    """A browser's WebSocket sends no header, and a proxy may log ``?token=``: the page
    signs in with an ``auth`` message, as on a match's socket; a wrong one is a 4401."""
    player = await Player.create(server.url, "Browser")
    try:
        # nothing is open for a new player: its stream's first frame is a ping, at once
        for path, first_type in (("/v1/me/live", "ping"), ("/v1/tables/live", "tables")):
            async with websockets.connect(server.ws_url + path) as ws:
                await ws.send(json.dumps({"type": "auth", "token": player.token}))
                assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == first_type
                match = await player.new_match()  # the player stream announces it
                if path == "/v1/me/live":
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    assert (frame["type"], frame["match_id"]) == (
                        "match_started",
                        match["match_id"],
                    )
            for wrong in ({"type": "auth", "token": "nope"}, {"type": "ping"}, "not json"):
                async with websockets.connect(server.ws_url + path) as ws:
                    await ws.send(wrong if isinstance(wrong, str) else json.dumps(wrong))
                    frames, code = await closing_frames(ws)
                    assert code == 4401, (path, wrong, frames)
                    assert frames[-1]["problem"]["rule"] == "unauthorized", frames
    finally:
        await player.close()
