"""``GINRUMMY_LOG_LEVEL`` holds for the server's own lines after it starts, not only before.

Litestar configures the root logger at INFO when the app is built, after ``ginrummy
serve`` set the operator's level: the server's own warnings-and-up setting then still
logged its INFO lines (a dropped slow body, a timed-out seat), and ``debug`` showed none
of its debug lines. A slow body is the line used here: the server logs it at INFO.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.harness import ServerProcess


async def _send_a_slow_body(server: ServerProcess) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 20\r\n\r\n{"
    )
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(100), 10)
    assert answer.startswith(b"HTTP/1.1 408"), answer
    writer.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(("level", "shown"), [("warning", False), ("info", True)])
async def test_the_servers_info_lines_follow_the_log_level(
    database_url: str, tmp_path: Path, level: str, shown: bool
) -> None:
    server = ServerProcess(
        database_url, tmp_path, GINRUMMY_LOG_LEVEL=level, GINRUMMY_BODY_TIMEOUT_S="0.5"
    ).start()
    try:
        await _send_a_slow_body(server)
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert ("dropped POST /v1/players" in log) is shown, log
