"""Each PostgreSQL connection of a server says whose it is (``pg_stat_activity``).

An operator looking at a full ``max_connections``, a lock held too long or an idle
transaction sees ``application_name``: a server's pool and its LISTEN connection
name the program and the process id, so two processes on one database (or a
benchmark and a test beside them) are told apart without guessing from client ports.
"""

from __future__ import annotations

import asyncpg
import pytest

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_servers_connections_name_it_and_its_process(server: ServerProcess) -> None:
    player = await Player.create(server.url)  # the pool opens a connection or two
    await player.close()
    assert server.proc is not None
    conn = await asyncpg.connect(asyncpg_dsn(server.database_url))
    try:
        names = [
            row["application_name"]
            for row in await conn.fetch(
                "select application_name from pg_stat_activity"
                " where datname = current_database() and pid <> pg_backend_pid()"
            )
        ]
    finally:
        await conn.close()
    ours = f"ginrummy {server.proc.pid}"
    assert names and all(name.startswith(ours) for name in names), names
    assert f"{ours} listen" in names, "the tailer's LISTEN connection says what it is"
