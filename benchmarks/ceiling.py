"""The database's ceiling for the server's writes: pgbench running ``pgbench_append.sql``.

    python -m benchmarks.ceiling --clients 1,16,64 --seconds 15 [--database-url URL]

The issue's figure of merit is actions/s ÷ (pgbench tps / 2): what the server gets
out of the database compared with what the database takes for the same writes (one
action = two appends), measured beside it, since absolute rates on a shared machine
move by 2x from day to day. ``bench_server`` calls ``measure`` after each client count.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url

from infra.scratch_database import (
    create_scratch_database,
    drop_scratch_database,
    execute_as_admin,
)

SCRIPT = Path(__file__).with_name("pgbench_append.sql")
TABLE = """CREATE TABLE IF NOT EXISTS pgbench_events (
    position bigserial PRIMARY KEY,
    stream_id text NOT NULL,
    version integer NOT NULL,
    type text NOT NULL,
    schema_version integer NOT NULL,
    payload text NOT NULL,
    recorded_at timestamptz NOT NULL,
    command_id text,
    UNIQUE (stream_id, version)
)"""


def available() -> bool:
    return shutil.which("pgbench") is not None


async def prepare(url: str) -> None:
    """Create the script's table (the shape of ``events``) in the database ``url`` names."""
    await execute_as_admin(url, TABLE)


def measure(url: str, clients: int, seconds: float) -> float:
    """pgbench's transactions per second with ``clients`` clients for ``seconds``."""
    parsed = make_url(url)
    env = {**os.environ}
    if parsed.password:
        env["PGPASSWORD"] = parsed.password
    out = subprocess.run(
        [
            "pgbench",
            "-n",
            "-h",
            parsed.host or "127.0.0.1",
            "-p",
            str(parsed.port or 5432),
            "-U",
            parsed.username or "postgres",
            "-c",
            str(clients),
            "-j",
            str(min(clients, 2)),
            "-T",
            str(max(1, round(seconds))),
            "-f",
            str(SCRIPT),
            parsed.database or "postgres",
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        env=env,
    )
    if out.returncode != 0:  # e.g. more clients than the connections a server left free
        raise RuntimeError(f"pgbench with {clients} clients failed: {out.stderr.strip()}")
    found = re.search(r"tps = ([\d.]+)", out.stdout)
    if found is None:
        raise RuntimeError(f"pgbench printed no tps:\n{out.stdout}")
    return float(found.group(1))


async def main_async(args: argparse.Namespace) -> None:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    url = await create_scratch_database(base, "ginrummy_ceiling")
    try:
        await prepare(url)
        for clients in [int(c) for c in args.clients.split(",")]:
            tps = await asyncio.to_thread(measure, url, clients, args.seconds)
            print(f"{clients} clients: {tps:,.0f} tps, ceiling {tps / 2:,.0f} actions/s")
    finally:
        await drop_scratch_database(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", default="1,16,64")
    parser.add_argument("--database-url", default=None)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
