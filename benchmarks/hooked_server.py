"""A server with ``benchmarks/server_hooks/`` on its path, on a scratch database, for
the benchmarks that look inside it (``wall_split``, ``tail_trace``).

The hooks (a ``sitecustomize.py``) install the watch a benchmark names by its log's
environment variable, and write what they saw to that file when the server is sent
SIGUSR2 (``HookedServer.collect``). The database and the server are gone afterwards,
however the benchmark ends.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import bench_server as bench
from infra.scratch_database import create_scratch_database, drop_scratch_database

HOOKS = Path(__file__).resolve().parent / "server_hooks"


def postgres_base(database_url: str | None) -> str:
    """The PostgreSQL server to make scratch databases on (``--database-url`` or the tests')."""
    base = database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    return base


@dataclass(frozen=True)
class HookedServer:
    proc: subprocess.Popen[bytes]
    url: str
    database: str
    log: Path

    async def collect(self) -> Any:
        """What the hooks saw so far (the server writes it on SIGUSR2)."""
        self.proc.send_signal(signal.SIGUSR2)
        await asyncio.sleep(2)
        return json.loads(self.log.read_text())


@asynccontextmanager
async def hooked_server(
    database_url: str | None, code: Path, name: str, log_variable: str
) -> AsyncIterator[HookedServer]:
    """The server of ``code`` with the hooks whose log ``log_variable`` names."""
    database = await create_scratch_database(postgres_base(database_url), f"ginrummy_{name}")
    workdir = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    log = workdir / f"{name}.json"
    proc = None
    os.environ[log_variable] = str(log)  # the server inherits it; nothing else needs it
    try:
        proc, url = bench.start_server(database, workdir, code, hooks=HOOKS)
        os.environ.pop(log_variable, None)
        yield HookedServer(proc, url, database, log)
    finally:
        os.environ.pop(log_variable, None)
        if proc is not None:
            bench.stop_server(proc)
        await drop_scratch_database(database)
