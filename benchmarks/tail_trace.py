"""What the slow actions of an open loop waited for (issue 22's tail).

    python -m benchmarks.tail_trace [--code DIR] [--rate 150] [--seconds 30] [--blocks 2]
                                    [--slow-ms 50] [--keyed]

One server (``benchmarks/server_hooks/tail_watch.py`` on its path) on a fresh
PostgreSQL database; ``--blocks`` open-loop blocks at ``--rate`` actions/s over 64
matches. The generator notes each action's due, sent and answered times and the server
its request spans, group commits, collections and loop stalls, on one clock. Every
action slower than ``--slow-ms`` is split into: sent late (no free match, or the
generator's own loop), before the app (connection, HTTP parsing, the server's loop),
inside the app, and after it (the answer's way back); and for the part inside, the
longest group commit it overlapped, the collections and the loop stalls (with the
main thread's stack, so a stall names its code). The same split of all actions is
given beside it, so the slow ones can be told from the ordinary.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import collections
import json
import os
import statistics
from pathlib import Path
from typing import Any

from benchmarks import bench_server as bench
from benchmarks import open_loop
from benchmarks.hooked_server import hooked_server


async def run(args: argparse.Namespace) -> dict[str, Any]:
    actions: list[tuple[float, float, float, str]] = []
    rows = []
    async with hooked_server(args.database_url, Path(args.code), "tail", "TAIL_LOG") as server:
        for _ in range(args.blocks):
            row = await open_loop.offered(
                server.url, server.proc.pid, args.rate, 64, args.seconds, args.keyed, actions
            )
            row["load"] = os.getloadavg()[0]
            rows.append(row)
            print(json.dumps(row), flush=True)
        spans = await server.collect()
    return {
        "commit": bench.commit_of(Path(args.code)),
        "rows": rows,
        "actions": actions,
        "spans": spans,
    }


def split(out: dict[str, Any], slow_ms: float) -> str:
    spans = out["spans"]
    by_kind: dict[str, list[list[Any]]] = collections.defaultdict(list)
    for span in spans:
        by_kind[span[0]].append(span)
    requests: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    for _, start, end, path in by_kind["request"]:
        requests[path.split("/")[3]].append((start, end))
    for found in requests.values():
        found.sort()

    def overlapping(kind: str, start: float, end: float) -> list[list[Any]]:
        return [s for s in by_kind[kind] if s[1] < end and s[2] > start]

    parts: dict[str, dict[str, list[float]]] = {"slow": {}, "all": {}}
    stall_stacks: collections.Counter[str] = collections.Counter()
    unmatched = 0
    for due, sent, answered, match_id in out["actions"]:
        found = requests.get(match_id, [])
        at = bisect.bisect_right(found, (answered, float("inf"))) - 1
        if at < 0 or found[at][0] < sent - 0.001:
            unmatched += 1
            continue
        start, end = found[at]
        total = (answered - due) * 1000
        split_ms = {
            "total": total,
            "sent late": (sent - due) * 1000,
            "before the app": (start - sent) * 1000,
            "inside the app": (end - start) * 1000,
            "after the app": (answered - end) * 1000,
            "longest group commit overlapped": max(
                ((s[2] - s[1]) * 1000 for s in overlapping("group", start, end)), default=0.0
            ),
            "collections overlapped, ms": sum(
                (s[2] - s[1]) * 1000 for s in overlapping("gc", sent, answered)
            ),
            "loop stalls overlapped, ms": sum(
                (s[2] - s[1]) * 1000 for s in overlapping("stall", sent, answered)
            ),
            "connects overlapped": float(len(overlapping("connect", sent, answered))),
        }
        for which in ("all", "slow") if total > slow_ms else ("all",):
            for name, value in split_ms.items():
                parts[which].setdefault(name, []).append(value)
        if total > slow_ms:
            for stall in overlapping("stall", sent, answered):
                stall_stacks[" <- ".join(reversed(stall[3][-4:]))] += 1
    lines = [f"commit {out['commit']}; actions {len(out['actions'])}, unmatched {unmatched}"]
    for row in out["rows"]:
        lines.append(
            f"  block: {row['per_second']:.0f}/s p50 {row['p50']:.1f} p99 {row['p99']:.1f} "
            f"max {row['max']:.1f} ms, cpu {row['cpu_ms']:.2f} ms/action, load {row['load']:.1f}"
        )
    slow_count = len(parts["slow"].get("total", []))
    lines.append(
        f"\n| ms (median / p90 / max) | all actions | the {slow_count} over {slow_ms:g} ms |"
    )
    lines.append("|---|---|---|")
    for name in parts["all"]:
        cells = []
        for which in ("all", "slow"):
            values = parts[which].get(name, [])
            cells.append(
                f"{statistics.median(values):.1f} / {bench.percentile(values, 90):.1f} / "
                f"{max(values):.1f}"
                if values
                else "–"
            )
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    groups = [(s[2] - s[1]) * 1000 for s in by_kind["group"]]
    sizes = [float(s[3]) for s in by_kind["group"]]
    if groups:
        lines.append(
            f"\ngroup commits: {len(groups)}, ms median {statistics.median(groups):.1f} "
            f"p99 {bench.percentile(groups, 99):.1f} max {max(groups):.1f}; "
            f"size median {statistics.median(sizes):.0f} max {max(sizes):.0f}"
        )
    stalls = [(s[2] - s[1]) * 1000 for s in by_kind["stall"]]
    gcs = collections.Counter(s[3] for s in by_kind["gc"])
    connects = [(s[2] - s[1]) * 1000 for s in by_kind["connect"]]
    lines.append(
        f"loop stalls over 20 ms seen: {len(stalls)}; collections by generation {dict(gcs)}; "
        f"database connections opened: {len(connects)}"
        + (f", ms median {statistics.median(connects):.1f}" if connects else "")
    )
    for stack, count in stall_stacks.most_common(8):
        lines.append(f"  {count} x {stack}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=".")
    parser.add_argument("--rate", type=float, default=150.0)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--slow-ms", type=float, default=50.0)
    parser.add_argument("--keyed", action="store_true")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out = asyncio.run(run(args))
    if args.json:
        Path(args.json).write_text(json.dumps(out))
    print(split(out, args.slow_ms))


if __name__ == "__main__":
    main()
