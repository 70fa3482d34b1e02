"""A player stream whose read fails as a match settles still says ``match_finished``,
once the database answers again, and says nothing of that match's presence after it.

The failure is real: the waiting player's stream runs on one server process, the
opponent resigns on another, and the stream's re-read of the match at the settling
version is caught waiting on a table lock that this test holds; then either its
PostgreSQL session is terminated (``pg_terminate_backend``, found by its
``application_name``), or the database's own ``lock_timeout`` (an operator's setting,
10 s here) stops the read.

Catching the read in flight needs the stream held back until the other process's move
has reached it: the stream reads the opponent's presence twice a second (a 2 s grace)
while the opponent is to act, so the test locks the presence table first and the
stream waits in that read; the opponent resigns; the events table is locked; the
presence lock is let go, and the stream's next read, the match's, waits on the events
lock, where it fails. Before the fix the stream skipped a read that lost its session:
it never said ``match_finished`` and went on telling the opponent's presence for a
match over; and a read stopped by a timeout ended the stream with an unexpected error.
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
from tests.e2e.harness import Player, ServerProcess, as_action
from tests.e2e.tables import join, open_table
from tests.e2e.test_absence import on
from tests.e2e.test_clocks import pass_the_turn
from tests.e2e.test_stream_announcements import Heard, listening, over_ndjson, over_websocket

GRACE = {"GINRUMMY_ABSENCE_GRACE_S": "2"}  # the stream looks at presence every 0.5 s
LOCK_TIMEOUT_S = 10  # longer than the test holds the stream in the presence look
PRESENCE_LOOK = "%seat_presence%UNION ALL%"  # ClaimWatch's read (infra.presence.away_since)
MATCH_READ = "%FROM events%events.stream_id = %events.version > %"  # read_stream's
Frame = dict[str, Any]


def of(kind: str, match_id: str) -> Any:
    return lambda f: f["type"] == kind and f.get("match_id") == match_id


WAITING = (
    "select pid, query_start from pg_stat_activity where datname = current_database()"
    " and application_name = $1 and wait_event_type = 'Lock' and query ilike $2"
)


async def waiting_read(
    conn: Any, server: ServerProcess, query: str, limit: float = 20
) -> tuple[int, Any]:
    """The server's session whose statement like ``query`` waits on a lock, and since
    when that statement runs (its pid, ``query_start``)."""
    assert server.proc is not None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        row = await conn.fetchrow(WAITING + " limit 1", f"ginrummy {server.proc.pid}", query)
        if row is not None:
            return int(row["pid"]), row["query_start"]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no read like {query!r} waited on a lock in {limit} s")


async def held_presence_look(lock: Any, watcher: Any, server: ServerProcess) -> tuple[Any, int]:
    """Lock the presence table in a transaction on ``lock`` until ``server``'s look at
    presence waits on it: the transaction (roll it back to let the look go on) and the
    waiting session's pid."""
    held = lock.transaction()
    await held.start()
    await lock.execute("SET LOCAL lock_timeout = 0")  # this test's lock may wait
    await lock.execute("LOCK TABLE seat_presence IN ACCESS EXCLUSIVE MODE")
    pid, _ = await waiting_read(watcher, server, PRESENCE_LOOK)
    return held, pid


async def stopped(conn: Any, server: ServerProcess, query: str, read: tuple[int, Any]) -> None:
    """Wait until that read waits no more: the database's timeout stopped it (a retry
    is another statement, with a later ``query_start``)."""
    assert server.proc is not None
    async with asyncio.timeout(LOCK_TIMEOUT_S + 20):
        while read in {
            (row["pid"], row["query_start"])
            for row in await conn.fetch(WAITING, f"ginrummy {server.proc.pid}", query)
        }:
            await asyncio.sleep(0.05)


async def terminate(conn: Any, pid: int) -> None:
    """Terminate one session and wait until it is gone (``pg_terminate_backend`` returns
    once it has signalled the backend, before the backend has told its client)."""
    assert await conn.fetchval("select pg_terminate_backend($1)", pid)
    async with asyncio.timeout(20):
        while await conn.fetchval("select count(*) from pg_stat_activity where pid = $1", pid):
            await asyncio.sleep(0.05)


@pytest.mark.parametrize(
    ("failure", "transport"), [("terminated", "ndjson"), ("lock_timeout", "websocket")]
)
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_failed_read_as_the_match_settles_still_says_match_finished(
    database_url: str, tmp_path: Path, failure: str, transport: str
) -> None:
    dsn = asyncpg_dsn(database_url)
    if failure == "lock_timeout":  # before the servers start: their sessions have it
        admin = await asyncpg.connect(dsn)
        database = await admin.fetchval("select current_database()")
        await admin.execute(
            f'ALTER DATABASE "{database}" SET lock_timeout = {LOCK_TIMEOUT_S * 1000}'
        )
        await admin.close()
    first = ServerProcess(database_url, tmp_path, **GRACE).start()  # the host's stream
    second = ServerProcess(database_url, tmp_path, **GRACE).start()  # the guest's moves
    host = await Player.create(first.url, "Stayer")
    guest = await Player.create(first.url, "Resigner")
    guest_there = on(second, guest)
    heard = Heard()
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
            await presence_lock.execute("SET LOCAL lock_timeout = 0")  # this test's may wait
            await presence_lock.execute("LOCK TABLE seat_presence IN ACCESS EXCLUSIVE MODE")
            await waiting_read(watcher, first, PRESENCE_LOOK)  # the stream waits there

            resigned = await guest_there.act(match_id, {"type": "resign"})
            assert resigned.status_code == 200, resigned.text
            settled_at = resigned.json()["version"]
            # the first process's tailer hears of it in milliseconds: seconds to spare
            await asyncio.sleep(2)
            assert not any(of("match_finished", match_id)(f) for f in heard.frames)

            held = events_lock.transaction()
            await held.start()
            await events_lock.execute("SET LOCAL lock_timeout = 0")
            await events_lock.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            await stalled.commit()  # the stream goes on, to the match's read...
            read = await waiting_read(watcher, first, MATCH_READ)
            if failure == "terminated":
                await terminate(watcher, read[0])
            else:
                await stopped(watcher, first, MATCH_READ, read)
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


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_stream_whose_opening_read_fails_ends_with_store_unavailable(
    database_url: str, tmp_path: Path
) -> None:
    """A read that fails as the stream connects ends it with a problem the client can act
    on (an ``error`` frame, ``store_unavailable``; the socket closes 4503), not a cut-off
    answer or a bare close: nothing was said yet, so a reconnect loses nothing. Before,
    the NDJSON answer broke off without a line and the socket closed with no frame."""
    admin = await asyncpg.connect(asyncpg_dsn(database_url))
    database = await admin.fetchval("select current_database()")
    await admin.execute(f'ALTER DATABASE "{database}" SET lock_timeout = 2000')
    server = ServerProcess(database_url, tmp_path, GINRUMMY_STREAM_PING_S="1").start()
    player = await Player.create(server.url, "Opener")
    try:
        async with admin.transaction():  # the open challenges cannot be read
            await admin.execute("SET LOCAL lock_timeout = 0")
            await admin.execute("LOCK TABLE lobby_tables IN ACCESS EXCLUSIVE MODE")
            heard = Heard()
            await asyncio.wait_for(over_ndjson(server.url, player.token, heard), 30)
            assert [f["type"] for f in heard.frames] == ["error"], heard.frames
            assert heard.frames[0]["problem"]["status"] == 503, heard.frames
            assert heard.frames[0]["problem"]["type"] == "/problems/store-unavailable", heard.frames

            async with websockets.connect(f"{server.ws_url}/v1/me/live?token={player.token}") as ws:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                assert frame["type"] == "error", frame
                assert frame["problem"]["type"] == "/problems/store-unavailable", frame
                with pytest.raises(websockets.ConnectionClosed):
                    await asyncio.wait_for(ws.recv(), 30)
            assert (ws.close_code, ws.close_reason) == (4503, "store_unavailable")
        heard = Heard()  # the database answers again: a reconnect is served
        async with listening(over_ndjson(server.url, player.token, heard)):
            await heard.first(lambda f: f["type"] == "ping", 30)
        assert "a player stream could not open" in server.log_path.read_text()
    finally:
        await player.close()
        server.stop()
        await admin.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_live_socket_whose_read_fails_answers_once_the_database_does(
    server: ServerProcess,
) -> None:
    """A match's ``live`` socket whose read of the store fails keeps its client: it reads
    again until the database answers, then sends what it owes, and goes on. The read
    here is a resume past this process's copy of the match (a version the client learned
    elsewhere: a past one is answered from memory), caught waiting on the events lock and
    its session terminated. Before, the pump died with the read: the socket was dropped
    without a close frame and the failure logged as an unhandled error."""
    host = await Player.create(server.url, "Resumer")
    match = await host.new_match(seed="live-read")
    version = match["version"]
    conn = await asyncpg.connect(asyncpg_dsn(server.database_url))
    try:
        async with websockets.connect(
            f"{server.ws_url}/v1/matches/{match['match_id']}/live?token={host.token}"
        ) as ws:

            async def next_frame() -> Frame:
                while True:
                    frame: Frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if frame["type"] != "ping":
                        return frame
                    await ws.send(json.dumps({"type": "pong"}))

            assert (await next_frame())["version"] == version  # the snapshot
            assert (await next_frame())["type"] == "seats"  # as every match socket starts
            await asyncio.sleep(2)  # the chat's first read too is done: the match's is caught
            async with conn.transaction():
                await conn.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
                await ws.send(json.dumps({"type": "resume", "after": version + 1}))
                watcher = await asyncpg.connect(asyncpg_dsn(server.database_url))
                try:
                    read = await waiting_read(watcher, server, MATCH_READ)
                    await terminate(watcher, read[0])
                finally:
                    await watcher.close()
            owed = await next_frame()  # the resume's answer: no such version yet
            assert owed["type"] == "error", owed
            assert owed["problem"]["type"] == "/problems/version-out-of-range", owed
            view = (await host.view(match["match_id"]))["view"]
            moved = await host.act(match["match_id"], as_action(view["legal"][0]), version)
            assert moved.status_code == 200, moved.text
            frames = [await next_frame() for _ in range(moved.json()["version"] - version)]
            assert [f["version"] for f in frames] == list(
                range(version + 1, moved.json()["version"] + 1)
            ), frames
        assert f"a live socket's read of match {match['match_id']} failed" in (
            server.log_path.read_text()
        )
    finally:
        await conn.close()
        await host.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_player_stream_whose_closing_presence_write_fails_ends_quietly(
    database_url: str, tmp_path: Path
) -> None:
    """A player stream that closes while the database fails its presence write ends
    with one warning, and the process serves the next stream. The write is caught on the
    presence table's lock and its session terminated (and so is a refresh of the
    process's rows that waits there too: it is retried on its own). Before, the failure
    came out of the stream's closing: logged as a warning with its traceback."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_STREAM_PING_S="1").start()
    assert server.proc is not None
    player = await Player.create(server.url, "Leaver")
    dsn = asyncpg_dsn(database_url)
    presence_lock, watcher = [await asyncpg.connect(dsn) for _ in range(2)]
    try:
        heard = Heard()
        async with listening(over_ndjson(server.url, player.token, heard)):
            await heard.first(lambda f: f["type"] == "ping", 30)
            held = presence_lock.transaction()
            await held.start()
            await presence_lock.execute("LOCK TABLE stream_presence IN ACCESS EXCLUSIVE MODE")
        async with asyncio.timeout(30):  # the client is gone: the stream writes its leaving
            while "presence could not be written" not in server.log_path.read_text():
                for row in await watcher.fetch(
                    WAITING, f"ginrummy {server.proc.pid}", "%stream_presence%"
                ):
                    await terminate(watcher, int(row["pid"]))
                await asyncio.sleep(0.1)
        await held.commit()
        heard = Heard()
        async with listening(over_ndjson(server.url, player.token, heard)):
            await heard.first(lambda f: f["type"] == "ping", 30)
        log = server.log_path.read_text()
        assert "Traceback" not in log, log[-3000:]
        assert " ERROR " not in log, log[-3000:]
    finally:
        for conn in (presence_lock, watcher):
            await conn.close()
        await player.close()
        server.stop()
