"""A match that no table starts (POST /v1/matches against the house AI, POST
/v1/house-matches to watch two house AIs) is announced on its creator's player stream,
over NDJSON and the WebSocket alike, whichever server process created it; nobody else's
stream hears of it, and no frame names a card."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import CARDS
from tests.e2e.test_openapi_conformance import frame_validators

PACED = {"GINRUMMY_AI_PACE_MS": "20"}
SHORT = {"preset": "classic", "target": 30}
VALIDATORS = frame_validators("player", "receivePlayer")

Frame = dict[str, Any]


def named_cards(value: Any) -> set[str]:
    """Every string in a frame that is a card: a stream frame may name none, but for the
    seat's own view in ``your_turn`` (checked by the oracle: test_stream_turns.py)."""
    if isinstance(value, str):
        return {value} & CARDS
    if isinstance(value, list):
        return set().union(*(named_cards(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(named_cards(v) for v in value.values())) if value else set()
    return set()


class Heard:
    """Every frame of one player stream, each checked against asyncapi.yaml as it comes."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []

    def add(self, frame: Frame) -> None:
        errors = [e.message for e in VALIDATORS[frame["type"]].iter_errors(frame)]
        assert not errors, (frame, errors[:3])
        assert not named_cards({k: v for k, v in frame.items() if k != "match"}), frame
        self.frames.append(frame)

    async def first(self, match: Callable[[Frame], bool], limit: float = 15) -> Frame:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            for frame in self.frames:
                if match(frame):
                    return frame
            await asyncio.sleep(0.05)
        raise AssertionError(f"no such frame in {[f['type'] for f in self.frames]}")


async def over_ndjson(url: str, token: str, heard: Heard) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(base_url=url, timeout=60) as client,
        client.stream("GET", "/v1/me/stream", headers=headers) as stream,
    ):
        assert stream.status_code == 200
        async for line in stream.aiter_lines():
            if line:
                heard.add(json.loads(line))


async def over_websocket(ws_url: str, token: str, heard: Heard) -> None:
    async with websockets.connect(f"{ws_url}/v1/me/live?token={token}") as ws:
        async for text in ws:
            heard.add(json.loads(text))


@contextlib.asynccontextmanager
async def listening(*readers: Any) -> AsyncIterator[None]:
    tasks = [asyncio.create_task(reader) for reader in readers]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def started(match_id: str) -> Callable[[Frame], bool]:
    return lambda f: f["type"] == "match_started" and f["match_id"] == match_id


async def connected(heard: Heard, table_id: str) -> None:
    """The stream is live once it has said the open challenge: it is then listening."""
    await heard.first(lambda f: f["type"] == "challenge" and f["challenge"]["table_id"] == table_id)


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_match_against_the_house_and_a_watched_match_are_announced(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, **PACED).start()
    ada = await Player.create(server.url, "Ada")
    bob = await Player.create(server.url, "Bob")
    lines, socket, bobs = Heard(), Heard(), Heard()
    try:
        challenge = (await bob.client.post("/v1/challenges", json={"to": ada.id})).json()
        async with listening(
            over_ndjson(server.url, ada.token, lines),
            over_websocket(server.ws_url, ada.token, socket),
            over_ndjson(server.url, bob.token, bobs),
        ):
            for heard in (lines, socket, bobs):
                await connected(heard, challenge["table_id"])
            match = await ada.new_match(level="easy")
            match_id = match["match_id"]
            house = await ada.client.post(  # from a chosen seed: watched with its code
                "/v1/house-matches",
                json={"seats": ["ai:easy", "ai:medium"], "rules": SHORT, "seed": "announced"},
            )
            assert house.status_code == 201, house.text
            house_id, house_code = house.json()["match_id"], house.json()["watch_code"]
            assert house_code
            for heard in (lines, socket):
                frame = await heard.first(started(match_id))
                assert frame == {
                    "type": "match_started",
                    "match_id": match_id,
                    "seat": 0,
                    "players": [ada.id, "ai:easy"],
                    "watching": False,
                    "watch_code": None,  # a fair deal's match: anyone may watch it
                }
                if 0 in match["view"]["to_act"]:
                    turn = await heard.first(
                        lambda f: f["type"] == "your_turn" and f["match_id"] == match_id
                    )
                    assert turn["version"] == match["version"]
                watched = await heard.first(started(house_id))
                assert watched == {
                    "type": "match_started",
                    "match_id": house_id,
                    "seat": None,
                    "players": ["ai:easy", "ai:medium"],
                    "watching": True,
                    "watch_code": house_code,  # the host's way back to its own match
                }
                finished = await heard.first(
                    lambda f: f["type"] == "match_finished" and f["match_id"] == house_id, 60
                )
                assert finished["winner"] in (0, 1)
                mine = [f for f in heard.frames if f.get("match_id") in (match_id, house_id)]
                assert [f["type"] for f in mine].count("match_started") == 2, "each said once"
                assert not [
                    f for f in mine if f["type"] == "your_turn" and f["match_id"] == house_id
                ], "a watched match waits for nobody's move"
            # Bob's stream heard his challenge and nothing of Ada's matches.
            assert {f.get("match_id") for f in bobs.frames} <= {None}, bobs.frames
    finally:
        for player in (ada, bob):
            await player.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_match_created_on_another_process_is_announced(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path, **PACED).start()
    second = ServerProcess(database_url, tmp_path, **PACED).start()
    ada = await Player.create(first.url, "Ada")
    bob = await Player.create(first.url, "Bob")
    on_second = Player(httpx.AsyncClient(base_url=second.url, timeout=30), ada.token, ada.id)
    on_second.client.headers["Authorization"] = f"Bearer {ada.token}"
    heard = Heard()
    try:
        challenge = (await bob.client.post("/v1/challenges", json={"to": ada.id})).json()
        async with listening(over_websocket(first.ws_url, ada.token, heard)):
            await connected(heard, challenge["table_id"])
            match_id = (await on_second.new_match(level="medium"))["match_id"]
            house = await on_second.client.post(
                "/v1/house-matches", json={"seats": ["ai:hard", "ai:easy"], "rules": SHORT}
            )
            house_id = house.json()["match_id"]
            frame = await heard.first(started(match_id))
            assert (frame["seat"], frame["watching"]) == (0, False)
            frame = await heard.first(started(house_id))
            assert (frame["seat"], frame["watching"]) == (None, True)
    finally:
        for player in (ada, bob, on_second):
            await player.close()
        first.stop()
        second.stop()
