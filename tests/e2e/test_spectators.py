"""Spectators on a real server: what they see, who may watch, and how many there are.

A spectator holds no hand, so the oracle lets it know only what is public to both
seats; every frame and answer it gets is checked against the complete log at the end,
and every watch frame against asyncapi.yaml.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, opened, wait_for
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import join, open_table, play_both_seats
from tests.e2e.test_openapi_conformance import frame_validators


async def seated_match(url: str, **table: Any) -> tuple[Player, Player, dict[str, Any], str]:
    host = await Player.create(url, "Host")
    guest = await Player.create(url, "Guest")
    opened = await open_table(host, **table)
    joined = await join(guest, opened["table_id"], invite_code=opened["invite_code"])
    assert joined.status_code == 200, joined.text
    return host, guest, opened, joined.json()["match"]["match_id"]


async def watch(url: str, seen: Recorder, done: asyncio.Event, frames: list[Any]) -> None:
    async with websockets.connect(url) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame["type"] == "ping":  # a live client answers, or is closed as silent
                await ws.send(json.dumps({"type": "pong"}))
            frames.append(frame)
            seen.add(frame["version"], frame)
            if (frame.get("view") or {}).get("phase") == "match_over":
                done.set()
                return


async def test_a_spectator_sees_only_what_is_public_to_both_seats(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site  # counts and watches only a match of its own
    host, guest, _, match_id = await seated_match(server.url, rules={"target": 80})
    try:
        seen, done, frames = Recorder(), asyncio.Event(), []
        watching = asyncio.create_task(
            watch(f"{server.ws_url}/v1/matches/{match_id}/watch", seen, done, frames)
        )
        await wait_for(lambda: frames)  # admitted (and counted) before its snapshot is sent
        counted = (await host.view(match_id))["spectators"]
        assert counted == 1
        spectate = httpx.AsyncClient(base_url=server.url)  # no token: anyone may watch
        mid = (await spectate.get(f"/v1/matches/{match_id}/spectator")).json()
        assert mid["spectators"] == 1
        seen.add(mid["version"], mid["view"])
        # the log is the seats' while it runs: a spectator is told where to look instead
        log = await spectate.get(f"/v1/matches/{match_id}/events")
        assert (log.status_code, log.json()["rule"]) == (401, "unauthorized"), log.text
        assert f"GET /v1/matches/{match_id}/spectator" in log.json()["detail"]
        stranger = await Player.create(server.url, "Stranger")
        log = await stranger.client.get(f"/v1/matches/{match_id}/events")
        assert (log.status_code, log.json()["rule"]) == (403, "not_your_match"), log.text
        assert "a spectator watches it at" in log.json()["detail"]
        await stranger.close()

        final = await play_both_seats((host, guest), match_id, (Recorder(), Recorder()))
        await asyncio.wait_for(watching, 30)
        assert final["settlement"] is not None
        log = await host.events(match_id)
        states = states_by_version(log["events"])
        assert seen.assert_no_leaks(states, seat=None) == len(frames) + 1 > 20

        validators = frame_validators("watch", "receiveWatch")
        for frame in frames:
            errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
            assert not errors, (frame["type"], errors[:3])
        events = [f for f in frames if f["type"] == "event"]
        assert [f["version"] for f in events] == list(
            range(frames[0]["version"] + 1, final["version"] + 1)
        )
        dealt = [f["event"] for f in events if f["event"]["type"] == "dealt"]
        assert dealt and all(d["hand"] is None and d["deck"] is None for d in dealt)
        stock = [f["event"] for f in events if f["event"]["type"] == "drew"]
        assert all(d["card"] is None for d in stock if d["source"] == "stock")

        # the socket closed: it no longer counts
        await wait_for_count(spectate, f"/v1/matches/{match_id}/spectator", 0)
        await spectate.aclose()
    finally:
        await host.close()
        await guest.close()


async def test_a_private_match_is_watched_only_with_its_watch_code(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site
    host, guest, table, match_id = await seated_match(server.url, private=True)
    try:
        base = f"{server.ws_url}/v1/matches/{match_id}/watch"
        for url in (base, f"{base}?watch_code=wrong", f"{base}?watch_code={table['invite_code']}"):
            async with websockets.connect(url) as ws:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                assert frame["type"] == "error"
                assert frame["problem"]["rule"] == "watch_code_required"
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        async with websockets.connect(f"{base}?watch_code={table['watch_code']}") as ws:
            snapshot = await opened(ws)
            assert snapshot["type"] == "snapshot"
            assert "hand" not in snapshot["view"]
            await ws.send(json.dumps({"type": "action", "action": {"type": "resign"}}))
            refused = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert (refused["type"], refused["problem"]["rule"]) == (
                "error",
                "spectators_cannot_act",
            )
        view = await host.view(match_id)
        assert view["view"]["settlement"] is None  # the spectator's resign changed nothing
        anonymous = httpx.AsyncClient(base_url=server.url)
        refused_http = await anonymous.get(f"/v1/matches/{match_id}/spectator")
        assert (refused_http.status_code, refused_http.json()["rule"]) == (
            403,
            "watch_code_required",
        )
        await anonymous.aclose()
    finally:
        await host.close()
        await guest.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_the_spectator_count_is_the_same_on_every_process(
    database_url: str, tmp_path: Path
) -> None:
    # Rows rewritten every second and counted for four: a killed process's watcher stops
    # counting after 4 s, not the default 20 s.
    refresh = {"GINRUMMY_PRESENCE_REFRESH_S": "1"}
    first = ServerProcess(database_url, tmp_path, **refresh).start()
    second = ServerProcess(database_url, tmp_path, **refresh).start()
    host = guest = None
    try:
        host, guest, _, match_id = await seated_match(first.url)
        watchers = [
            await websockets.connect(f"{url}/v1/matches/{match_id}/watch")
            for url in (first.ws_url, second.ws_url, second.ws_url)
        ]
        for ws in watchers:
            assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "snapshot"
        on_first = httpx.AsyncClient(base_url=first.url)
        on_second = httpx.AsyncClient(base_url=second.url)
        path = f"/v1/matches/{match_id}/spectator"
        assert (await on_first.get(path)).json()["spectators"] == 3
        assert (await on_second.get(path)).json()["spectators"] == 3
        await watchers[1].close()
        await wait_for_count(on_first, path, 2)
        second.kill()  # its remaining watcher stops counting once its row goes stale
        await watchers[0].close()
        await wait_for_count(on_first, path, 0, timeout=30)
        await on_first.aclose()
        await on_second.aclose()
    finally:
        for player in (host, guest):
            if player is not None:
                await player.close()
        first.stop()
        second.stop()


async def wait_for_count(
    client: httpx.AsyncClient, path: str, expected: int, timeout: float = 10
) -> None:
    counts: list[int] = []

    async def poll() -> None:
        while True:
            counts.append((await client.get(path)).json()["spectators"])
            if counts[-1] == expected:
                return
            await asyncio.sleep(0.2)

    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        raise AssertionError(f"spectators never reached {expected}: {counts[-5:]}") from None


async def test_a_spectator_is_told_of_a_rematch_anyone_may_watch(
    each_backend_site: ServerProcess,
) -> None:
    """Found by QA: a spectator stayed on the finished match, never told that its players
    started a rematch. The spectator answer names the rematch once it has started and
    anyone may watch it; an offer not yet accepted, and a private match's rematch (its
    codes are new, and the spectator has none), are not named."""
    server = each_backend_site
    anonymous = httpx.AsyncClient(base_url=server.url, timeout=30)
    seated = []
    try:
        for private in (False, True):
            host, guest, table, match_id = await seated_match(server.url, private=private)
            seated += [host, guest]
            code = {"watch_code": table["watch_code"]} if private else {}
            spectator = f"/v1/matches/{match_id}/spectator"

            async def rematch(spectator: str = spectator, code: dict[str, Any] = code) -> Any:
                answer = await anonymous.get(spectator, params=code)
                assert answer.status_code == 200, answer.text
                return answer.json()["rematch"]

            assert await rematch() is None  # in play
            assert (await guest.act(match_id, {"type": "resign"})).status_code == 200
            assert await rematch() is None  # settled, nothing offered
            offered = await host.client.post(f"/v1/matches/{match_id}/rematch")
            assert offered.status_code == 200, offered.text
            assert await rematch() is None  # offered, not accepted
            accepted = await guest.client.post(f"/v1/matches/{match_id}/rematch")
            assert accepted.status_code == 200, accepted.text
            started = accepted.json()["match_id"]
            assert started is not None
            if private:
                assert await rematch() is None  # its own codes: not the spectator's to know
                hidden = await anonymous.get(f"/v1/matches/{started}/spectator", params=code)
                assert hidden.json()["rule"] == "watch_code_required"
            else:
                assert await rematch() == started
                followed = await anonymous.get(f"/v1/matches/{started}/spectator")
                assert followed.status_code == 200 and followed.json()["rematch"] is None
    finally:
        for player in seated:
            await player.close()
        await anonymous.aclose()
