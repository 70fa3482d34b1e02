"""Event-store throughput on PostgreSQL and SQLite, beside pgbench's one-row insert.

    python -m benchmarks store
    python -m benchmarks.bench_store --seconds 5 --out benchmarks/RESULTS-store.md

Measures, per backend: events appended per second with one command's batch per
append (1 and 16 concurrent writers, each writer on its own match, batches taken from
random legal matches; with and without the command ids the server sends), events read and folded per second on replay, and
projection rebuild speed. pgbench with a one-row INSERT script on the same server is
the ceiling for a write transaction; the ratio says what the store's ordering (the
head-row lock), checks and SQLAlchemy cost on top. PostgreSQL runs in a fresh database
with the server's default durability (synchronous_commit on); SQLite in a temp file
(WAL, synchronous=NORMAL).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from sqlalchemy.engine import make_url

from domain.commands import BigGin, Discard, Gin, Knock, StartMatch
from domain.events import Event
from domain.match import apply, fold, legal_commands
from domain.melds import best_discard
from domain.rules import make_rules
from infra.projections import projector
from infra.replay import load_match
from infra.scratch_database import (
    create_scratch_database,
    drop_scratch_database,
    execute_as_admin,
)
from infra.sql_event_store import SqlEventStore
from infra.store import open_store

DEFAULT_PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


@dataclass
class Row:
    backend: str
    measure: str
    value: float
    unit: str
    note: str = ""


def random_match(seed: int) -> list[list[Event]]:
    """A legal match as per-command event batches (knocks when it can, discards well)."""
    rng = random.Random(seed)
    match_id = f"bench-{uuid.uuid4().hex[:12]}"
    command = StartMatch(match_id, ("p", "ai:easy"), make_rules(), f"seed-{seed}")
    state, events = apply(None, command)
    batches = [events]
    while state.settlement is None:
        seat = rng.choice(state.to_act())
        legal = legal_commands(state, seat)
        finishing = [c for c in legal if isinstance(c, (Knock, Gin, BigGin))]
        if finishing and rng.random() < 0.8:
            choice = rng.choice(finishing)
        elif state.hand and any(isinstance(c, Discard) for c in legal) and rng.random() < 0.8:
            choice = Discard(seat, best_discard(state.hand.hands[seat], state.hand.taken)[0])
        else:
            choice = rng.choice(legal)
        state, events = apply(state, choice)
        batches.append(events)
    return batches


async def _append_for(
    store: SqlEventStore,
    matches: list[list[list[Event]]],
    writers: int,
    seconds: float,
    command_ids: bool = False,
) -> tuple[int, int, float]:
    """``writers`` tasks, each appending its own matches' batches, for ``seconds``;
    with ``command_ids`` each append carries one, as the server's do."""
    deadline = time.perf_counter() + seconds
    totals = [0, 0]

    async def writer(index: int) -> None:
        for batches in matches[index::writers]:
            stream_id = f"w{index}-{uuid.uuid4().hex[:10]}"
            version = 0
            for batch in batches:
                if time.perf_counter() >= deadline:
                    return
                command = f"{stream_id}-{version}" if command_ids else None
                result = await store.append(stream_id, version, batch, command, command)
                version = result.last_version
                totals[0] += 1
                totals[1] += len(batch)

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    return totals[0], totals[1], time.perf_counter() - started


async def _replay_all(store: SqlEventStore) -> tuple[int, float]:
    async with store.engine.connect() as conn:
        streams = [
            r[0] for r in await conn.exec_driver_sql("SELECT DISTINCT stream_id FROM events")
        ]
    started = time.perf_counter()
    count = 0
    for stream_id in streams:
        recorded = await load_match(store, stream_id)
        fold(r.event for r in recorded)
        count += len(recorded)
    return count, time.perf_counter() - started


async def bench_backend(
    name: str,
    url: str,
    matches: list[list[list[Event]]],
    seconds: float,
    rounds: int,
    ceiling: Callable[[int], float | None] | None = None,
) -> list[Row]:
    """Append rates as medians over ``rounds``; with ``ceiling``, pgbench runs right after
    each measurement, so both see the same machine load (it varies a lot when shared)."""
    store = await open_store(url)
    rows: list[Row] = []
    try:
        for writers, command_ids in ((1, False), (1, True), (16, False), (16, True)):
            rates, ratios, ceilings = [], [], []
            for _ in range(rounds):
                appends, events, elapsed = await _append_for(
                    store, matches, writers, seconds, command_ids
                )
                rates.append((appends / elapsed, events / elapsed))
                if ceiling is not None:
                    tps = ceiling(writers)
                    if tps:
                        ceilings.append(tps)
                        ratios.append(appends / elapsed / tps)
            appends_s = median(r[0] for r in rates)
            note = f"{appends_s:,.0f} appends/s (median of {rounds})"
            if ratios:
                note += (
                    f"; pgbench {writers} client(s) right after: {median(ceilings):,.0f} tps;"
                    f" ratio {median(ratios):.2f}"
                )
            label = f"append, {writers} writer{'s' if writers > 1 else ''}"
            label += ", with command ids" if command_ids else ""
            rows.append(Row(name, label, median(r[1] for r in rates), "events/s", note))
        # Whole matches in one append each, so replay and rebuild have a sizeable log.
        for batches in matches:
            await store.append(f"r-{uuid.uuid4().hex[:10]}", 0, [e for b in batches for e in b])
        count, elapsed = await _replay_all(store)
        rows.append(
            Row(name, "replay: read + fold", count / elapsed, "events/s", f"{count} events")
        )
        runner = projector(store)
        for projection in runner.projections:
            started = time.perf_counter()
            applied = await runner.rebuild(projection)
            elapsed = time.perf_counter() - started
            rows.append(
                Row(
                    name,
                    f"rebuild {projection}",
                    applied / elapsed,
                    "events/s",
                    f"{applied} events in {elapsed:.2f}s",
                )
            )
    finally:
        await store.close()
    return rows


def pgbench(dsn_url: str, clients: int, seconds: float) -> float | None:
    """tps of pgbench running a one-row INSERT per transaction, or None without pgbench."""
    if shutil.which("pgbench") is None:
        return None
    url = make_url(dsn_url)
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(
            "INSERT INTO bench_one_row (stream_id, payload) VALUES ('s', '{\"type\":\"drew\"}');\n"
        )
    try:
        out = subprocess.run(
            [
                "pgbench",
                "-n",
                "-h",
                url.host or "127.0.0.1",
                "-p",
                str(url.port or 5432),
                "-U",
                url.username or "postgres",
                "-c",
                str(clients),
                "-j",
                str(min(clients, 2)),
                "-T",
                str(max(1, round(seconds))),
                "-f",
                script.name,
                url.database or "postgres",
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=True,
        ).stdout
    finally:
        os.unlink(script.name)
    found = re.search(r"tps = ([\d.]+)", out)
    return float(found.group(1)) if found else None


async def _create_database(server_url: str) -> str:
    """A scratch database with pgbench's one-row table beside the store's."""
    url = await create_scratch_database(server_url, "ginrummy_bench")
    await execute_as_admin(
        url, "CREATE TABLE bench_one_row (id bigserial PRIMARY KEY, stream_id text, payload text)"
    )
    return url


def render(rows: list[Row], load: tuple[str, str]) -> str:
    lines = [
        "| backend | measure | value | note |",
        "|---|---|---:|---|",
        *(f"| {r.backend} | {r.measure} | {r.value:,.0f} {r.unit} | {r.note} |" for r in rows),
        "",
        f"Load average before: {load[0]}; after: {load[1]} (2 cores shared with other work).",
    ]
    return "\n".join(lines) + "\n"


def _load() -> str:
    return (
        " ".join(Path("/proc/loadavg").read_text().split()[:3])
        if Path("/proc/loadavg").exists()
        else "?"
    )


async def run(pg_server: str, seconds: float, match_count: int, rounds: int) -> str:
    load_before = _load()
    matches = [random_match(seed) for seed in range(match_count)]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = f"sqlite+aiosqlite:///{tmp}/bench.sqlite3"
        rows += await bench_backend("sqlite", sqlite_url, matches, seconds, rounds)
    pg_url = await _create_database(pg_server)
    try:
        rows += await bench_backend(
            "postgresql",
            pg_url,
            matches,
            seconds,
            rounds,
            lambda clients: pgbench(pg_url, clients, seconds),
        )
    finally:
        await drop_scratch_database(pg_url)
    return render(rows, (load_before, _load()))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_store")
    parser.add_argument(
        "--pg",
        default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG),
        help="a PostgreSQL server URL; a fresh database is created and dropped",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="per append measurement")
    parser.add_argument("--matches", type=int, default=40, help="random matches generated")
    parser.add_argument("--rounds", type=int, default=2, help="append measurements per rate")
    parser.add_argument("--out", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    table = asyncio.run(run(args.pg, args.seconds, args.matches, args.rounds))
    print(table)
    if args.out:
        args.out.write_text(table)


if __name__ == "__main__":
    main()
