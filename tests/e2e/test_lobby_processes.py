"""Several server processes share one lobby: the host on one, the guest and a spectator
on another, the live list on a third socket; all on one PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import join, open_table, play_both_seats
from tests.e2e.test_openapi_conformance import frame_validators


async def next_frame(ws: Any, kind: str) -> dict[str, Any]:
    validators = frame_validators("lobby", "receiveLobby")
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
        errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
        assert not errors, (frame, errors[:3])
        if frame["type"] == kind:
            return frame


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_host_guest_spectator_and_lobby_on_different_processes(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    host = await Player.create(first.url, "Host")
    guest = await Player.create(second.url, "Guest")
    try:
        lobby_url = f"{second.ws_url}/v1/tables/live?token={guest.token}"
        async with websockets.connect(lobby_url) as lobby:
            assert (await next_frame(lobby, "tables"))["tables"] == []
            table = await open_table(host, rules={"target": 40})  # on the first process
            opened = await next_frame(lobby, "table")  # heard on the second
            assert opened["table"]["table_id"] == table["table_id"]
            assert opened["table"]["invite_code"] is None
            private = await open_table(host, private=True)
            joined = await join(guest, table["table_id"])  # on the second process
            assert joined.status_code == 200, joined.text
            closed = await next_frame(lobby, "table_closed")
            assert (closed["table_id"], closed["status"]) == (table["table_id"], "started")
            await host.client.post(f"/v1/tables/{private['table_id']}/cancel")

        match_id = joined.json()["match"]["match_id"]
        watched = Recorder()

        async def spectate() -> None:
            async with websockets.connect(f"{second.ws_url}/v1/matches/{match_id}/watch") as ws:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if frame["type"] == "ping":
                        await ws.send(json.dumps({"type": "pong"}))
                    watched.add(frame["version"], frame)
                    if (frame.get("view") or {}).get("phase") == "match_over":
                        return

        watching = asyncio.create_task(spectate())
        final = await play_both_seats((host, guest), match_id, (Recorder(), Recorder()))
        await asyncio.wait_for(watching, 30)
        assert final["settlement"] is not None
        states = states_by_version((await host.events(match_id))["events"])
        assert watched.assert_no_leaks(states, seat=None) > 10
        versions = [m["version"] for _, m in watched.messages if m["type"] == "event"]
        assert versions == list(range(watched.messages[0][0] + 1, final["version"] + 1))
    finally:
        await host.close()
        await guest.close()
        first.stop()
        second.stop()
