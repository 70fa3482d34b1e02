"""Every answer and socket frame of a match says the server's time (``now_ms``).

A move clock is told as deadlines on the server's clock (``view.clock.deadline_ms``);
a client whose own clock is wrong by 30 s counted 30 s wrong. With the server's ``now_ms``
beside each deadline, ``deadline_ms - now_ms`` is the time left when the server answered,
whatever the client's clock says. The server runs on this machine, so its ``now_ms`` must
fall between the moments the request left and its answer came (give or take a rounding).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table

SLACK_MS = 5  # the server truncates to whole ms; the two clocks are one


def ms() -> int:
    return int(time.time() * 1000)


async def timed(request: Any) -> tuple[httpx.Response, int, int]:
    before = ms()
    response = await request
    return response, before, ms()


def assert_stamped(body: dict[str, Any], before: int, after: int, what: str) -> None:
    assert "now_ms" in body, f"{what}: no now_ms beside the clock: {sorted(body)}"
    assert before - SLACK_MS <= body["now_ms"] <= after + SLACK_MS, (what, before, body, after)


async def frames(url: str, count: int, **headers: str) -> list[tuple[dict[str, Any], int]]:
    """The socket's first ``count`` frames, each with when it came (this machine's ms)."""
    got: list[tuple[dict[str, Any], int]] = []
    async with websockets.connect(url, additional_headers=headers) as ws:
        while len(got) < count:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            got.append((frame, ms()))
            if frame["type"] == "snapshot" and len(got) < count:
                await ws.send(json.dumps({"type": "ping"}))  # a pong frame too
    return got


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_match_answer_and_frame_says_the_servers_time(server: ServerProcess) -> None:
    player = await Player.create(server.url, "Timed")
    host, guest = await Player.create(server.url, "Host"), await Player.create(server.url, "Guest")
    try:
        created, before, after = await timed(
            player.client.post("/v1/matches", json={"clock": {"per_move_ms": 60_000}})
        )
        assert created.status_code == 201, created.text
        body = created.json()
        assert body["view"]["clock"]["deadline_ms"] is not None
        assert_stamped(body, before, after, "POST /v1/matches")
        match_id = body["match_id"]

        got, before, after = await timed(player.client.get(f"/v1/matches/{match_id}"))
        assert_stamped(got.json(), before, after, "GET /v1/matches/{id}")
        left = got.json()["view"]["clock"]["deadline_ms"] - got.json()["now_ms"]
        assert 0 < left <= 60_000  # the time left, on the server's clock alone

        await asyncio.sleep(0.3)  # a cached view (same version) still gets a new time
        again, before, after = await timed(player.client.get(f"/v1/matches/{match_id}"))
        assert again.json()["view"] == got.json()["view"]
        assert_stamped(again.json(), before, after, "GET /v1/matches/{id} again")
        assert again.json()["now_ms"] >= got.json()["now_ms"] + 300

        legal = got.json()["view"]["legal"][0]
        action = {k: v for k, v in legal.items() if k != "seat" and v is not None}
        acted, before, after = await timed(
            player.client.post(f"/v1/matches/{match_id}/actions", json={"action": action})
        )
        assert acted.status_code == 200, acted.text
        assert_stamped(acted.json(), before, after, "POST …/actions")

        watched, before, after = await timed(player.client.get(f"/v1/matches/{match_id}/spectator"))
        assert watched.json()["view"]["clock"] is not None
        assert_stamped(watched.json(), before, after, "GET …/spectator")

        house, before, after = await timed(
            player.client.post("/v1/house-matches", json={"seats": ["ai:easy", "ai:easy"]})
        )
        assert house.status_code == 201, house.text
        assert_stamped(house.json(), before, after, "POST /v1/house-matches")

        table = await open_table(host, clock={"per_move_ms": 60_000})
        joined, before, after = await timed(join(guest, table["table_id"]))
        assert joined.status_code == 200, joined.text
        assert_stamped(joined.json()["match"], before, after, "POST /v1/tables/{id}/join")

        # event frames: the seat's socket open while it moves over HTTP
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
        async with websockets.connect(url) as ws:
            start = ms()
            snapshot = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert_stamped(snapshot, start, ms(), "live snapshot frame")
            view = snapshot["view"]
            legal = view["legal"][0]
            action = {k: v for k, v in legal.items() if k != "seat" and v is not None}
            start = ms()
            answer = await player.act(match_id, action, view["version"])
            assert answer.status_code == 200, answer.text
            version = view["version"]
            while version < answer.json()["version"]:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["type"] == "event":
                    version = frame["version"]
                assert_stamped(frame, start, ms(), f"live {frame['type']} frame")

        live = f"{server.ws_url}/v1/matches/{match_id}/live"
        watch = f"{server.ws_url}/v1/matches/{match_id}/watch"
        for url, headers in ((live, {"Authorization": f"Bearer {player.token}"}), (watch, {})):
            start = ms()
            seen = await frames(url, 3, **headers)
            assert [frame["type"] for frame, _ in seen] == ["snapshot", "seats", "pong"], seen
            assert seen[0][0]["view"]["clock"] is not None
            for frame, came in seen:  # stamped as sent: after the socket opened, before it came
                assert_stamped(frame, start, came, f"{url} {frame['type']} frame")
    finally:
        for someone in (player, host, guest):
            await someone.close()
