"""Where a closed-loop action's wall time goes (issue 22): server, loop, store, generator.

    python -m benchmarks.wall_split [--code DIR] [--clients 16] [--seconds 12] [--blocks 3]

One server (``benchmarks/server_hooks/wall_watch.py`` on its path) on a fresh
PostgreSQL database, ``--blocks`` closed-loop blocks of ``bench_server``. Per block:
the client's latency (mean = clients ÷ actions/s, by Little's law, and p50/p99); the
CPU per action of the server, of this load generator (the same two cores), and of
the PostgreSQL backends serving this database. At the end, the server's own timings
(mean, p50, p99 ms): the action request inside the ASGI app, the chained append with
its wait for a slot, the store's part of it, the AI's decision, and the event loop's
lag (how late a 2 ms sleep wakes: what a ready task waits for the loop).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from benchmarks import bench_server as bench
from benchmarks.hooked_server import hooked_server


async def backend_cpu(database_url: str) -> float:
    """CPU seconds so far of the PostgreSQL backends connected to this database."""
    name = database_url.rsplit("/", 1)[1]
    dsn = database_url.replace("postgresql+asyncpg", "postgresql").rsplit("/", 1)[0] + "/postgres"
    conn = await asyncpg.connect(dsn)
    try:
        pids = [
            r["pid"]
            for r in await conn.fetch("SELECT pid FROM pg_stat_activity WHERE datname = $1", name)
        ]
    finally:
        await conn.close()
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):  # it ended meanwhile
            total += bench.cpu_seconds(pid)
    return total


def summary(values: list[float]) -> str:
    return (
        f"n {len(values)}, mean {statistics.fmean(values):.2f}, p50 "
        f"{bench.percentile(values, 50):.2f}, p99 {bench.percentile(values, 99):.2f} ms"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rows = []
    async with hooked_server(args.database_url, Path(args.code), "wall", "WALL_LOG") as server:
        for index in range(args.blocks):
            pg = await backend_cpu(server.database)
            row = await bench.level(server.url, server.proc.pid, args.clients, args.seconds, False)
            actions = max(1, row["actions"])
            row["postgres_cpu_ms"] = (await backend_cpu(server.database) - pg) * 1000 / actions
            row["mean_ms"] = args.clients / row["per_second"] * 1000
            row["load"] = os.getloadavg()[0]
            rows.append(row)
            print(index, json.dumps(row), flush=True)
        inside = await server.collect()
    return {"commit": bench.commit_of(Path(args.code)), "blocks": rows, "inside": inside}


def report(out: dict[str, Any]) -> str:
    rows = out["blocks"]
    lines = [f"commit {out['commit']}"]
    for field in (
        "per_second",
        "mean_ms",
        "p50",
        "p99",
        "cpu_ms",
        "generator_cpu_ms",
        "postgres_cpu_ms",
        "load",
    ):
        values = [row[field] for row in rows]
        lines.append(
            f"  {field}: median {statistics.median(values):.2f} (blocks "
            + " ".join(f"{v:.2f}" for v in values)
            + ")"
        )
    for name, values in sorted(out["inside"].items()):
        if values:
            lines.append(f"  {name}: {summary(values)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=".")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--blocks", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        Path(args.json).write_text(json.dumps(out))
    print(report(out))


if __name__ == "__main__":
    main()
