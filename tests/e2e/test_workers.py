"""``GINRUMMY_WORKERS=2``: two worker processes behind one port on one PostgreSQL.

Each worker is a whole server (store, tailer, caches); a client cannot choose its
worker, so the test opens connections until both workers hold some, then plays a match
over HTTP (each request on whichever worker the kernel picks) while sockets on both
workers follow it: every socket must see every event once, in order.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, as_action


def workers_of(server: ServerProcess) -> list[int]:
    """The worker processes uvicorn spawned (not multiprocessing's resource tracker)."""
    assert server.proc is not None
    children: list[int] = []
    for task in Path(f"/proc/{server.proc.pid}/task").iterdir():
        children += [int(pid) for pid in (task / "children").read_text().split()]
    return [pid for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def client_sockets(pid: int, port: int) -> int:
    """How many established TCP connections to ``port`` the process ``pid`` holds."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] == "01":  # ESTABLISHED
                inodes.add(fields[9])
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            held += 1
    return held


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_two_workers_share_one_port_and_every_socket_sees_every_move(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_WORKERS="2").start()
    try:
        await asyncio.sleep(1)  # both workers up (readyz answered by one of them)
        workers = workers_of(server)
        assert len(workers) == 2, workers
        player = await Player.create(server.url, "Two workers")
        match = await player.new_match(rules={"target": 30})
        match_id = match["match_id"]
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
        sockets = []
        for _ in range(40):
            sockets.append(await websockets.connect(url))
            await asyncio.sleep(0.05)
            if all(client_sockets(pid, server.port) for pid in workers):
                break
        assert all(client_sockets(pid, server.port) for pid in workers), "one worker took all"
        snapshots = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for ws in sockets]
        assert all(s["type"] == "snapshot" for s in snapshots)

        rng = random.Random(22)
        view, version = match["view"], match["version"]
        while view["phase"] != "match_over":
            reply = await player.act(match_id, as_action(rng.choice(view["legal"])), version)
            assert reply.status_code == 200, reply.text
            view, version = reply.json()["view"], reply.json()["version"]
        for ws, snapshot in zip(sockets, snapshots, strict=True):
            seen = []
            while not seen or seen[-1] < version:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if frame["type"] == "ping":
                    await ws.send('{"type":"pong"}')
                elif frame["type"] == "event":
                    seen.append(frame["version"])
            assert seen == list(range(snapshot["version"] + 1, version + 1))
            await ws.close()
        await player.close()
    finally:
        server.stop()
