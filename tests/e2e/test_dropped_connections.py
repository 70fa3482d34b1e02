"""A pooled PostgreSQL session the database dropped costs no request.

After a PostgreSQL restart or an operator's ``pg_terminate_backend``, every session the
pool kept is dead. Without a check at checkout, the first request to draw one was
answered 503 ``store_unavailable`` (the pool then replaced the rest). Here the server's
sessions are terminated for real, found by their ``application_name`` (``ginrummy
PID``), and the very next requests, reads and moves alike, must succeed.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess, as_action


async def _terminate_sessions_of(server: ServerProcess) -> int:
    """Terminate the server's pooled sessions (not its LISTEN session: the tailer has its
    own reconnection) and wait until they are gone; how many were terminated.

    ``pg_terminate_backend`` returns once it has signalled a backend, before the backend
    has told its client and exited. A backend leaves ``pg_stat_activity`` before its
    socket closes (PostgreSQL clears the entry, then the process exits), and between the
    two the server holds a session that has had the database's goodbye but not its close:
    asyncpg cannot tell it from a live one without a round trip, and a request drawing
    it then is answered 503 (measured through a proxy that holds the close back). So the
    drop is over when the server process has seen each socket close (its end is neither
    established nor waiting to close), and that moment, not a guessed sleep, is "after
    the drop"."""
    assert server.proc is not None
    conn = await asyncpg.connect(asyncpg_dsn(server.database_url))
    try:
        rows = await conn.fetch(
            "select pid, client_port, pg_terminate_backend(pid) from pg_stat_activity"
            " where datname = current_database() and application_name = $1",
            f"ginrummy {server.proc.pid}",
        )
        pids = [row["pid"] for row in rows]
        for _ in range(200):
            left = await conn.fetchval(
                "select count(*) from pg_stat_activity where pid = any($1::int[])", pids
            )
            if left == 0:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"terminated sessions still there: {pids}")
        ports = {row["client_port"] for row in rows}
        database_port = make_url(server.database_url).port or 5432
        for _ in range(500):
            if not ports & _open_client_ports(database_port):
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"the server never saw its sessions close: {ports}")
    finally:
        await conn.close()
    return len(pids)


def _open_client_ports(database_port: int) -> set[int]:
    """The local ports of this machine's TCP connections to PostgreSQL whose client has
    not closed them: established, or told of the close but not yet closing."""
    open_states = {"01", "08"}  # ESTABLISHED, CLOSE_WAIT (Linux's include/net/tcp_states.h)
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                local, remote, state = line.split()[1:4]
                if int(remote.rsplit(":", 1)[1], 16) == database_port and state in open_states:
                    ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_the_next_requests_after_terminated_sessions_succeed(server: ServerProcess) -> None:
    players = [await Player.create(server.url, name=f"p{i}") for i in range(4)]
    matches = [await player.new_match(seed=f"drop{i}") for i, player in enumerate(players)]
    for _ in range(3):  # several rounds: several sessions are pooled, and each one dies
        await asyncio.gather(
            *(player.view(m["match_id"]) for player, m in zip(players, matches, strict=True))
        )
        assert await _terminate_sessions_of(server) >= 1
        me = await players[0].client.get("/v1/me")
        assert me.status_code == 200, me.text
        answers = await asyncio.gather(
            *(
                player.act(m["match_id"], as_action(m["view"]["legal"][0]), m["version"])
                for player, m in zip(players, matches, strict=True)
            )
        )
        for answer in answers:
            assert answer.status_code == 200, answer.text
        for index, answer in enumerate(answers):
            body = answer.json()
            matches[index] = {**matches[index], "view": body["view"], "version": body["version"]}
        ready = await players[0].client.get("/readyz")
        assert ready.status_code == 200, ready.text
    for player in players:
        await player.close()
