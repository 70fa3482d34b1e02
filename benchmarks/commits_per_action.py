"""Database transactions per action: what one person's move against the house costs.

A figure the machine's load cannot move: PostgreSQL's own count of committed
transactions (``pg_stat_database.xact_commit``) over ``--actions`` moves played through
``MatchService.act`` against the house AI, one client, divided by the moves. Run it as
a script so that ``--code`` (or PYTHONPATH) can put another checkout's packages first
and measure it side by side with this one:

    python benchmarks/commits_per_action.py --actions 300
    PYTHONPATH=/path/to/other/checkout python benchmarks/commits_per_action.py --actions 300

It also reports the wall time per action (median, p95), which the load does move.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import time
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from domain.commands import AnySeatCommand
from domain.rules import make_rules
from domain.views import player_view
from infra.scratch_database import create_scratch_database, drop_scratch_database
from infra.store import open_store
from server.match_service import MatchService

COMMITS = text("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")


async def _commits(url: str) -> int:
    """The database's committed transactions so far, after every backend reported its own."""
    await asyncio.sleep(1.5)  # backends flush their counters at most once a second
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(COMMITS)).scalar_one())
    finally:
        await engine.dispose()


async def measure(base: str, actions: int, level: str) -> dict[str, float]:
    url = await create_scratch_database(base, "ginrummy_cpa")
    try:
        store = await open_store(url)
        service = MatchService(store)
        rng = random.Random(7)
        timings: list[float] = []
        matches = 0
        start = await _commits(url)
        while len(timings) < actions:
            match_id = await service.start(("p1", f"ai:{level}"), make_rules("classic"), None)
            matches += 1
            while len(timings) < actions:
                state = (await service.load(match_id)).state
                legal = player_view(state, 0).legal
                if not legal:
                    break
                command = rng.choice(legal)

                def chosen(seat: int, command: AnySeatCommand = command) -> AnySeatCommand:
                    return command

                began = time.perf_counter()
                await service.act(match_id, "p1", chosen, None)
                timings.append((time.perf_counter() - began) * 1000)
        await store.close()
        commits = await _commits(url) - start
    finally:
        await drop_scratch_database(url)
    ordered = sorted(timings)
    return {
        "actions": actions,
        "matches": matches,
        "commits": commits,
        "commits_per_action": commits / actions,
        "median_ms": statistics.median(ordered),
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
    }


def _commit_of_code() -> str:
    import server

    root = Path(server.__file__).resolve().parent.parent
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return f"{root} @ {out.stdout.strip() or '?'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--level", default="medium")
    parser.add_argument("--database-url", default=os.environ.get("TEST_DATABASE_URL"))
    args = parser.parse_args()
    if not args.database_url or "postgresql" not in args.database_url:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL (make bench)")
    row = asyncio.run(measure(args.database_url, args.actions, args.level))
    load = os.getloadavg()[0]
    print(f"code {_commit_of_code()}, level {args.level}, load {load:.1f}")
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
