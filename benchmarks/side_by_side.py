"""Two checkouts' servers up at once, measured in short alternating blocks (issue 22).

    python -m benchmarks.side_by_side --code before=/tmp/wt-before --code after=. \\
        [--clients 16] [--seconds 12] [--blocks 4] [--keyed] [--ceiling] [--open-loop RATE]

On the shared two cores the rate moves by 2x within minutes, more than most changes
move it; rounds of a whole ``bench_server`` run minutes apart (and PostgreSQL, shared
with other runs, refused connections twice in one afternoon). Here both servers run
from the start, each on its own fresh database, and the blocks alternate A B, B A, ...
so each pair shares its minute. A block is one closed-loop level of ``bench_server``
(``--clients`` clients) or, with ``--open-loop RATE``, an open-loop row at RATE
actions/s over ``--clients`` matches (benchmarks/open_loop.py). ``--ceiling`` runs the
``pgbench_append.sql`` ceiling after each pair, for the ratio. Medians are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import bench_server as bench
from benchmarks import ceiling, open_loop
from infra.scratch_database import create_scratch_database, drop_scratch_database


async def block(args: argparse.Namespace, url: str, pid: int) -> dict[str, Any]:
    if args.open_loop:
        return await open_loop.offered(
            url, pid, args.open_loop, args.clients, args.seconds, args.keyed
        )
    return await bench.level(url, pid, args.clients, args.seconds, args.keyed)


async def run(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    codes = dict(spec.split("=", 1) for spec in args.code)
    servers: dict[str, Any] = {}
    databases: list[str] = []
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in codes}
    try:
        for name, code in codes.items():
            databases.append(await create_scratch_database(base, "ginrummy_side"))
            workdir = Path(tempfile.mkdtemp(prefix="side-by-side-"))
            servers[name] = bench.start_server(databases[-1], workdir, Path(code))
        if args.ceiling:
            await ceiling.prepare(databases[0])
        names = list(codes)
        for index in range(args.blocks):
            for name in names if index % 2 == 0 else names[::-1]:
                proc, url = servers[name]
                row = await block(args, url, proc.pid)
                row["load"] = os.getloadavg()[0]
                results[name].append(row)
                print(name, index, json.dumps(row), flush=True)
            if args.ceiling:
                tps = ceiling.measure(databases[0], args.clients, args.seconds)
                for name in names:
                    results[name][-1]["ratio"] = results[name][-1]["per_second"] / (tps / 2)
                    results[name][-1]["ceiling"] = tps / 2
    finally:
        for proc, _ in servers.values():
            bench.stop_server(proc)
        for database in databases:
            await drop_scratch_database(database)
    return results


def medians(results: dict[str, list[dict[str, Any]]], codes: dict[str, str]) -> str:
    lines = []
    for name, rows in results.items():
        fields = ["per_second", "p50", "p99", "cpu_ms"] + (["ratio"] if "ratio" in rows[0] else [])
        values = ", ".join(f"{f} {statistics.median(r[f] for r in rows):.2f}" for f in fields)
        lines.append(f"{name} (commit {bench.commit_of(Path(codes[name]))}): {values}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", action="append", required=True, help="NAME=DIR, twice")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--keyed", action="store_true", help="a fresh Idempotency-Key each")
    parser.add_argument("--ceiling", action="store_true", help="pgbench after each pair")
    parser.add_argument("--open-loop", type=float, default=None, metavar="RATE")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = asyncio.run(run(args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(medians(results, dict(spec.split("=", 1) for spec in args.code)))


if __name__ == "__main__":
    main()
