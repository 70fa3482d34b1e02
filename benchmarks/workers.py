"""One server worker against two, side by side in one run (issue 22 item 3).

    python -m benchmarks.workers [--rounds 3] [--seconds 15] [--clients 16,64] [--workers 1,2]
                                 [--keyed] [--json FILE]

On a shared machine the absolute rate moves by 2x from one minute to the next, so
the two settings are measured in alternating rounds (1, 2, then 2, 1, ...), each
round a fresh database and a fresh ``ginrummy serve`` with ``GINRUMMY_WORKERS`` set,
each client count's ``pgbench_append.sql`` ceiling measured on the same database
once the server has stopped (its workers' pools would leave too few connections). What is compared is the ratio to that ceiling and
the CPU per action (the server's processes, workers included), reported as the
median over rounds; the load average is taken at every level, because on two cores
the load generator, the workers and PostgreSQL all compete for the same CPUs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

from benchmarks import ceiling
from benchmarks.bench_server import (
    ROOT,
    add_ceiling,
    commit_of,
    level,
    start_server,
    stop_server,
)
from infra.scratch_database import create_scratch_database, drop_scratch_database

WARM_UP_S = 3.0


def _order(round_index: int, workers: list[int]) -> list[int]:
    """Alternate which setting goes first, so a drift in load favours neither."""
    return workers if round_index % 2 == 0 else list(reversed(workers))


async def one_run(
    base: str, workers: int, clients: list[int], seconds: float, keyed: bool
) -> list[dict[str, Any]]:
    """A fresh database and server with ``workers``; one row per client count."""
    database_url = await create_scratch_database(base, "ginrummy_bench")
    workdir = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    proc = None
    rows: list[dict[str, Any]] = []
    try:
        await ceiling.prepare(database_url)
        proc, url = start_server(database_url, workdir, workers=workers)
        # Unmeasured: every worker past its start-up (the first /readyz answers from one).
        await level(url, proc.pid, max(clients), WARM_UP_S, keyed)
        for count in clients:
            row = await level(url, proc.pid, count, seconds, keyed)
            row["load"] = os.getloadavg()[0]
            rows.append(row)
        # The ceilings once the server is gone: each worker keeps a pool of connections
        # open, and with them 64 pgbench clients would pass PostgreSQL's max_connections.
        stop_server(proc)
        proc = None
        for row in rows:
            await add_ceiling([row], database_url, seconds)
            row["ratio"] = row["per_second"] / row["ceiling"]
            row["workers"] = workers
            print(json.dumps(row), flush=True)
    finally:
        if proc is not None:
            stop_server(proc)
        await drop_scratch_database(database_url)
    return rows


def summary(rows: list[dict[str, Any]], workers: list[int], clients: list[int]) -> str:
    """Medians per (clients, workers), and the two-worker ratio over the one-worker ratio."""
    lines = [
        "| clients | workers | rounds | actions/s | p50 ms | p99 ms | CPU ms/action | ceiling actions/s | ratio | load (1 min) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for count in clients:
        for w in workers:
            mine = [r for r in rows if r["clients"] == count and r["workers"] == w]
            if not mine:
                continue

            def med(key: str, mine: list[dict[str, Any]] = mine) -> float:
                return float(median(r[key] for r in mine))

            lines.append(
                f"| {count} | {w} | {len(mine)} | {med('per_second'):.0f} | {med('p50'):.1f} | "
                f"{med('p99'):.1f} | {med('cpu_ms'):.2f} | {med('ceiling'):.0f} | "
                f"{med('ratio'):.2f} | {med('load'):.1f} |"
            )
    lines.append("")
    for count in clients:
        per_round = [
            (
                r["ratio"],
                [
                    s
                    for s in rows
                    if s["round"] == r["round"]
                    and s["clients"] == count
                    and s["workers"] == workers[-1]
                ],
            )
            for r in rows
            if r["clients"] == count and r["workers"] == workers[0]
        ]
        gains = [other[0]["ratio"] / ratio for ratio, other in per_round if other]
        if gains:
            lines.append(
                f"{count} clients: ratio with {workers[-1]} workers ÷ ratio with {workers[0]}, per round: "
                + ", ".join(f"{g:.2f}" for g in gains)
                + f" (median {median(gains):.2f})"
            )
    return "\n".join(lines) + "\n"


async def run(args: argparse.Namespace) -> str:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    if not ceiling.available():
        raise SystemExit("needs pgbench for the ceiling")
    workers = [int(w) for w in args.workers.split(",")]
    clients = [int(c) for c in args.clients.split(",")]
    rows: list[dict[str, Any]] = []
    for index in range(args.rounds):
        for w in _order(index, workers):
            for row in await one_run(base, w, clients, args.seconds, args.keyed):
                row["round"] = index
                rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    head = (
        f"Server code at commit {commit_of(ROOT)}; {args.rounds} rounds, "
        f"{args.seconds:g} s per level, Idempotency-Key {'yes' if args.keyed else 'no'}; "
        f"{os.cpu_count()} CPUs.\n\n"
    )
    return head + summary(rows, workers, clients)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", default="16,64")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument(
        "--keyed", action="store_true", help="every action sends an Idempotency-Key"
    )
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", default=None, help="also write every row here")
    print(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
