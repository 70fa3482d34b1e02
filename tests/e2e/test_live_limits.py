"""Live sockets that misbehave: a client that stops reading, goes silent, or resumes in a loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
from pathlib import Path
from typing import Any

import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from server.ws.live import RESUMES_ALLOWED
from tests.e2e.harness import Player, ServerProcess, as_action, opened, wait_for
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.test_openapi_conformance import Checker, frame_validators


def tiny_buffer_socket(port: int) -> socket.socket:
    """A client socket with the smallest receive buffer, so a non-reader backs up fast."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    return sock


async def drain(ws: Any) -> tuple[list[dict[str, Any]], int | None]:
    frames = []
    try:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), 15)))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return frames, -1


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_dead_client_is_dropped_and_stalls_nobody(
    database_url: str, tmp_path: Path
) -> None:
    """A client that neither reads nor answers pings is closed while the match goes on."""
    # 1 s, not 0.2: the reader must answer within three heartbeats, and on a loaded machine
    # (a CI rehearsal at load 16) this test's own loop answered a 0.2 s ping too late
    server = ServerProcess(database_url, tmp_path, GINRUMMY_WS_HEARTBEAT_S="1").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="dead", rules={"preset": "classic", "target": 60})
        match_id = match["match_id"]
        path = f"/v1/matches/{match_id}/live?token={player.token}"
        dead = await websockets.connect(
            server.ws_url + path, sock=tiny_buffer_socket(server.port), max_queue=1
        )
        reader_frames: list[dict[str, Any]] = []

        async def read_all() -> None:
            async with websockets.connect(server.ws_url + path) as ws:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    reader_frames.append(frame)
                    if frame["type"] == "ping":
                        await ws.send(json.dumps({"type": "pong"}))
                    if frame.get("view", {}).get("phase") == "match_over":
                        return

        reading = asyncio.create_task(read_all())
        await wait_for(lambda: reader_frames)  # its snapshot, before the first move
        rng = random.Random(1)
        view, version = match["view"], match["version"]
        while view["phase"] != "match_over":
            response = await player.act(match_id, as_action(rng.choice(view["legal"])), version)
            assert response.status_code == 200, response.text
            view, version = response.json()["view"], response.json()["version"]
            await asyncio.sleep(0.01)
        await asyncio.wait_for(reading, 30)
        events = [f["version"] for f in reader_frames if f["type"] == "event"]
        assert events == list(range(match["version"] + 1, version + 1)), "reader got every event"

        _, code = await drain(dead)
        # 4000 when the close frame fits in its full buffers; None when the server had to
        # drop the connection without one; -1 (still open after 15 s) would be the failure
        assert code in (4000, None), "the silent client was closed for missing heartbeats"
        await player.close()
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_client_that_falls_a_queue_behind_is_closed_and_resumes(
    database_url: str, tmp_path: Path
) -> None:
    """With a one-frame queue, an append of two events (the AI's turn) overflows it."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_WS_QUEUE_SIZE="1").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="burst")
        match_id = match["match_id"]
        path = f"/v1/matches/{match_id}/live?token={player.token}"
        rng = random.Random(5)
        view, version = match["view"], match["version"]
        async with websockets.connect(server.ws_url + path) as ws:
            snapshot = json.loads(await ws.recv())
            while True:
                response = await player.act(match_id, as_action(rng.choice(view["legal"])), version)
                body = response.json()
                view, version = body["view"], body["version"]
                if len(body["events"]) >= 3:
                    break
            frames, code = await drain(ws)
        assert code == 4408
        seen = max([snapshot["version"], *(f["version"] for f in frames if f["type"] == "event")])
        assert seen < version
        async with websockets.connect(server.ws_url + path) as ws:
            assert (await opened(ws))["version"] == version
            await ws.send(json.dumps({"type": "resume", "after": seen}))
            resync = json.loads(await asyncio.wait_for(ws.recv(), 5))
        # a gap longer than half the queue is answered with a fresh snapshot, not replayed
        assert resync["type"] == "snapshot" and resync["version"] == version
        assert resync["view"] == (await player.view(match_id))["view"]
        await player.close()
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_heartbeats_keep_a_live_client_and_close_a_silent_one(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_WS_HEARTBEAT_S="0.3").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="beat")
        path = f"/v1/matches/{match['match_id']}/live?token={player.token}"
        async with websockets.connect(server.ws_url + path) as silent:
            frames, code = await drain(silent)
        assert code == 4000
        assert [f["type"] for f in frames[1:]] == ["seats", "ping", "ping"]
        assert all(f["version"] == match["version"] for f in frames)

        async with websockets.connect(server.ws_url + path) as polite:
            pings = 0
            while pings < 6:
                frame = json.loads(await asyncio.wait_for(polite.recv(), 5))
                if frame["type"] == "ping":
                    pings += 1
                    await polite.send(json.dumps({"type": "pong"}))
            await polite.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(polite.recv(), 5))["type"] in ("pong", "ping")
        await player.close()
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_socket_action_cut_off_by_its_client_still_gets_the_ais_reply(
    server: ServerProcess, database_url: str
) -> None:
    """A connection dropped right after an action must not leave the AI's reply unwritten.

    Reading a match (HTTP or a new socket) lets the AI catch up, which would hide the
    stall, so the log is read from the store itself.
    """
    from domain.match import fold
    from infra.store import open_store

    player = await Player.create(server.url)
    store = await open_store(database_url, migrate=False)
    match_id = (await player.new_match(level="hard", seed="cut-off"))["match_id"]
    url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
    rng = random.Random(5)
    stalled, applied = [], 0
    try:
        for trial in range(24):
            before = await player.view(match_id)
            if before["view"]["phase"] == "match_over":
                break
            action = as_action(rng.choice(before["view"]["legal"]))
            ws = await websockets.connect(url)
            assert json.loads(await ws.recv())["type"] == "snapshot"
            await ws.send(json.dumps({"type": "action", "action": action}))
            await asyncio.sleep(0.002)
            ws.transport.abort()  # the connection drops: no close handshake
            # Give the action and the AI's reply 1.5 s, ending early once both are in.
            deadline = asyncio.get_running_loop().time() + 1.5
            while True:
                state = fold(r.event for r in await store.read_stream(match_id))
                replied = state.version > before["version"] and state.to_act() != (1,)
                if replied or asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.05)
            applied += state.version > before["version"]
            if state.to_act() == (1,):
                stalled.append(trial)
    finally:
        await store.close()
        await player.close()
    assert applied >= 12
    assert not stalled, f"the AI never replied after trials {stalled}"
    assert "live socket failed" not in server.log_path.read_text()  # a drop is no error


async def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next frame of this type (snapshots, chat and pings may come first)."""
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == kind:
            return frame


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_message_over_the_limit_gets_an_error_frame_and_the_socket_stays(
    database_url: str, tmp_path: Path
) -> None:
    """Over ``GINRUMMY_WS_MAX_MESSAGE_BYTES``: an ``error`` frame ``payload_too_large``
    and the socket goes on, as docs/api.md's Limits table says (once the WebSocket layer
    closed it with a bare 1009). Over four times the limit the WebSocket layer's hard
    ceiling closes with 1009, so what one socket can make the server hold stays bounded."""
    server = ServerProcess(database_url, tmp_path).start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="big")
        match_id = match["match_id"]
        too_long = json.dumps({"type": "chat", "text": "x" * 16470})  # 16 KiB + a bit
        multibyte = json.dumps({"type": "chat", "text": "é" * 9000}, ensure_ascii=False)
        assert len(multibyte) < 16384 < len(multibyte.encode())  # the limit is in bytes
        sockets = {
            "live": f"/v1/matches/{match_id}/live?token={player.token}",
            "watch": f"/v1/matches/{match_id}/watch?watch_code={match['watch_code']}",
            "player": f"/v1/me/live?token={player.token}",
        }
        for name, path in sockets.items():
            async with websockets.connect(server.ws_url + path) as ws:
                for message in (too_long, multibyte, too_long.encode()):  # text and binary
                    await ws.send(message)
                    error = await next_of(ws, "error")
                    assert error["problem"]["status"] == 413, (name, error)
                    assert error["problem"]["type"] == "/problems/payload-too-large", (name, error)
                if name != "player":  # the player socket answers nothing; it stays open
                    await ws.send(json.dumps({"type": "ping"}))
                    assert (await next_of(ws, "pong"))["version"] == match["version"]
                    await ws.send(json.dumps({"type": "ping"}).encode())  # binary, as text
                    assert (await next_of(ws, "pong"))["version"] == match["version"]
                else:
                    await ws.send(too_long)
                    assert (await next_of(ws, "error"))["problem"]["status"] == 413

            async with websockets.connect(server.ws_url + path) as ws:
                await ws.send(json.dumps({"type": "chat", "text": "x" * (4 * 16384)}))
                frames, code = await drain(ws)
                assert code == 1009, (name, frames)
                assert all(frame["type"] != "error" for frame in frames), (name, frames)
        await player.close()
        log = server.log_path.read_text()
        assert "Traceback" not in log, log
    finally:
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_address_holds_at_most_so_many_sockets_and_streams(
    database_url: str, tmp_path: Path
) -> None:
    """Past ``GINRUMMY_CONNECTIONS_PER_ADDRESS`` (watch sockets need no token; one
    address opened 400): a socket hears ``too_many_connections`` and closes 4429, a
    player stream is a 429; closing one lets the next in, and plain requests go on."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_CONNECTIONS_PER_ADDRESS="3").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="many")
        watch_url = (  # a match from a chosen seed is watched with its code
            f"{server.ws_url}/v1/matches/{match['match_id']}/watch?watch_code={match['watch_code']}"
        )
        async with contextlib.AsyncExitStack() as held:
            sockets = [await held.enter_async_context(websockets.connect(watch_url)) for _ in "abc"]
            for ws in sockets:
                assert (await next_of(ws, "snapshot"))["version"] == match["version"]
            for path, channel in (
                (watch_url, ("watch", "receiveWatch")),
                (f"{server.ws_url}/v1/me/live?token={player.token}", ("player", "receivePlayer")),
            ):
                async with websockets.connect(path) as refused:
                    frames, code = await drain(refused)
                assert code == 4429, frames
                assert [f["problem"]["rule"] for f in frames] == ["too_many_connections"]
                validator = frame_validators(*channel)["error"]
                assert not [e.message for e in validator.iter_errors(frames[0])], frames
            # the router takes other spellings of the stream's path too (a review's find)
            for path in ("/v1/me/stream", "/v1/me/stream/", "/v1/me//stream", "/v1/me/stream%2F"):
                stream = await player.client.get(path)
                assert stream.status_code == 429, (path, stream.text)
                assert stream.headers["content-type"] == "application/problem+json"
                assert stream.headers["x-content-type-options"] == "nosniff"  # as every answer
                assert stream.json()["rule"] == "too_many_connections"
                Checker().check(stream, "/v1/me/stream")  # as documented: no Retry-After
            assert (await player.view(match["match_id"]))["version"] == match["version"]
            await sockets.pop().close()  # its place is free once the server has let it go
            for _ in range(50):
                async with websockets.connect(watch_url) as again:
                    first = json.loads(await asyncio.wait_for(again.recv(), 10))
                if first["type"] == "snapshot":
                    break
                assert first["problem"]["rule"] == "too_many_connections", first
                await asyncio.sleep(0.1)
            assert first["type"] == "snapshot", first
        await player.close()
    finally:
        server.stop()


def of(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [frame for frame in frames if frame["type"] == kind]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_socket_that_resumes_in_a_loop_is_refused_and_stays_open(
    database_url: str, tmp_path: Path
) -> None:
    """Each resume may send half a queue of frames, and ``watch`` needs no token: past
    RESUMES_ALLOWED in the window a resume gets an ``error`` frame ``rate_limited`` with
    ``retry_after`` and is not performed; the socket goes on. What the resumes allowed
    replay (from a kept state, not the match's start) still hides every secret card."""
    server = ServerProcess(database_url, tmp_path).start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="loop", rules={"preset": "classic", "target": 500})
        match_id, view, version = match["match_id"], match["view"], match["version"]
        rng = random.Random(7)
        while version < 45:  # past a kept state (every 32 versions) and then some
            legal = [a for a in view["legal"] if a["type"] != "resign"]
            body = (await player.act(match_id, as_action(rng.choice(legal)), version)).json()
            view, version = body["view"], body["version"]
        after = version - 10
        sockets = {
            "watch": (
                f"/v1/matches/{match_id}/watch?watch_code={match['watch_code']}",
                None,
                ("watch", "receiveWatch"),
            ),
            "live": (
                f"/v1/matches/{match_id}/live?token={player.token}",
                0,
                ("live", "receiveFeed"),
            ),
        }
        received: dict[str, list[dict[str, Any]]] = {}
        for name, (path, _, _) in sockets.items():
            frames = received[name] = []
            async with websockets.connect(server.ws_url + path) as ws:
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                assert frames[0]["type"] == "snapshot" and frames[0]["version"] == version
                for _ in range(RESUMES_ALLOWED + 3):
                    await ws.send(json.dumps({"type": "resume", "after": after}))
                await ws.send(json.dumps({"type": "ping"}))

                # the pong, the three refusals, and the replay of a resume allowed
                while not (
                    of(frames, "pong")
                    and len(of(frames, "error")) == 3
                    and any(f["version"] == version for f in of(frames, "event"))
                ):
                    frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            refusals = of(frames, "error")
            assert len(refusals) == 3, (name, refusals)
            for refusal in refusals:
                problem = refusal["problem"]
                assert (problem["rule"], problem["status"]) == ("rate_limited", 429), refusal
                assert problem["type"] == "/problems/rate-limited", refusal
                assert 1 <= refusal["retry_after"] <= 10, refusal
                assert "resumes" in problem["detail"], refusal
            replayed = [f["version"] for f in of(frames, "event")]
            assert replayed[: version - after] == list(range(after + 1, version + 1)), name
        log = (await player.events(match_id))["events"]  # seat 0's redaction: the match runs
        live_events = [f for f in received["live"] if f["type"] == "event"][: version - after]
        assert [f["event"] for f in live_events] == [e["event"] for e in log[after:version]]
        assert live_events[-1]["view"] == received["live"][0]["view"]  # as the snapshot

        resigned = await player.act(match_id, {"type": "resign"})
        assert resigned.status_code == 200, resigned.text
        states = states_by_version((await player.events(match_id))["events"])  # complete now
        for name, (_, seat, (channel, operation)) in sockets.items():
            validators = frame_validators(channel, operation)
            recorder = Recorder()
            for frame in received[name]:
                errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
                assert not errors, (name, frame["type"], errors[:3])
                recorder.add(frame["version"], frame)
            assert recorder.assert_no_leaks(states, seat) == len(received[name])
        await player.close()
    finally:
        server.stop()


async def test_a_one_frame_queue_opens_a_socket_whose_seats_need_no_read(
    database_url: str, tmp_path: Path
) -> None:
    """The seats of a match of two unrated house levels are named without a database
    read: as the socket starts, its seats frame was queued before the writer had taken
    the snapshot, and a one-frame queue overflowed in ``start``, before any frame went."""
    server = ServerProcess(
        database_url, tmp_path, GINRUMMY_WS_QUEUE_SIZE="1", GINRUMMY_AI_PACE_MS="60000"
    ).start()
    host = await Player.create(server.url, "Host")
    try:
        created = await host.client.post(
            "/v1/house-matches", json={"seats": ["ai:random", "ai:random"]}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        async with websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as ws:
            snapshot = await opened(ws)
            assert snapshot["type"] == "snapshot", snapshot
    finally:
        await host.close()
        server.stop()
