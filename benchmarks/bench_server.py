"""Server throughput and latency over real HTTP and WebSocket, on PostgreSQL.

    python -m benchmarks.bench_server [--seconds 15] [--clients 1,16,64] [--database-url URL]
                                      [--code DIR] [--no-ceiling] [--no-write] [--json FILE]
    python -m benchmarks.bench_server --open-loop RATE|PCT% [--matches 64] [--seconds 15] ...

For each concurrency level, that many clients each play their own match against the
easy AI (a new one when it ends), choosing uniformly among their legal actions, as
fast as the server answers. One action = one ``POST /actions`` round trip, which
includes the AI's reply and every append. Reported: actions per second over all
clients and the latency percentiles of one action.

Then the live feed: sockets on the process that appends and on a second process
(fan-out through the store's global log, LISTEN/NOTIFY) receive the events of actions
made over HTTP; the delay is from the event's ``recorded_at`` (taken just before the
append's transaction, so an upper bound on commit→socket) to the frame's arrival.

The server runs as one ``ginrummy serve`` process (one uvicorn worker) on a fresh
PostgreSQL database that is dropped afterwards; the load generator shares the machine.
Its HTTP client is ``benchmarks/lean_client.py`` (``--client lean``): httpx, which the
generator used before, spent about 3 ms of CPU an action on these two cores, more than
the server itself, and sent open-loop actions late; ``--client httpx`` still runs it.
Each row reports the generator's own CPU per action beside the server's.
Results go to stdout and on top of ``benchmarks/RESULTS-server.md`` (earlier runs stay below).

After each client count, ``pgbench`` runs ``benchmarks/pgbench_append.sql`` (what one
append must do, with no lock of its own; ``benchmarks/ceiling.py``) with as many
clients for as long, on the same database and machine, while the server idles: the
ceiling is half its tps (an action is two appends), and ratio = actions/s ÷ ceiling.
The server's own CPU time over each level (from /proc) gives the CPU per action.
``--code DIR`` runs the server from another checkout (its code on PYTHONPATH), so the
same harness measures, say, the previous commit beside this one.

``--open-loop RATE`` measures latency at a fixed offered rate instead (benchmarks/open_loop.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

from benchmarks import ceiling
from benchmarks.lean_client import Client, make_client
from benchmarks.results_file import add_run
from infra.scratch_database import create_scratch_database, drop_scratch_database
from infra.store import open_store

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "RESULTS-server.md"
GINRUMMY = Path(sys.executable).parent / "ginrummy"
RULES = {"preset": "classic", "target": 100}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


# --- processes and databases ---------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(
    database_url: str,
    workdir: Path,
    code: Path | None = None,
    workers: int = 1,
    hooks: Path | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """``hooks``: a directory put on the server's path after the code (a sitecustomize.py)."""
    port = free_port()
    env = {
        **os.environ,
        "GINRUMMY_DATABASE_URL": database_url,
        "GINRUMMY_LOG_LEVEL": "warning",
        "GINRUMMY_WORKERS": str(workers),
        # A benchmark plays hundreds of matches from one address: no rate limit applies.
        **{
            f"GINRUMMY_RATE_{what}_PER_{who}": "0"
            for what in ("CREATES", "ACTIONS")
            for who in ("PLAYER", "ADDRESS")
        },
        "GINRUMMY_CONNECTIONS_PER_ADDRESS": "0",
    }
    paths = [str(p) for p in (code, hooks) if p is not None]
    if paths:  # that checkout's packages shadow this one's editable install
        env["PYTHONPATH"] = os.pathsep.join(paths)
    log = (workdir / f"server-{port}.log").open("ab")
    proc = subprocess.Popen(
        [str(GINRUMMY), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return proc, url
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start; see " + str(workdir))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process and its workers have used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(child) for child in children_of(pid))


def children_of(pid: int) -> list[int]:
    """The live child processes of ``pid`` (the server's workers, when it runs several)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def commit_of(code: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (out.stdout.strip() or "unknown") + ("+dirty" if dirty else "")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


# --- clients -------------------------------------------------------------------------------

OPPONENT = {"level": "easy"}  # the house level every benchmark match is played against (--level)

GENERATOR = {"client": "lean"}  # the load generator's HTTP client (--client; lean_client.py)


def client_for(url: str) -> Client:
    """One load-generator connection, of the kind ``--client`` names."""
    return make_client(GENERATOR["client"], url, timeout=60)


async def new_player(client: Client) -> dict[str, str]:
    body = (await client.post("/v1/players", json={"name": "bench"})).json()
    return {"Authorization": f"Bearer {body['token']}"}


async def new_match(client: Client, headers: dict[str, str]) -> dict[str, Any]:
    response = await client.post(
        "/v1/matches", json={"level": OPPONENT["level"], "rules": RULES}, headers=headers
    )
    response.raise_for_status()
    result: dict[str, Any] = response.json()
    return result


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = rng.choice(view["legal"])
    return {k: v for k, v in legal.items() if k != "seat" and v is not None}


async def play_until(
    client: Client,
    seat: tuple[dict[str, str], dict[str, Any]],
    deadline: float,
    rng: random.Random,
    latencies: list[float],
    keyed: bool,
) -> int:
    headers, match = seat
    errors = 0
    while time.perf_counter() < deadline:
        if match["view"]["phase"] == "match_over":
            match = await new_match(client, headers)
            continue
        body = {"action": pick(match["view"], rng), "version": match["version"]}
        key = {"Idempotency-Key": uuid.uuid4().hex} if keyed else {}
        started = time.perf_counter()
        try:
            response = await client.post(
                f"/v1/matches/{match['match_id']}/actions", json=body, headers={**headers, **key}
            )
        except httpx.TransportError:
            # The server closed a keep-alive connection that sat idle past its timeout
            # (seating 64 clients on a loaded machine takes that long): counted, and
            # the view read again, since the action may or may not have been applied.
            errors += 1
            view = await client.get(f"/v1/matches/{match['match_id']}", headers=headers)
            match = {"match_id": match["match_id"], **view.json()}
            continue
        elapsed = time.perf_counter() - started
        if response.status_code != 200:
            errors += 1
            continue
        latencies.append(elapsed)
        answer = response.json()
        match = {
            "match_id": match["match_id"],
            "version": answer["version"],
            "view": answer["view"],
        }
    return errors


async def seated(client: Client) -> tuple[dict[str, str], dict[str, Any]]:
    headers = await new_player(client)
    return headers, await new_match(client, headers)


async def throughput(url: str, clients: int, seconds: float, keyed: bool) -> dict[str, float]:
    """Each client has its own connection; players and first matches precede the clock.

    ``keyed``: every action carries a fresh Idempotency-Key, as the web page sends, so
    the server also claims the key before acting and keeps the answer after.
    """
    sessions = [client_for(url) for _ in range(clients)]
    try:
        seats = await asyncio.gather(*(seated(session) for session in sessions))
        latencies: list[float] = []
        started = time.perf_counter()
        deadline = started + seconds
        errors = await asyncio.gather(
            *(
                play_until(session, seat, deadline, random.Random(i), latencies, keyed)
                for i, (session, seat) in enumerate(zip(sessions, seats, strict=True))
            )
        )
        wall = time.perf_counter() - started
    finally:
        await asyncio.gather(*(session.aclose() for session in sessions))
    return {
        "clients": clients,
        "keyed": keyed,
        "actions": len(latencies),
        "per_second": len(latencies) / wall,
        "p50": percentile(latencies, 50) * 1000,
        "p95": percentile(latencies, 95) * 1000,
        "p99": percentile(latencies, 99) * 1000,
        "errors": sum(errors),
    }


async def level(url: str, pid: int, clients: int, seconds: float, keyed: bool) -> dict[str, float]:
    """One throughput row, with the server's CPU milliseconds per action over it."""
    before, generator_before = cpu_seconds(pid), time.process_time()
    row = await throughput(url, clients, seconds, keyed)
    actions = max(1, row["actions"])
    row["cpu_ms"] = (cpu_seconds(pid) - before) * 1000 / actions
    row["generator_cpu_ms"] = (time.process_time() - generator_before) * 1000 / actions
    return row


async def ws_delivery(
    database_url: str, appender: str, other: str, matches: int, actions: int
) -> dict[str, list[float]]:
    """Frame arrival minus recorded_at, for sockets on the appending and the other process."""
    arrivals: dict[str, dict[tuple[str, int], float]] = {"same process": {}, "other process": {}}
    async with httpx.AsyncClient(base_url=appender, timeout=60) as client:
        headers = await new_player(client)
        token = headers["Authorization"].removeprefix("Bearer ")
        ids = []
        for _ in range(matches):
            ids.append((await new_match(client, headers))["match_id"])

        async def listen(base: str, label: str, match_id: str, ready: asyncio.Event) -> None:
            ws_url = base.replace("http://", "ws://") + f"/v1/matches/{match_id}/live?token={token}"
            async with websockets.connect(ws_url) as ws:
                ready.set()
                while True:
                    frame = json.loads(await ws.recv())
                    if frame["type"] == "event":
                        arrivals[label][(match_id, frame["version"])] = time.time()
                    elif frame["type"] == "ping":
                        await ws.send('{"type":"pong"}')

        listeners = []
        for match_id in ids:
            for base, label in ((appender, "same process"), (other, "other process")):
                ready = asyncio.Event()
                listeners.append(asyncio.create_task(listen(base, label, match_id, ready)))
                await ready.wait()
        await asyncio.sleep(0.5)
        rng = random.Random(7)
        for match_id in ids:
            view = (await client.get(f"/v1/matches/{match_id}", headers=headers)).json()
            for _ in range(actions):
                if view["view"]["phase"] == "match_over":
                    break
                body = {"action": pick(view["view"], rng), "version": view["version"]}
                answer = (
                    await client.post(f"/v1/matches/{match_id}/actions", json=body, headers=headers)
                ).json()
                view = {"version": answer["version"], "view": answer["view"]}
                await asyncio.sleep(0.02)
        await asyncio.sleep(1.0)
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)

    store = await open_store(database_url, migrate=False)
    recorded: dict[tuple[str, int], float] = {}
    try:
        for match_id in ids:
            for event in await store.read_stream(match_id):
                recorded[(match_id, event.version)] = event.recorded_at.timestamp()
    finally:
        await store.close()
    return {
        label: [(at - recorded[key]) * 1000 for key, at in seen.items() if key in recorded]
        for label, seen in arrivals.items()
    }


# --- report --------------------------------------------------------------------------------


def report(rows: list[dict[str, float]], delivery: dict[str, list[float]], args: Any) -> str:
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg())
    code = Path(args.code) if args.code else ROOT
    lines = [
        "# Server benchmark (issue 5)",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, server code at commit {commit_of(code)}, with "
        f"`python -m benchmarks.bench_server --seconds {args.seconds} --clients {args.clients}` "
        f"on {platform.machine()}, {os.cpu_count()} CPUs (shared with the load generator), "
        f"Python {platform.python_version()}, PostgreSQL (local, fresh database), one "
        f"`ginrummy serve` with {args.workers} worker process(es). Each client plays its own match "
        f"against the {OPPONENT['level']} AI (rules `{json.dumps(RULES)}`) over its own keep-alive "
        "connection, choosing uniformly among its "
        "legal actions, with no think time (a new match when one ends; the first is made before the clock starts). One action = one `POST /v1/matches/{id}/actions` "
        "round trip: decide, let the AI think out its reply, append both in one "
        "transaction.",
        "",
        f"Machine load when the run ended (1/5/15-minute load averages): {load}. Other "
        "work shared the two cores, so the absolute numbers are pessimistic and noisy; "
        "appends serialise on the store's global-log head (gapless positions), which "
        "bounds the writes per second whatever the number of clients.",
        "",
        "With `Idempotency-Key` (a fresh key per action, as the web page sends): the "
        "key is bound in the append's own transaction (as its command id); a move the "
        "AI answers first reads whether the key is bound elsewhere (lookups made together "
        "share one query); a retry is answered from the log.",
        "",
        "Ceiling: `pgbench -f benchmarks/pgbench_append.sql` with as many clients, "
        + (
            "right after the level"
            if args.workers == 1
            else "once the servers had stopped (several workers' pools leave pgbench too "
            "few connections)"
        )
        + ", same database: tps / 2 (an action is two appends); ratio = "
        "actions/s ÷ ceiling. Server CPU: the server process's user+system time over the "
        "level ÷ actions; the load generator's (this process) likewise.",
        "",
        "| concurrent clients | Idempotency-Key | actions | actions/s | p50 ms | p95 ms | p99 ms "
        "| non-200 | server CPU ms/action | generator CPU ms/action | ceiling actions/s | ratio |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        top = row.get("ceiling")
        lines.append(
            f"| {row['clients']:.0f} | {'yes' if row['keyed'] else 'no'} | "
            f"{row['actions']:.0f} | {row['per_second']:.0f} | "
            f"{row['p50']:.1f} | {row['p95']:.1f} | {row['p99']:.1f} | {row['errors']:.0f} | "
            f"{row['cpu_ms']:.2f} | {row['generator_cpu_ms']:.2f} | "
            + (f"{top:.0f} | {row['per_second'] / top:.2f} |" if top else "– | – |")
        )
    lines += [
        "",
        "WebSocket delivery: from an event's `recorded_at` (set just before its append "
        "transaction, so this is an upper bound on commit→socket) to the frame's arrival at "
        "a client socket; sockets on the appending process (in-process fan-out) and on a "
        "second server process (PostgreSQL LISTEN/NOTIFY tailer, then the store).",
        "",
        "| socket on | frames | p50 ms | p95 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, values in delivery.items():
        lines.append(
            f"| {label} | {len(values)} | {percentile(values, 50):.1f} | "
            f"{percentile(values, 95):.1f} | {percentile(values, 99):.1f} | "
            f"{max(values) if values else float('nan'):.1f} |"
        )
    return "\n".join(lines) + "\n"


async def run_open_loop(args: Any, database_url: str, workdir: Path, procs: list[Any]) -> str:
    """Open-loop rows, without and with Idempotency-Key, at one offered rate."""
    from benchmarks import open_loop  # it builds on this module's helpers

    code = Path(args.code) if args.code else None
    top: float | None = None
    if args.open_loop.endswith("%"):
        if not ceiling.available():
            raise SystemExit("a rate as a share of the ceiling needs pgbench")
        await ceiling.prepare(database_url)
        clients = args.open_loop_clients
        top = await asyncio.to_thread(ceiling.measure, database_url, clients, args.seconds) / 2
        rate = top * float(args.open_loop[:-1]) / 100
    else:
        rate = float(args.open_loop)
    proc, url = start_server(database_url, workdir, code, args.workers)
    procs.append(proc)
    rows: list[dict[str, Any]] = []
    for keyed in (False, True):
        row: dict[str, Any] = await open_loop.offered(
            url, proc.pid, rate, args.matches, args.seconds, keyed
        )
        row["ceiling"] = top
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"Open loop {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, server code {commit_of(code or ROOT)}, "
        f"{args.seconds:g} s per row, load at the end {load}:\n\n" + open_loop.table(rows)
    )


async def add_ceiling(rows: list[dict[str, Any]], database_url: str, seconds: float) -> None:
    """pgbench's ceiling with the rows' client count, half its tps (an action is two appends)."""
    tps = await asyncio.to_thread(ceiling.measure, database_url, int(rows[0]["clients"]), seconds)
    for row in rows:
        row["ceiling"] = tps / 2


async def run(args: Any) -> str:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL (make bench)")
    database_url = await create_scratch_database(base, "ginrummy_bench")
    workdir = Path(tempfile.mkdtemp(prefix="bench-server-"))
    procs: list[subprocess.Popen[bytes]] = []
    code = Path(args.code) if args.code else None
    with_ceiling = not args.no_ceiling and ceiling.available()
    try:
        if args.open_loop:
            return await run_open_loop(args, database_url, workdir, procs)
        if with_ceiling:
            await ceiling.prepare(database_url)
        proc, url = start_server(database_url, workdir, code, args.workers)
        procs.append(proc)
        # Several workers' connection pools leave too few of PostgreSQL's connections
        # for as many pgbench clients: their ceilings wait until the servers are gone.
        later = with_ceiling and args.workers > 1
        levels = []  # a client count's rows, without and with a key
        for clients in [int(c) for c in args.clients.split(",")]:
            measured = [
                await level(url, proc.pid, clients, args.seconds, keyed) for keyed in (False, True)
            ]
            if with_ceiling and not later:
                await add_ceiling(measured, database_url, args.seconds)
            for row in measured:
                print(json.dumps(row), flush=True)
            levels.append(measured)
        second, other_url = start_server(database_url, workdir, code)
        procs.append(second)
        delivery = await ws_delivery(database_url, url, other_url, args.ws_matches, 40)
        for label, values in delivery.items():
            print(label, len(values), f"p50={percentile(values, 50):.1f}ms", flush=True)
        if later:
            while procs:
                stop_server(procs.pop())
            for measured in levels:
                await add_ceiling(measured, database_url, args.seconds)
        rows = [row for measured in levels for row in measured]
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
        return report(rows, delivery, args)
    finally:
        for proc in procs:
            stop_server(proc)
        await drop_scratch_database(database_url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="per concurrency level")
    parser.add_argument("--level", default="easy", help="the house AI level played against")
    parser.add_argument("--clients", default="1,16,64")
    parser.add_argument("--ws-matches", type=int, default=8)
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--no-write", action="store_true", help="do not add the run to RESULTS-server.md"
    )
    parser.add_argument("--code", default=None, help="run the server from this checkout")
    parser.add_argument("--no-ceiling", action="store_true", help="skip the pgbench ceiling")
    parser.add_argument("--json", default=None, help="also write the throughput rows here")
    parser.add_argument(
        "--workers", type=int, default=1, help="server worker processes (GINRUMMY_WORKERS)"
    )
    parser.add_argument(
        "--open-loop",
        default=None,
        metavar="RATE",
        help="offer RATE actions/s (or PCT%% of the pgbench ceiling) open-loop instead",
    )
    parser.add_argument(
        "--client",
        choices=("httpx", "lean"),
        default="lean",
        help="the load generator's HTTP client: lean (benchmarks/lean_client.py) or httpx "
        "(before 2026-12-03; it costs the shared cores about 3 ms of CPU an action)",
    )
    parser.add_argument("--matches", type=int, default=64, help="open loop: matches in play")
    parser.add_argument(
        "--open-loop-clients",
        type=int,
        default=16,
        help="open loop: pgbench clients of the ceiling",
    )
    args = parser.parse_args()
    OPPONENT["level"] = args.level
    GENERATOR["client"] = args.client
    text = asyncio.run(run(args))
    print(text)
    if not args.no_write:
        add_run(RESULTS, text, "python -m benchmarks.bench_server " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    # Run as ``benchmarks.bench_server``, not as ``__main__``: open_loop imports it by that
    # name, and two copies of the module would not share --level (OPPONENT).
    from benchmarks import bench_server

    bench_server.main()
