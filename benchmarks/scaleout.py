"""Appends from several processes, and what an idle node's tailer costs (issue 22 item 5).

    python -m benchmarks.scaleout [--rounds 3] [--seconds 5] [--processes 1,2,4] [--tailers 1,2,4]

Two designs of the global log, measured side by side in one run on one database:

- ``head``: the product. Every append group of every process takes the one
  ``log_head`` row (``ginrummy_append``, migration 0008) and holds it through its
  commit's flush, so commits of different processes take turns.
- ``seq``, ``seq+notify``: the prototype in ``proto_sequence.sql``. Positions from a
  sequence; readers follow (transaction id, position) and never pass the oldest
  running transaction. ``seq+notify`` NOTIFYs inside the transaction as the product
  does; ``seq`` sends the wake-up after the commit, from a session whose commits do
  not wait for the flush, since a notifying commit holds a cluster-wide lock through
  its flush.

Every writer and every tailer is a real process (``python -m benchmarks.scaleout
writer|tailer``), started, made ready, then released at one instant. Writers run the
product's ``SqlEventStore`` (its group commit); the prototype only swaps the group's
statement. A tailer is an idle node: it reads every event and writes nothing; its
CPU (user + system, its own process) and that of its database sessions, per 1,000
events delivered in the window, is the per-node cost of "every node reads the whole
log". Rounds alternate the order of the designs. On two cores, several processes
measure contention for the same two CPUs, not separate nodes: docs/scaling.md models
the multi-node case from these figures.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import pickle
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import msgspec
from sqlalchemy import DateTime, Text, bindparam, event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from benchmarks.bench_store import random_match
from domain.events import Event
from infra.append_pg import _outcome
from infra.database import asyncpg_dsn, create_engine
from infra.driver_errors import translate_errors
from infra.event_store import RecordedEvent
from infra.scratch_database import create_scratch_database, drop_scratch_database, execute_as_admin
from infra.sql_event_store import SqlEventStore, _Pending, to_recorded
from infra.store import open_store
from infra.tailer import LogTailer
from infra.waiting import wait_set

PROTO_SQL = Path(__file__).with_name("proto_sequence.sql")
DESIGNS = ("head", "seq+notify", "seq")
PROTO_CHANNEL = "proto_events"
POLL_S = 5.0  # the tailers' backstop poll, as the product's on PostgreSQL

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


# --- the prototype's writer and reader -----------------------------------------------------

PROTO_APPEND = text("SELECT proto_append(CAST(:group_ AS jsonb), :now, :notify)").bindparams(
    bindparam("group_", type_=Text), bindparam("now", type_=DateTime(timezone=True))
)


class ProtoStore(SqlEventStore):
    """The product's store and group commit, writing through ``proto_append`` instead.

    An append answered ``later`` (its stream's last version came from a younger
    transaction) goes back to the front of the queue, so the next group, a newer
    transaction, writes it.
    """

    def __init__(self, engine: AsyncEngine, url: str, *, notify_in_tx: bool) -> None:
        super().__init__(engine, url)
        self.notify_in_tx = notify_in_tx
        self._notifier: Any = None
        self.retries = 0

    async def _commit_group(self, group: list[_Pending]) -> None:
        now = datetime.now(UTC)
        document = [
            {
                "s": r.stream_id,
                "v": r.expected_version,
                "c": r.command_id,
                "h": r.command_hash,
                "e": r.encoded,
            }
            for r in (p.request for p in group)
        ]
        with translate_errors():
            async with self.engine.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                params = {
                    "group_": _encoder.encode(document).decode(),
                    "now": now,
                    "notify": self.notify_in_tx,
                }
                answer: dict[str, Any] = _decoder.decode(
                    (await conn.execute(PROTO_APPEND, params)).scalar_one()
                )
        later: list[_Pending] = []
        for pending, entry in zip(group, answer["out"], strict=True):
            if entry[0] == "later":
                later.append(pending)
                continue
            outcome = _outcome(pending.request, entry, now)
            if isinstance(outcome, Exception):
                pending.result.set_exception(outcome)
            else:
                pending.result.set_result(outcome)
        self.retries += len(later)
        self._queue[:0] = later
        if answer["head"] and not self.notify_in_tx:
            await self._wake_readers(int(answer["head"]))

    async def _wake_readers(self, head: int) -> None:
        """NOTIFY after the commit, from a session that does not wait for the flush."""
        if self._notifier is None:
            self._notifier = await asyncpg.connect(asyncpg_dsn(self.url))
            await self._notifier.execute("SET synchronous_commit = off")
        await self._notifier.execute(f"SELECT pg_notify('{PROTO_CHANNEL}', '{head}')")

    async def close(self) -> None:
        await super().close()
        if self._notifier is not None:
            await self._notifier.close()


_PROTO_READ = text(
    "SELECT position, tx, stream_id, version, type, schema_version, payload,"
    " recorded_at, command_id FROM proto_events"
    " WHERE (tx, position) > (CAST(:tx AS xid8), :position)"
    " AND tx < pg_snapshot_xmin(pg_current_snapshot())"
    " ORDER BY tx, position LIMIT :limit"
)


class ProtoTailer:
    """The prototype's reader: LISTEN, then read past the cursor (tx, position), in order.

    It never passes the oldest running transaction, so a row still to commit cannot
    be overtaken; the (tx, position) cursor is the only state. Decodes each row as the
    product's tailer does, so both pay the same per-event work.
    """

    def __init__(self, engine: AsyncEngine, url: str, handler: Any, batch_size: int = 500) -> None:
        self.engine, self.url, self.handler, self.batch_size = engine, url, handler, batch_size
        self.cursor = (0, 0)  # (transaction id, position) of the last row delivered
        self.signal = asyncio.Event()
        self.listener: Any = None
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        # At the end of the log: right only while no append is in flight, as in the
        # benchmark, which starts its tailers before its writers (a product reader
        # would start from the oldest running transaction instead).
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        # tx itself, not tx::text: ORDER BY names the output column, and
                        # as text 99999 sorts after 100000 (a first run started mid-log so)
                        "SELECT tx, position FROM proto_events ORDER BY tx DESC, position DESC LIMIT 1"
                    )
                )
            ).first()
        if row is not None:
            self.cursor = (int(row[0]), int(row[1]))
        self.listener = await asyncpg.connect(asyncpg_dsn(self.url))
        await self.listener.add_listener(PROTO_CHANNEL, lambda *_: self.signal.set())
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await wait_set(self.signal, POLL_S)
            self.signal.clear()
            await self.catch_up()

    async def catch_up(self) -> None:
        while True:
            async with self.engine.connect() as conn:
                params = {
                    "tx": self.cursor[0],
                    "position": self.cursor[1],
                    "limit": self.batch_size,
                }
                rows = (await conn.execute(_PROTO_READ, params)).all()
            for row in rows:
                await self.handler(to_recorded(row))
                self.cursor = (int(row.tx), row.position)
            if len(rows) < self.batch_size:
                return

    async def stop(self) -> None:
        if self.task is not None:
            if self.task.done():
                self.task.result()  # a reader that died must fail the run, not read as slow
            self.task.cancel()
        if self.listener is not None:
            await self.listener.close()


# --- the child processes -------------------------------------------------------------------


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _backend_cpu(pids: set[int]) -> float:
    """CPU seconds of this process's PostgreSQL sessions (their backends, from /proc)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _engine_recording_pids(url: str, pids: set[int]) -> AsyncEngine:
    engine = create_engine(url)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("SELECT pg_backend_pid()")
        pids.add(int(cursor.fetchone()[0]))
        cursor.close()

    return engine


def _ready_then_wait() -> float:
    """Say ready on stdout, read the start instant from stdin; returns it."""
    print("ready", flush=True)
    return float(sys.stdin.readline())


async def writer_process(args: argparse.Namespace) -> dict[str, Any]:
    batches: list[list[list[Event]]] = pickle.loads(Path(args.matches_file).read_bytes())
    pids: set[int] = set()
    engine = _engine_recording_pids(args.url, pids)
    store: SqlEventStore = (
        SqlEventStore(engine, args.url)
        if args.design == "head"
        else ProtoStore(engine, args.url, notify_in_tx=args.design == "seq+notify")
    )
    async with engine.connect() as conn:  # the pool's first connection, before the clock
        await conn.execute(text("SELECT 1"))
    start_at = await asyncio.to_thread(_ready_then_wait)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    cpu, db_cpu = _cpu(), _backend_cpu(pids)
    appends, events_, elapsed = await _append_cycling(store, batches, args.writers, args.seconds)
    result = {
        "appends": appends,
        "events": events_,
        "elapsed": elapsed,
        "cpu_s": _cpu() - cpu,
        "db_cpu_s": _backend_cpu(pids) - db_cpu,
        "retries": getattr(store, "retries", 0),
    }
    await store.close()
    return result


async def _append_cycling(
    store: SqlEventStore, matches: list[list[list[Event]]], writers: int, seconds: float
) -> tuple[int, int, float]:
    """``writers`` tasks, each replaying its share of the matches on fresh streams."""
    deadline = time.perf_counter() + seconds
    totals = [0, 0]

    async def writer(index: int) -> None:
        for batches in itertools.cycle(matches[index::writers] or matches):
            stream_id = f"w{index}-{uuid.uuid4().hex[:12]}"
            version = 0
            for batch in batches:
                if time.perf_counter() >= deadline:
                    return
                version = (await store.append(stream_id, version, batch)).last_version
                totals[0] += 1
                totals[1] += len(batch)

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(writers)))
    return totals[0], totals[1], time.perf_counter() - started


async def tailer_process(args: argparse.Namespace) -> dict[str, Any]:
    pids: set[int] = set()
    engine = _engine_recording_pids(args.url, pids)
    delivered = [0]
    last_version: dict[str, int] = {}
    out_of_order = [0]
    twice = [0]
    seen: set[int] = set()

    async def count(recorded: RecordedEvent) -> None:
        """Counts, and checks what subscribers rely on: each stream's versions once, in order.

        Every stream is new (writers start after the tailers), so the first is 1.
        """
        delivered[0] += 1
        if recorded.position in seen:
            twice[0] += 1
        seen.add(recorded.position)
        if recorded.version != last_version.get(recorded.stream_id, 0) + 1:
            out_of_order[0] += 1
        last_version[recorded.stream_id] = recorded.version

    tailer: LogTailer | ProtoTailer
    if args.design == "head":
        store = SqlEventStore(engine, args.url)
        tailer = LogTailer(store, await store.last_position(), count)
        await tailer.start()
        await asyncio.wait_for(tailer.listening.wait(), 30)
        pids.add(int(tailer._conn.get_server_pid()))
    else:
        tailer = ProtoTailer(engine, args.url, count)
        await tailer.start()
        pids.add(int(tailer.listener.get_server_pid()))
    start_at = await asyncio.to_thread(_ready_then_wait)
    await asyncio.sleep(max(0.0, start_at - time.time()))
    before, cpu, db_cpu = delivered[0], _cpu(), _backend_cpu(pids)
    await asyncio.sleep(args.seconds)
    result = {
        "delivered": delivered[0] - before,
        "cpu_s": _cpu() - cpu,
        "db_cpu_s": _backend_cpu(pids) - db_cpu,
        "out_of_order": out_of_order[0],
        "twice": twice[0],
    }
    await tailer.stop()
    await engine.dispose()
    return result


# --- the run -------------------------------------------------------------------------------


async def prepare(server_url: str) -> str:
    """A scratch database with the product's schema (migrated) and the prototype's."""
    url = await create_scratch_database(server_url, "ginrummy_scaleout")
    store = await open_store(url)
    await store.close()
    await execute_as_admin(url, PROTO_SQL.read_text())
    return url


async def _spawn(
    kind: str, design: str, url: str, seconds: float, extra: Sequence[str]
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.scaleout", kind, "--design", design, "--url", url,
        "--seconds", str(seconds), *extra,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def measure(
    url: str,
    design: str,
    processes: int,
    writers: int,
    tailers: int,
    seconds: float,
    matches_file: str,
) -> dict[str, Any]:
    """Start every process, release them at one instant, collect what each measured."""
    children = [
        await _spawn(
            "writer",
            design,
            url,
            seconds,
            ["--writers", str(writers), "--matches-file", matches_file],
        )
        for _ in range(processes)
    ] + [await _spawn("tailer", design, url, seconds, []) for _ in range(tailers)]
    for child in children:
        assert child.stdout is not None
        line = await asyncio.wait_for(child.stdout.readline(), 120)
        if line.strip() != b"ready":
            raise RuntimeError(f"a {design} child did not start: {line!r}")
    start_at = time.time() + 0.3
    for child in children:
        assert child.stdin is not None
        child.stdin.write(f"{start_at}\n".encode())
        await child.stdin.drain()
    outs = []
    for child in children:
        assert child.stdout is not None
        outs.append(json.loads(await asyncio.wait_for(child.stdout.readline(), seconds + 120)))
        await child.wait()
    written, read = outs[:processes], outs[processes:]
    appends = sum(w["appends"] for w in written)
    events_ = sum(w["events"] for w in written)
    wall = max(w["elapsed"] for w in written)
    row: dict[str, Any] = {
        "design": design,
        "processes": processes,
        "writers": writers,
        "tailers": tailers,
        "appends_s": appends / wall,
        "events_s": events_ / wall,
        "events": events_,
        "writer_cpu_ms_per_append": 1000 * sum(w["cpu_s"] for w in written) / max(1, appends),
        "retries": sum(w["retries"] for w in written),
        "load": os.getloadavg()[0],
    }
    if read:
        row["tail_cpu_s_per_1000"] = median(
            1000 * t["cpu_s"] / max(1, t["delivered"]) for t in read
        )
        row["tail_db_cpu_s_per_1000"] = median(
            1000 * t["db_cpu_s"] / max(1, t["delivered"]) for t in read
        )
        row["delivered_share"] = median(t["delivered"] / max(1, events_) for t in read)
        row["out_of_order"] = sum(t["out_of_order"] for t in read) + sum(t["twice"] for t in read)
    print(json.dumps(row), flush=True)
    return row


def _medians(
    rows: list[dict[str, Any]], key: tuple[str, ...], values: tuple[str, ...]
) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in key), []).append(row)
    return [
        {
            **dict(zip(key, k, strict=True)),
            "rounds": len(g),
            **{v: median(r[v] for r in g) for v in values if v in g[0]},
        }
        for k, g in groups.items()
    ]


def render(appends: list[dict[str, Any]], tails: list[dict[str, Any]]) -> str:
    lines = [
        "Appends (16 writers per process, no tailer): medians over rounds; ratio = the design's appends/s ÷ head's in the same round",
        "",
        "| processes | design | rounds | appends/s | events/s | writer CPU ms/append | ÷ head (median of rounds) | load (1 min) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m in _medians(
        appends,
        ("processes", "design"),
        ("appends_s", "events_s", "writer_cpu_ms_per_append", "load"),
    ):
        ratios = [
            r["appends_s"] / h["appends_s"]
            for r in appends
            if r["processes"] == m["processes"] and r["design"] == m["design"]
            for h in appends
            if h["processes"] == r["processes"]
            and h["design"] == "head"
            and h["round"] == r["round"]
        ]
        lines.append(
            f"| {m['processes']} | {m['design']} | {m['rounds']} | {m['appends_s']:,.0f} | {m['events_s']:,.0f} | "
            f"{m['writer_cpu_ms_per_append']:.2f} | {median(ratios):.2f} | {m['load']:.1f} |"
        )
    lines += [
        "",
        "Idle tailers (1 writer process x 16 writers appending): per tailer, CPU seconds per 1,000 events delivered in the window",
        "",
        "| tailers | design | rounds | appends/s | tailer CPU s / 1,000 events | its DB sessions' CPU s / 1,000 | delivered ÷ appended in window | out of order or twice | load (1 min) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in _medians(
        tails,
        ("tailers", "design"),
        ("appends_s", "tail_cpu_s_per_1000", "tail_db_cpu_s_per_1000", "delivered_share", "load"),
    ):
        lines.append(
            f"| {m['tailers']} | {m['design']} | {m['rounds']} | {m['appends_s']:,.0f} | {m['tail_cpu_s_per_1000']:.3f} | "
            f"{m['tail_db_cpu_s_per_1000']:.3f} | {m['delivered_share']:.2f} | "
            f"{sum(t['out_of_order'] for t in tails if t['tailers'] == m['tailers'] and t['design'] == m['design'])}"
            f" | {m['load']:.1f} |"
        )
    return "\n".join(lines) + "\n"


async def run(args: argparse.Namespace) -> str:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    url = await prepare(base)
    designs = args.designs.split(",")
    matches = [random_match(seed) for seed in range(args.matches)]
    with tempfile.NamedTemporaryFile(suffix=".pickle", delete=False) as handle:
        handle.write(pickle.dumps(matches))
    appends: list[dict[str, Any]] = []
    tails: list[dict[str, Any]] = []
    try:
        for index in range(args.rounds):
            order = designs if index % 2 == 0 else designs[::-1]
            for processes in (int(p) for p in args.processes.split(",") if p):
                for design in order:
                    row = await measure(
                        url, design, processes, args.writers, 0, args.seconds, handle.name
                    )
                    appends.append({**row, "round": index})
            for tailers in (int(t) for t in args.tailers.split(",") if t):
                for design in order:
                    if design == "seq+notify":
                        continue  # the reader is the same as seq's
                    row = await measure(
                        url, design, 1, args.writers, tailers, args.seconds, handle.name
                    )
                    tails.append({**row, "round": index})
    finally:
        os.unlink(handle.name)
        await drop_scratch_database(url)
    if args.json:
        Path(args.json).write_text(json.dumps({"appends": appends, "tails": tails}, indent=1))
    return render(appends, tails)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", nargs="?", default="run", choices=("run", "writer", "tailer"))
    parser.add_argument("--design", default="head", choices=DESIGNS)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--url", default=None, help="(children) the scratch database")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server URL")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--tailers", default="1,2,4")
    parser.add_argument("--writers", type=int, default=16, help="per writer process")
    parser.add_argument("--matches", type=int, default=32, help="random matches, replayed in turn")
    parser.add_argument("--matches-file", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.kind == "writer":
        print(json.dumps(asyncio.run(writer_process(args))), flush=True)
    elif args.kind == "tailer":
        print(json.dumps(asyncio.run(tailer_process(args))), flush=True)
    else:
        print(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
