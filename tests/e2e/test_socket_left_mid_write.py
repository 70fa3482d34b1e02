"""A client that leaves while its socket's write waits leaves the server able to write.

A CI run: right after a page closed, the page server held SQLite's write lock for
minutes, and every write (sweeps, presence, new players) failed "database is locked".
A live socket's reader counts an action against the rate limit (an upsert with
RETURNING) before anything else; a client leaving then cancels that upsert, which runs
on in aiosqlite's thread once the lock is free, and its discarded connection kept the
lock (``tests/infra/test_cancelled_sqlite_writes.py``). Here the lock is held from
outside so that the upsert is surely waiting when the client leaves.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import websockets

from infra.database import sqlite_file
from tests.e2e.harness import Player, ServerProcess
from tests.infra.test_cancelled_sqlite_writes import can_write


async def test_a_client_leaving_while_its_action_is_counted_leaves_the_lock_free(
    database_url: str, tmp_path: Path
) -> None:
    path = sqlite_file(database_url)
    assert path is not None
    server = ServerProcess(
        database_url,
        tmp_path,
        GINRUMMY_RATE_ACTIONS_PER_PLAYER="1000",  # counted, never refused
        GINRUMMY_WS_HEARTBEAT_S="0.2",  # a ping soon finds the client gone
    ).start()
    player = await Player.create(server.url)
    try:
        match = await player.new_match()
        live = f"{server.ws_url}/v1/matches/{match['match_id']}/live?token={player.token}"
        for attempt in range(3):
            async with websockets.connect(live) as ws:
                await asyncio.wait_for(ws.recv(), 10)  # admitted: its presence is written
                holder = sqlite3.connect(path, isolation_level=None, timeout=30)
                holder.execute("BEGIN IMMEDIATE")
                action = {"type": "draw_stock"}  # counted before it is read
                await ws.send(json.dumps({"type": "action", "action": action, "version": 0}))
                await asyncio.sleep(0.5)  # the upsert waits for the lock in aiosqlite's thread
            await asyncio.sleep(1.5)  # the server finds the client gone and cancels its reader
            holder.execute("ROLLBACK")
            holder.close()
            await asyncio.sleep(0.5)  # the upsert runs, for no one; the socket's leave is written
            assert can_write(path, within_s=3), f"the write lock stayed held (attempt {attempt})"
        made = await player.client.post("/v1/players", json={"name": "after"}, timeout=10)
        assert made.status_code == 201, made.text
    finally:
        await player.close()
        server.stop()
