"""A server asked to stop (SIGTERM, as a restart or a deploy does) tells its streams:
the NDJSON player stream ends with an ``error`` line (``server_restarting``) and a
complete response, the sockets close with 1012, and the process does not sit out
uvicorn's graceful-shutdown timeout waiting for a stream that never ends."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.test_openapi_conformance import frame_validators

CUT_OFF = "timeout graceful shutdown exceeded"  # what uvicorn logs when it gives up waiting


@pytest.mark.parametrize(
    ("database_url", "workers"), [("sqlite", "1"), ("postgres", "2")], indirect=["database_url"]
)
async def test_a_stopping_server_ends_its_streams_with_a_word_and_stops_at_once(
    database_url: str, workers: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_WORKERS=workers).start()
    player = await Player.create(server.url, "Bot")
    try:
        match = await player.new_match(rules={"preset": "classic", "target": 100})
        match_id = match["match_id"]
        lines: list[dict[str, Any]] = []
        async with (
            player.client.stream("GET", "/v1/me/stream") as stream,
            websockets.connect(
                f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
            ) as socket,
        ):
            assert stream.status_code == 200
            reading = aiter(stream.aiter_lines())
            first = json.loads(await asyncio.wait_for(anext(reading), 10))
            assert (first["type"], first["match_id"]) == ("match_started", match_id)
            assert json.loads(await socket.recv())["type"] == "snapshot"
            assert server.proc is not None
            server.proc.terminate()
            async with asyncio.timeout(15):
                lines = [json.loads(line) async for line in reading if line]  # to a clean end
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        last = lines[-1]
        assert last["type"] == "error", lines
        assert (last["problem"]["rule"], last["problem"]["status"]) == ("server_restarting", 503)
        validators = frame_validators("player", "receivePlayer")
        assert not [e.message for e in validators["error"].iter_errors(last)]
        assert server.proc.wait(15) is not None
        assert CUT_OFF not in server.log_path.read_text()
    finally:
        await player.close()
        server.stop()
