"""The chat half of a match socket loses no message to a failed database read.

The reads fail for real, on a real server process and PostgreSQL: each is caught
waiting on a table lock this test holds, found by its ``application_name``, and its
session terminated. A chat read and the match's read are the same statement on the
same table, so the test orders them with a lock on a table met just before the read
it wants to catch:

* opening: the socket's arrival (a seat's presence row, a spectator's count) is held
  on its table's lock while the events table is locked; once the arrival goes on, the
  next read of a stream is the chat's, made as the socket opens (the match's read came
  before the arrival). Before, the socket was admitted without it: the chat task's first
  read then failed after the snapshot, the chat's "from now" was fixed only at the next
  message, counting that message, which was never sent.
* later: a post's append is held on the log head's lock (``ginrummy_append`` updates it
  after inserting the event) while the events table's lock is asked for, so the lock is
  granted as the post commits and the reads that follow it, the chat task's among them,
  wait on it. Before, the failed read waited for the next message: the one whose read
  failed came only if someone wrote again.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import websockets

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess, wait_for
from tests.e2e.test_chat import Socket, connect, say
from tests.e2e.test_stream_read_failures import MATCH_READ, WAITING, terminate, waiting_read

ARRIVALS = {"live": "%INSERT INTO seat_presence%", "watch": "%INSERT INTO spectators%"}


async def waiting_reads(conn: Any, server: ServerProcess, count: int) -> list[int]:
    """The sessions of ``count`` reads of a stream by ``server`` waiting on a lock."""
    assert server.proc is not None
    async with asyncio.timeout(20):
        while True:
            rows = await conn.fetch(WAITING, f"ginrummy {server.proc.pid}", MATCH_READ)
            if len(rows) >= count:
                return [int(row["pid"]) for row in rows]
            await asyncio.sleep(0.05)


async def lock_waits(conn: Any, pid: int) -> None:
    """Until session ``pid`` waits on a lock."""
    async with asyncio.timeout(20):
        while not await conn.fetchval(
            "select count(*) from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'",
            pid,
        ):
            await asyncio.sleep(0.05)


async def first_frame_and_close(url: str) -> tuple[dict[str, Any], int | None, str | None]:
    """The socket's first frame, and how it closed after an ``error`` frame; a socket
    that was admitted stays open a while (its chat task reads as it starts)."""
    async with websockets.connect(url) as ws:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        with pytest.raises((websockets.ConnectionClosed, TimeoutError)):
            while True:
                await asyncio.wait_for(ws.recv(), 30 if frame["type"] == "error" else 5)
    return frame, ws.close_code, ws.close_reason


@pytest.mark.parametrize("kind", ["live", "watch"])
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_socket_whose_chat_cannot_be_read_as_it_opens_is_refused(
    server: ServerProcess, kind: str
) -> None:
    """The chat's "from now" is read as the socket opens; if that read fails the socket
    is refused (``store_unavailable``, 4503) and counts nowhere (its seat's presence or
    the match's spectators), as nothing was said yet; a reconnect gets what comes next."""
    host = await Player.create(server.url, "Opener")
    match = await host.new_match(seed="chat-open")
    match_id = match["match_id"]
    code = f"?watch_code={match['watch_code']}" if match.get("watch_code") else ""
    url = (
        f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        if kind == "live"
        else f"{server.ws_url}/v1/matches/{match_id}/watch{code}"
    )
    dsn = asyncpg_dsn(server.database_url)
    arrival_lock, events_lock, watcher = [await asyncpg.connect(dsn) for _ in range(3)]
    try:
        held = arrival_lock.transaction()
        await held.start()
        table = "seat_presence" if kind == "live" else "spectators"
        await arrival_lock.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        opening = asyncio.create_task(first_frame_and_close(url))
        await waiting_read(watcher, server, ARRIVALS[kind])  # admitted but for its arrival
        async with events_lock.transaction():
            await events_lock.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            await held.commit()
            read = await waiting_read(watcher, server, MATCH_READ)  # the chat's
            await terminate(watcher, read[0])
        frame, close_code, close_reason = await opening
        assert frame["type"] == "error", frame
        assert frame["problem"]["type"] == "/problems/store-unavailable", frame
        assert (close_code, close_reason) == (4503, "store_unavailable")
        seen = (await host.view(match_id))["spectators"]
        assert seen == 0, "a refused spectator still counts"

        socket = await connect(url, host.token if kind == "live" else None)
        try:
            posted = await say(host, match_id, "after the outage")
            assert posted.status_code == 201, posted.text
            await wait_for(lambda: socket.texts() == ["after the outage"], 15)
        finally:
            await socket.close()
        assert "could not open" in server.log_path.read_text()
    finally:
        for conn in (arrival_lock, events_lock, watcher):
            await conn.close()
        await host.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_chat_read_that_fails_is_read_again_without_another_message(
    server: ServerProcess,
) -> None:
    """A message whose read fails on the socket's chat task comes once the database
    answers, after a back-off, with no other message to wake the task; and its post,
    recorded, is answered as recorded whatever the reads after it meet."""
    host = await Player.create(server.url, "Talker")
    match = await host.new_match(seed="chat-retry")
    match_id = match["match_id"]
    dsn = asyncpg_dsn(server.database_url)
    head_lock, events_lock, watcher = [await asyncpg.connect(dsn) for _ in range(3)]
    socket: Socket | None = None
    try:
        socket = await connect(f"{server.ws_url}/v1/matches/{match_id}/live", host.token)
        assert (await say(host, match_id, "first")).status_code == 201
        await wait_for(lambda: socket is not None and socket.texts() == ["first"], 15)

        appending = head_lock.transaction()
        await appending.start()
        await head_lock.execute("LOCK TABLE log_head IN SHARE MODE")  # the append's last step
        posting = asyncio.create_task(say(host, match_id, "second"))
        await waiting_read(watcher, server, "%ginrummy_append%")  # its event inserted
        held = events_lock.transaction()
        await held.start()
        locking = asyncio.create_task(
            events_lock.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
        )
        await lock_waits(watcher, events_lock.get_server_pid())  # queued behind the append
        await appending.commit()
        await locking  # granted as the post committed: every read after it waits
        await waiting_reads(watcher, server, 1)  # the chat task's
        await asyncio.sleep(1)  # any other read after the commit waits by now: all end
        for pid in await waiting_reads(watcher, server, 1):
            await terminate(watcher, pid)
        await held.commit()
        # The post is answered from what it appended: it read the chat back, that read
        # waited here too, and a recorded message was answered 503 (a retry posts twice).
        posted = await posting
        assert posted.status_code == 201, posted.text
        assert posted.json()["version"] == 2, posted.text

        await wait_for(lambda: socket is not None and socket.texts() == ["first", "second"], 15)
        assert f"a live socket's read of the chat of {match_id} failed" in (
            server.log_path.read_text()
        )
    finally:
        if socket is not None:
            await socket.close()
        for conn in (head_lock, events_lock, watcher):
            await conn.close()
        await host.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_chat_message_over_the_socket_in_an_outage_is_a_503_said_once_in_the_log(
    database_url: str, tmp_path: Path
) -> None:
    """A chat message sent over the socket while the database fails (here its own
    ``lock_timeout`` stops the chat's read of its stream) is answered with an
    ``error`` frame, 503 ``store_unavailable``, and logged as HTTP logs an outage: one
    warning line a while, no traceback. Before, every such message was an "unhandled
    error" with its traceback, as if it were a bug."""
    admin = await asyncpg.connect(asyncpg_dsn(database_url))
    database = await admin.fetchval("select current_database()")
    await admin.execute(f'ALTER DATABASE "{database}" SET lock_timeout = 1000')
    server = ServerProcess(database_url, tmp_path).start()
    host = await Player.create(server.url, "Outage")
    match = await host.new_match(seed="chat-outage")
    socket = await connect(f"{server.ws_url}/v1/matches/{match['match_id']}/live", host.token)
    try:
        async with admin.transaction():
            await admin.execute("SET LOCAL lock_timeout = 0")
            await admin.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            for text in ("one", "two"):
                await socket.ws.send(json.dumps({"type": "chat", "text": text}))
            await wait_for(lambda: len(socket.of("error")) == 2, 30)
        for frame in socket.of("error"):
            assert frame["problem"]["type"] == "/problems/store-unavailable", frame
            assert frame["problem"]["status"] == 503, frame
    finally:
        await socket.close()
        await host.close()
        server.stop()
        await admin.close()
    log = server.log_path.read_text()
    said = f"database unavailable (503) on a chat message in match {match['match_id']}"
    assert log.count(said) == 1, log
    assert "Traceback" not in log and "unhandled error" not in log, log
