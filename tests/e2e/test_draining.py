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


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_requests_drain_time_is_a_setting(database_url: str, tmp_path: Path) -> None:
    """``GINRUMMY_DRAIN_REQUESTS_S=1``: a request still in flight (its body half sent,
    with a minute allowed for it) is cut after one second, not the fixed ten of before."""
    server = ServerProcess(
        database_url,
        tmp_path,
        GINRUMMY_DRAIN_REQUESTS_S="1",
        GINRUMMY_DRAIN_ACTIONS_S="0",
        GINRUMMY_BODY_TIMEOUT_S="60",
    ).start()
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 20\r\n\r\n{"
        )
        await writer.drain()
        await asyncio.sleep(0.3)
        assert server.proc is not None
        began = asyncio.get_running_loop().time()
        server.proc.terminate()
        await asyncio.to_thread(server.proc.wait, 15)
        took = asyncio.get_running_loop().time() - began
        writer.close()
    finally:
        server.stop()
    assert 0.9 < took < 5, took
    assert CUT_OFF in server.log_path.read_text()


@pytest.mark.parametrize("variable", ["GINRUMMY_DRAIN_REQUESTS_S", "GINRUMMY_DRAIN_ACTIONS_S"])
@pytest.mark.parametrize(
    ("value", "said"),
    [("ten", "is not a number"), ("-1", "must be 0–3600 seconds"), ("nan", "not a finite")],
)
def test_a_bad_drain_time_stops_the_server_at_start(
    tmp_path: Path, variable: str, value: str, said: str
) -> None:
    import subprocess

    from tests.e2e.harness import GINRUMMY

    done = subprocess.run(
        [str(GINRUMMY), "serve", "--port", "18297"],
        cwd=tmp_path,
        env={variable: value, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert f"{variable}={value!r} " in done.stderr and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
