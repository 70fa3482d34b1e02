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

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess, as_action


async def _terminate_sessions_of(server: ServerProcess) -> int:
    """Terminate the server's pooled sessions (not its LISTEN session: the tailer has its
    own reconnection) and wait until they are gone; how many were terminated.

    ``pg_terminate_backend`` returns once it has signalled a backend, before the backend
    has told its client and exited: the drop is over when they have left
    ``pg_stat_activity``, and that moment, not a guessed sleep, is "after the drop"."""
    assert server.proc is not None
    conn = await asyncpg.connect(asyncpg_dsn(server.database_url))
    try:
        pids = [
            row["pid"]
            for row in await conn.fetch(
                "select pid, pg_terminate_backend(pid) from pg_stat_activity"
                " where datname = current_database() and application_name = $1",
                f"ginrummy {server.proc.pid}",
            )
        ]
        for _ in range(200):
            left = await conn.fetchval(
                "select count(*) from pg_stat_activity where pid = any($1::int[])", pids
            )
            if left == 0:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"terminated sessions still there: {pids}")
    finally:
        await conn.close()
    return len(pids)


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
