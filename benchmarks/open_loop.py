"""Open-loop latency: actions offered at a fixed total rate, timed from when they were due.

    python -m benchmarks.bench_server --open-loop RATE [--matches 64] [--seconds 15]

``RATE`` is actions per second over all matches, or a share of the pgbench ceiling
measured first on the same database (``40%``: 40% of half the tps of
``pgbench_append.sql`` with ``--open-loop-clients`` clients, as the closed-loop rows have
it). A closed loop (each client sends its next action when the last is answered)
cannot show queueing: a slow answer delays the next request, so the slow period is
sampled less (coordinated omission). Here action ``i`` is due at ``start + i / RATE``
whatever happened before; it goes to a match that has no action in flight (each
match's next action depends on its last answer), waiting for one if none is free,
and its latency runs from the time it was due to its answer, so every wait counts:
for a free match, for a connection, in the server's queues. Each match has its own
keep-alive connection and plays the easy AI, as in the closed loop.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import httpx

from benchmarks import bench_server as bench
from benchmarks.lean_client import Client


def due_times(rate: float, seconds: float) -> list[float]:
    """Offsets (s) from the start at which the actions are due: evenly spaced at ``rate``."""
    return [i / rate for i in range(int(rate * seconds))]


class Seat:
    """One match on its own connection, with the view its next action is chosen from."""

    def __init__(self, client: Client, headers: dict[str, str], match: dict[str, Any]):
        self.client, self.headers, self.match = client, headers, match

    async def act(self, rng: random.Random, keyed: bool) -> bool:
        """One action; True if answered 200. A finished match is replaced (off the clock)."""
        match = self.match
        body = {"action": bench.pick(match["view"], rng), "version": match["version"]}
        key = {"Idempotency-Key": uuid.uuid4().hex} if keyed else {}
        url = f"/v1/matches/{match['match_id']}/actions"
        try:
            response = await self.client.post(url, json=body, headers={**self.headers, **key})
        except httpx.TransportError:
            response = None
        if response is None or response.status_code != 200:
            view = await self.client.get(f"/v1/matches/{match['match_id']}", headers=self.headers)
            self.match = {"match_id": match["match_id"], **view.json()}
            return False
        answer = response.json()
        self.match = {
            "match_id": match["match_id"],
            "version": answer["version"],
            "view": answer["view"],
        }
        return True

    async def ready(self) -> None:
        if self.match["view"]["phase"] == "match_over":
            self.match = await bench.new_match(self.client, self.headers)


async def offered(
    url: str,
    pid: int,
    rate: float,
    matches: int,
    seconds: float,
    keyed: bool,
    timeline: list[tuple[float, float, float, str]] | None = None,
) -> dict[str, float]:
    """Offer ``rate`` actions/s over ``matches`` matches for ``seconds``; latency from due.

    ``timeline`` gets (due, sent, answered, match id) of every answered action, on the
    ``perf_counter`` clock (the system's monotonic one, which a server's hooks share).
    """
    clients = [bench.client_for(url) for _ in range(matches)]
    try:
        seated = await asyncio.gather(*(bench.seated(client) for client in clients))
        idle: asyncio.Queue[Seat] = asyncio.Queue()
        for client, (headers, match) in zip(clients, seated, strict=True):
            idle.put_nowait(Seat(client, headers, match))
        latencies: list[float] = []
        waits: list[float] = []  # due -> a free match found (the generator's own share)
        errors = 0
        rng = random.Random(11)

        async def one(seat: Seat, due: float) -> None:
            nonlocal errors
            try:
                sent, match_id = time.perf_counter(), seat.match["match_id"]
                if await seat.act(rng, keyed):
                    answered = time.perf_counter()
                    latencies.append(answered - due)
                    if timeline is not None:
                        timeline.append((due, sent, answered, match_id))
                else:
                    errors += 1
                await seat.ready()
            finally:
                idle.put_nowait(seat)

        cpu_before, generator_before = bench.cpu_seconds(pid), time.process_time()
        start = time.perf_counter() + 0.2
        tasks = []
        for offset in due_times(rate, seconds):
            due = start + offset
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            seat = await idle.get()
            waits.append(time.perf_counter() - due)
            tasks.append(asyncio.create_task(one(seat, due)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - start
        cpu_ms = (bench.cpu_seconds(pid) - cpu_before) * 1000 / max(1, len(latencies))
        generator_ms = (time.process_time() - generator_before) * 1000 / max(1, len(latencies))
    finally:
        await asyncio.gather(*(client.aclose() for client in clients))
    ms = [value * 1000 for value in latencies]
    return {
        "offered_per_second": rate,
        "matches": matches,
        "keyed": keyed,
        "actions": len(latencies),
        "per_second": len(latencies) / wall,
        "p50": bench.percentile(ms, 50),
        "p95": bench.percentile(ms, 95),
        "p99": bench.percentile(ms, 99),
        "max": max(ms) if ms else float("nan"),
        "late_p99": bench.percentile([w * 1000 for w in waits], 99),
        "errors": errors,
        "cpu_ms": cpu_ms,
        "generator_cpu_ms": generator_ms,
    }


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| offered actions/s | ceiling actions/s | matches | Idempotency-Key | answered/s "
        "| p50 ms | p95 ms | p99 ms | max ms | send late p99 ms | non-200 | server CPU ms/action "
        "| generator CPU ms/action |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        top = row.get("ceiling")
        lines.append(
            f"| {row['offered_per_second']:.0f} | {f'{top:.0f}' if top else '–'} | "
            f"{row['matches']} | {'yes' if row['keyed'] else 'no'} | {row['per_second']:.0f} | "
            f"{row['p50']:.1f} | {row['p95']:.1f} | {row['p99']:.1f} | {row['max']:.1f} | "
            f"{row['late_p99']:.1f} | {row['errors']} | {row['cpu_ms']:.2f} | "
            f"{row.get('generator_cpu_ms', float('nan')):.2f} |"
        )
    return "\n".join(lines) + "\n"
