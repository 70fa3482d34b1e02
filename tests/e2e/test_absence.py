"""Absence per seat, and the claim over the live socket, on real servers.

A player's socket on one match is no presence in another, seen from a second server
process and from a restarted one (the time away is in the database, not in a process's
memory). The claim sent as a ``claim`` frame follows the HTTP rules and problems, its
events arrive as frames, and no frame of it gives a seat or a spectator a hidden card.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import join, open_table
from tests.e2e.test_clocks import pass_the_turn
from tests.e2e.test_openapi_conformance import ASYNCAPI, REGISTRY, frame_validators

GRACE = {"GINRUMMY_ABSENCE_GRACE_S": "2"}
Frame = dict[str, Any]


def on(server: ServerProcess, player: Player) -> Player:
    """The same player, talking to another server process."""
    client = httpx.AsyncClient(base_url=server.url, timeout=30)
    client.headers["Authorization"] = f"Bearer {player.token}"
    return Player(client, player.token, player.id)


async def table_match(host: Player, guest: Player) -> str:
    table = await open_table(host)
    joined = await join(guest, table["table_id"])
    assert joined.status_code == 200, joined.text
    match_id: str = joined.json()["match"]["match_id"]
    return match_id


async def claim(player: Player, match_id: str) -> httpx.Response:
    return await player.client.post(f"/v1/matches/{match_id}/claim")


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_socket_on_one_match_is_no_presence_in_another_on_any_process(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path, **GRACE).start()
    second = ServerProcess(database_url, tmp_path, **GRACE).start()
    host = await Player.create(first.url, "Host")
    guest = await Player.create(first.url, "TwoTables")
    host_there = on(second, host)
    try:
        here, elsewhere = await table_match(host, guest), await table_match(host, guest)
        for match_id in (here, elsewhere):
            await pass_the_turn(host, match_id)  # absence counts while the guest is to act
        url = f"{first.ws_url}/v1/matches/{here}/live?token={guest.token}"
        async with websockets.connect(url) as ws:  # the guest sits at one match only
            assert json.loads(await ws.recv())["type"] == "snapshot"
            await asyncio.sleep(2.5)
            present = await claim(host_there, here)  # asked on the other process
            assert present.status_code == 409, present.text
            assert present.json()["rule"] == "claim_too_early"
            away = await claim(host_there, elsewhere)
            assert away.status_code == 200, away.text  # before: "present" in every match
            assert away.json()["view"]["settlement"]["resigned"] == 1
            events = (await host.events(elsewhere))["events"]
            assert events[-3]["event"] == {"type": "match_claimed", "seat": 0, "reason": "absence"}
        # It has left. Within the grace period the claim fails; then the process that
        # would answer is restarted, and the new one knows since when the seat is away.
        early = await claim(host_there, here)
        assert early.status_code == 409 and early.json()["rule"] == "claim_too_early"
        await host_there.close()
        second.stop()
        second = ServerProcess(database_url, tmp_path, **GRACE).start()
        host_there = on(second, host)
        await asyncio.sleep(2.2)
        late = await claim(host_there, here)
        assert late.status_code == 200, late.text
        assert late.json()["view"]["settlement"]["resigned"] == 1
    finally:
        for player in (host, guest, host_there):
            await player.close()
        first.stop()
        second.stop()


class Socket:
    """One live (or watch) socket: every frame checked against asyncapi.yaml, recorded."""

    def __init__(self, ws: Any, channel: str, operation: str) -> None:
        self.ws = ws
        self.validators = frame_validators(channel, operation)
        self.seen = Recorder()
        self.frames: list[Frame] = []

    async def until(self, done: Any, limit: float = 15) -> Frame:
        async with asyncio.timeout(limit):
            while True:
                frame = json.loads(await self.ws.recv())
                errors = [e.message for e in self.validators[frame["type"]].iter_errors(frame)]
                assert not errors, (frame, errors[:3])
                if frame["type"] == "ping":
                    await self.ws.send(json.dumps({"type": "pong"}))
                self.keep(frame)
                if done(frame):
                    return frame

    def keep(self, frame: Frame) -> None:
        self.seen.add(frame["version"], frame)
        self.frames.append(frame)


CLAIM = {"type": "claim"}


def is_error(frame: Frame) -> bool:
    return bool(frame["type"] == "error")


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_claim_over_the_live_socket_follows_the_http_rules(
    database_url: str, tmp_path: Path
) -> None:
    jsonschema.Draft202012Validator(
        ASYNCAPI["components"]["messages"]["claim"]["payload"], registry=REGISTRY
    ).validate(CLAIM)  # the frame sent is the one the document describes
    server = ServerProcess(database_url, tmp_path, **GRACE).start()
    host = await Player.create(server.url, "Claimer")
    guest = await Player.create(server.url, "Gone")
    try:
        match_id = await table_match(host, guest)
        await pass_the_turn(host, match_id)
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with (
            websockets.connect(live) as seat_ws,
            websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as watch_ws,
        ):
            seat = Socket(seat_ws, "live", "receiveFeed")
            spectator = Socket(watch_ws, "watch", "receiveWatch")
            await seat.until(lambda f: f["type"] == "snapshot")
            await spectator.until(lambda f: f["type"] == "snapshot")
            await seat_ws.send(json.dumps(CLAIM))  # the guest's turn has only just begun
            early = (await seat.until(is_error))["problem"]
            http = (await claim(host, match_id)).json()
            assert early["status"] == 409 and early["rule"] == "claim_too_early"
            assert (early["type"], early["title"]) == (http["type"], http["title"])
            await watch_ws.send(json.dumps(CLAIM))
            refused = (await spectator.until(is_error))["problem"]
            assert (refused["status"], refused["rule"]) == (403, "spectators_cannot_act")
            await asyncio.sleep(2.3)  # the guest never came: past the grace period
            await seat_ws.send(json.dumps(CLAIM))
            over = await seat.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
            claimed = [f["event"] for f in seat.frames if f["type"] == "event"][-3:]
            assert claimed[0] == {"type": "match_claimed", "seat": 0, "reason": "absence"}
            assert [e["type"] for e in claimed[1:]] == ["resigned", "match_settled"]
            assert over["view"]["settlement"]["resigned"] == 1
            await spectator.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
            await seat_ws.send(json.dumps(CLAIM))
            again = (await seat.until(is_error))["problem"]
            assert (again["status"], again["rule"]) == (422, "match_over")
        events = (await host.events(match_id))["events"]
        assert [e["event"]["type"] for e in events].count("match_claimed") == 1
        states = states_by_version(events)
        assert seat.seen.assert_no_leaks(states, seat=0) >= 6
        assert spectator.seen.assert_no_leaks(states, seat=None) >= 5
        house = (await host.new_match())["match_id"]  # the house AI never leaves
        async with websockets.connect(
            f"{server.ws_url}/v1/matches/{house}/live?token={host.token}"
        ) as ws:
            socket = Socket(ws, "live", "receiveFeed")
            await socket.until(lambda f: f["type"] == "snapshot")
            await ws.send(json.dumps(CLAIM))
            problem = (await socket.until(is_error))["problem"]
            assert (problem["status"], problem["rule"]) == (409, "claim_against_house")
            await ws.send(json.dumps({"type": "ping"}))  # the socket stays open after a refusal
            await socket.until(lambda f: f["type"] == "pong")
        # once the match is over, the claim is refused for that, as against a person
        resigned = await host.act(house, {"type": "resign"})
        assert resigned.status_code == 200, resigned.text
        late = await host.client.post(f"/v1/matches/{house}/claim")
        assert (late.status_code, late.json()["rule"]) == (422, "match_over"), late.text
    finally:
        await host.close()
        await guest.close()
        server.stop()
