"""A connection must send its request's headers within ``GINRUMMY_HEADER_TIMEOUT_S``:
one that sends nothing, or trickles its headers a line at a time (a "slowloris"), is
closed; kept-alive clients and WebSockets are not cut short by it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, as_action, opened


async def closed_by_server(reader: asyncio.StreamReader, limit_s: float) -> bytes:
    """What the server sent before closing; fails if it holds on past ``limit_s``."""
    return await asyncio.wait_for(reader.read(), limit_s)


async def trickle(port: int, stop: asyncio.Event) -> tuple[float, bytes]:
    """Open a request and send one more header line every 0.2 s until the server closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    n = 0
    while not reader.at_eof() and not stop.is_set():
        try:
            writer.write(b"X-Slow-%d: y\r\n" % n)
            await writer.drain()
        except ConnectionError:
            break
        n += 1
        try:
            await asyncio.wait_for(reader.read(), 0.2)
            break  # closed
        except TimeoutError:
            continue
        except ConnectionError:  # closed too: a socket closed with our lines unread resets
            break
    writer.close()
    return time.monotonic() - started, b""


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_connections_whose_headers_do_not_arrive_are_closed(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_HEADER_TIMEOUT_S="1").start()
    try:
        started = time.monotonic()
        silent = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(100)]
        stop = asyncio.Event()
        tricklers = [asyncio.create_task(trickle(server.port, stop)) for _ in range(50)]
        for reader, writer in silent:  # each closed by the server, without an answer
            assert await closed_by_server(reader, 15) == b""
            writer.close()
        assert time.monotonic() - started >= 0.9, "closed before its time"
        try:
            waited = await asyncio.wait_for(asyncio.gather(*tricklers), 15)
        finally:
            stop.set()
        for seconds, _ in waited:  # trickling did not keep them open
            assert 0.9 <= seconds < 5, seconds  # a 1 s deadline, with room for a busy machine
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_first_byte_late_in_the_deadline_does_not_restart_it(
    database_url: str, tmp_path: Path
) -> None:
    """The first request's headers are due a deadline after the connection opened: a
    client silent until just before it, then sending a byte, gets no second deadline."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_HEADER_TIMEOUT_S="1").start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        opened = time.monotonic()
        await asyncio.sleep(0.7)
        writer.write(b"G")
        await writer.drain()
        assert await closed_by_server(reader, 15) == b""
        writer.close()
        held = time.monotonic() - opened
        assert 0.9 <= held < 1.5, f"held open {held:.2f} s for a deadline of 1 s"
    finally:
        server.stop()


async def ask_health(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """``GET /healthz`` on an open connection, its answer read whole."""
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    assert head.startswith(b"HTTP/1.1 200 "), head
    length = int(
        next(
            line.split(b":")[1]
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
    )
    await reader.readexactly(length)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_idle_connection_outlasts_a_clients_own_keep_alive(
    database_url: str, tmp_path: Path
) -> None:
    """A client reuses an idle connection until its own keep-alive runs out (httpx's 5 s,
    a proxy's 60 s): a server that closes first, as uvicorn's 5 s default did, can close
    it as the next request is sent, which is lost ("Server disconnected without sending a
    response", seen in CI). The server keeps it longer than they do."""
    server = ServerProcess(database_url, tmp_path).start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        await ask_health(reader, writer)
        await asyncio.sleep(6)  # past httpx's keep-alive and uvicorn's default
        await ask_health(reader, writer)  # the same connection: still open
        writer.close()
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_kept_alive_clients_and_sockets_outlive_the_header_deadline(
    database_url: str, tmp_path: Path
) -> None:
    """The deadline counts to each request's headers, not the connection's age."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_HEADER_TIMEOUT_S="1").start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        for _ in range(3):  # 2.1 s on one connection, each request prompt
            await ask_health(reader, writer)
            await asyncio.sleep(0.7)
        writer.close()

        player = await Player.create(server.url)
        match = await player.new_match()
        watch = f"{server.ws_url}/v1/matches/{match['match_id']}/watch"
        async with websockets.connect(watch) as ws:
            assert (await opened(ws))["type"] == "snapshot"
            await asyncio.sleep(1.5)  # past the header deadline, the socket still hears moves
            action = as_action(match["view"]["legal"][0])
            moved = await player.act(match["match_id"], action, match["version"])
            assert moved.status_code == 200, moved.text
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["type"] == "event", frame
        await player.close()
    finally:
        server.stop()
