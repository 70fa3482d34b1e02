"""The collector's pauses and the server's memory over a long open-loop life (issue 22).

    python -m benchmarks.gc_pauses --code before=/tmp/before --code after=. \\
        [--rate 150] [--matches 64] [--seconds 30] [--blocks 8] [--json FILE]

A short block shows few collections: the older generations run once the heap has
grown for minutes. So each checkout's server (both up from the start, each on its own
fresh database, with ``benchmarks/server_hooks`` on its path to log every collection) gets
``--blocks`` open-loop blocks of ``--seconds`` at ``--rate`` actions/s over ``--matches``
matches, alternating A B, B A, ... so both age alike on the same minutes. After each
block: the server's RSS and the block's latency. At the end, each server's heap (the
tracked objects by generation and type), what a middle (1) and a full (2) collection
cost then (forced, timed), and the pauses after start-up, by generation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import bench_server as bench
from benchmarks import open_loop
from benchmarks.hooked_server import HOOKS
from infra.scratch_database import create_scratch_database, drop_scratch_database


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pauses(log: Path, since: float) -> dict[str, list[float]]:
    """Pause ms (wall, and CPU: ``cpu 0`` ...) by generation, for collections after
    ``since`` (the server was ready)."""
    found: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        parts = line.split()
        if parts[0] == "gc" and float(parts[1]) >= since:
            found.setdefault(parts[2], []).append(float(parts[3]))
            found.setdefault("cpu " + parts[2], []).append(float(parts[5]))
    return dict(sorted(found.items()))


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"{len(values)} pauses, median {statistics.median(values):.1f}, "
        f"p99 {bench.percentile(values, 99):.1f}, max {max(values):.1f} ms"
    )


async def offered(url: str, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    """One open-loop block; tried again (up to twice) if seating failed: PostgreSQL,
    shared with other runs, refuses connections when all 100 are taken."""
    for attempt in range(3):
        try:
            return await open_loop.offered(url, pid, args.rate, args.matches, args.seconds, False)
        except (KeyError, httpx.HTTPError) as error:
            print("block failed, retrying:", repr(error), flush=True)
            if attempt == 2:
                raise
            await asyncio.sleep(5)
    raise AssertionError("unreachable")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    codes = dict(spec.split("=", 1) for spec in args.code)
    servers: dict[str, Any] = {}
    databases: list[str] = []
    out: dict[str, Any] = {name: {"blocks": [], "commit": "", "heap": ""} for name in codes}
    try:
        for name, code in codes.items():
            databases.append(await create_scratch_database(base, "ginrummy_gc"))
            workdir = Path(tempfile.mkdtemp(prefix="gc-pauses-"))
            log = workdir / "gc.log"
            os.environ["GC_PAUSE_LOG"] = str(log)
            proc, url = bench.start_server(databases[-1], workdir, Path(code), hooks=HOOKS)
            servers[name] = (proc, url, log, time.time())
            out[name]["commit"] = bench.commit_of(Path(code))
        os.environ.pop("GC_PAUSE_LOG", None)
        names = list(codes)
        for index in range(args.blocks):
            for name in names if index % 2 == 0 else names[::-1]:
                proc, url, _, _ = servers[name]
                row = await offered(url, proc.pid, args)
                row["rss_mb"] = rss_mb(proc.pid)
                row["load"] = os.getloadavg()[0]
                out[name]["blocks"].append(row)
                print(name, index, json.dumps(row), flush=True)
        for name, (proc, _, log, ready) in servers.items():
            proc.send_signal(signal.SIGUSR1)
            await asyncio.sleep(3)
            lines = log.read_text().splitlines()
            heap = [line for line in lines if line.startswith(("heap", "forced"))]
            out[name]["heap"] = "\n  ".join(heap[-3:])
            out[name]["pauses"] = pauses(log, ready)
    finally:
        for proc, *_ in servers.values():
            bench.stop_server(proc)
        for database in databases:
            await drop_scratch_database(database)
    return out


def report(out: dict[str, Any]) -> str:
    lines = []
    for name, seen in out.items():
        blocks = seen["blocks"]
        lines.append(f"{name} (commit {seen['commit']}):")
        lines.append("  p99 per block ms: " + " ".join(f"{b['p99']:.0f}" for b in blocks))
        lines.append("  RSS per block MB: " + " ".join(f"{b['rss_mb']:.0f}" for b in blocks))
        lines.append(f"  p99 median {statistics.median(b['p99'] for b in blocks):.1f} ms")
        for generation, values in seen.get("pauses", {}).items():
            lines.append(f"  gen {generation}: {summary(values)}")
        lines.append(f"  {seen['heap']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", action="append", required=True, help="NAME=DIR")
    parser.add_argument("--rate", type=float, default=150.0)
    parser.add_argument("--matches", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--blocks", type=int, default=8)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    print(report(out))


if __name__ == "__main__":
    main()
