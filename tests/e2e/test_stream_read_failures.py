"""A player stream whose read fails as a match settles still says ``match_finished``,
once the database answers again, and says nothing of that match's presence after it.

The failure is real: the waiting player's stream runs on one server process, the
opponent resigns on another, and the stream's re-read of the match at the settling
version is caught waiting on a table lock that this test holds, then its PostgreSQL
session is terminated (``pg_terminate_backend``, found by its ``application_name``).

Catching the read in flight needs the stream held back until the other process's move
has reached it: the stream reads the opponent's presence twice a second (a 2 s grace)
while the opponent is to act, so the test locks the presence table first and the
stream waits in that read; the opponent resigns; the events table is locked; the
presence lock is let go, and the stream's next read, the match's, waits on the events
lock, where it is terminated. Before the fix the stream skipped that read: it never
said ``match_finished`` and went on telling the opponent's presence for a match over.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import websockets

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table
from tests.e2e.test_absence import on
from tests.e2e.test_clocks import pass_the_turn
from tests.e2e.test_stream_announcements import Heard, listening, over_ndjson, over_websocket

GRACE = {"GINRUMMY_ABSENCE_GRACE_S": "2"}  # the stream looks at presence every 0.5 s
PRESENCE_LOOK = "%seat_presence%UNION ALL%"  # ClaimWatch's read (infra.presence.away_since)
MATCH_READ = "%FROM events%events.stream_id = %events.version > %"  # read_stream's
Frame = dict[str, Any]


def of(kind: str, match_id: str) -> Any:
    return lambda f: f["type"] == kind and f.get("match_id") == match_id


async def waiting_read(conn: Any, server: ServerProcess, query: str, limit: float = 20) -> int:
    """The pid of the server's session whose statement like ``query`` waits on a lock."""
    assert server.proc is not None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        pid = await conn.fetchval(
            "select pid from pg_stat_activity where datname = current_database()"
            " and application_name = $1 and wait_event_type = 'Lock' and query ilike $2"
            " limit 1",
            f"ginrummy {server.proc.pid}",
            query,
        )
        if pid is not None:
            return int(pid)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no read like {query!r} waited on a lock in {limit} s")


async def terminate(conn: Any, pid: int) -> None:
    """Terminate one session and wait until it is gone (``pg_terminate_backend`` returns
    once it has signalled the backend, before the backend has told its client)."""
    assert await conn.fetchval("select pg_terminate_backend($1)", pid)
    async with asyncio.timeout(20):
        while await conn.fetchval("select count(*) from pg_stat_activity where pid = $1", pid):
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("transport", ["ndjson", "websocket"])
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_failed_read_as_the_match_settles_still_says_match_finished(
    database_url: str, tmp_path: Path, transport: str
) -> None:
    first = ServerProcess(database_url, tmp_path, **GRACE).start()  # the host's stream
    second = ServerProcess(database_url, tmp_path, **GRACE).start()  # the guest's moves
    host = await Player.create(first.url, "Stayer")
    guest = await Player.create(first.url, "Resigner")
    guest_there = on(second, guest)
    heard = Heard()
    dsn = asyncpg_dsn(database_url)
    presence_lock, events_lock, watcher = [await asyncpg.connect(dsn) for _ in range(3)]
    reader = (
        over_ndjson(first.url, host.token, heard)
        if transport == "ndjson"
        else over_websocket(first.ws_url, host.token, heard)
    )
    try:
        table = await open_table(host)
        joined = await join(guest, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        guest_socket = await websockets.connect(  # the guest is there, on the other process
            f"{second.ws_url}/v1/matches/{match_id}/live?token={guest.token}"
        )
        assert json.loads(await guest_socket.recv())["type"] == "snapshot"
        async with listening(reader):
            await heard.first(of("match_started", match_id))
            await pass_the_turn(host, match_id)  # the guest is to act: its presence is read

            stalled = presence_lock.transaction()
            await stalled.start()
            await presence_lock.execute("LOCK TABLE seat_presence IN ACCESS EXCLUSIVE MODE")
            await waiting_read(watcher, first, PRESENCE_LOOK)  # the stream waits there

            resigned = await guest_there.act(match_id, {"type": "resign"})
            assert resigned.status_code == 200, resigned.text
            settled_at = resigned.json()["version"]
            # the first process's tailer hears of it in milliseconds: seconds to spare
            await asyncio.sleep(3)
            assert not any(of("match_finished", match_id)(f) for f in heard.frames)

            held = events_lock.transaction()
            await held.start()
            await events_lock.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            await stalled.commit()  # the stream goes on, to the match's read...
            await terminate(watcher, await waiting_read(watcher, first, MATCH_READ))
            await held.commit()  # ...which failed; the database answers again
            # the guest leaves: a stream that missed the end would say it went away
            await guest_socket.close()
            finished = await heard.first(of("match_finished", match_id), 30)
            assert finished["version"] == settled_at
            await asyncio.sleep(4)  # eight looks' time, and past the grace
        after = heard.frames[heard.frames.index(finished) + 1 :]
        assert not [f for f in after if f.get("match_id") == match_id], heard.frames
        assert [f["type"] for f in heard.frames].count("match_finished") == 1, heard.frames
        log = first.log_path.read_text()
        assert f"a player stream's read of {match_id} failed" in log, log[-3000:]
    finally:
        for conn in (presence_lock, events_lock, watcher):
            await conn.close()
        for player in (host, guest, guest_there):
            await player.close()
        first.stop()
        second.stop()
