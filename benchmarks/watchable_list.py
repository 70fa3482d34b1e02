"""What one ``GET /v1/matches/watchable`` costs a server, side by side across checkouts.

    python -m benchmarks.watchable_list --code before=/tmp/wt-before --code after=. \\
        [--matches 120] [--requests 40] [--rounds 4]

The list needs no token and has no rate limit of its own, so its cost per request is
what an anonymous caller can make a server spend. Each checkout's server runs on a
fresh PostgreSQL database holding ``--matches`` matches in play (a person against the
house, one per player); the servers are measured in alternating rounds (A B, B A, ...)
so each pair shares the machine's minute, and each round also times ``/readyz`` on the
same server as a reference: the ratio of the two is what the shared machine's noise
moves least. Prints each checkout's median and p95 (ms) for a full page (``limit=100``),
a short page (``limit=10``) and ``/readyz``, and the full page's ratio to ``/readyz``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import bench_server as bench
from infra.scratch_database import create_scratch_database, drop_scratch_database

PATHS = {
    "full page": "/v1/matches/watchable?limit=100",
    "short page": "/v1/matches/watchable?limit=10",
    "readyz": "/readyz",
}


async def fill(url: str, matches: int) -> None:
    """``matches`` matches in play, each a new player's against the easy house AI."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for number in range(matches):
            made = await client.post("/v1/players", json={"name": f"watched {number}"})
            made.raise_for_status()
            token = made.json()["token"]
            started = await client.post(
                "/v1/matches",
                json={"level": "easy", "rules": {"preset": "classic"}},
                headers={"Authorization": f"Bearer {token}"},
            )
            started.raise_for_status()


async def timed(url: str, path: str, requests: int) -> list[float]:
    """Milliseconds for each of ``requests`` sequential GETs of ``path``."""
    times = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for _ in range(requests):
            began = time.perf_counter()
            response = await client.get(path)
            times.append((time.perf_counter() - began) * 1000)
            response.raise_for_status()
    return times


async def run(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    codes = dict(spec.split("=", 1) for spec in args.code)
    servers: dict[str, Any] = {}
    databases: list[str] = []
    times: dict[str, dict[str, list[float]]] = {name: {p: [] for p in PATHS} for name in codes}
    try:
        for name, code in codes.items():
            databases.append(await create_scratch_database(base, "ginrummy_watchable"))
            workdir = Path(tempfile.mkdtemp(prefix="watchable-list-"))
            servers[name] = bench.start_server(databases[-1], workdir, Path(code))
            await fill(servers[name][1], args.matches)
        names = list(codes)
        for index in range(args.rounds):
            for name in names if index % 2 == 0 else names[::-1]:
                url = servers[name][1]
                for label, path in PATHS.items():
                    times[name][label] += await timed(url, path, args.requests)
                print(f"round {index} {name} load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        for proc, _ in servers.values():
            bench.stop_server(proc)
        for database in databases:
            await drop_scratch_database(database)
    return times


def report(times: dict[str, dict[str, list[float]]], codes: dict[str, str]) -> str:
    lines = []
    for name, by_path in times.items():
        parts = []
        for label, values in by_path.items():
            ordered = sorted(values)
            p95 = ordered[int(0.95 * (len(ordered) - 1))]
            parts.append(f"{label} median {statistics.median(values):.1f} p95 {p95:.1f}")
        ratio = statistics.median(by_path["full page"]) / statistics.median(by_path["readyz"])
        commit = bench.commit_of(Path(codes[name]))
        lines.append(f"{name} (commit {commit}): {'; '.join(parts)}; full/readyz {ratio:.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", action="append", required=True, help="NAME=DIR, once or more")
    parser.add_argument("--matches", type=int, default=120)
    parser.add_argument("--requests", type=int, default=40, help="per path and round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    codes = dict(spec.split("=", 1) for spec in args.code)
    print(report(asyncio.run(run(args)), codes))


if __name__ == "__main__":
    main()
