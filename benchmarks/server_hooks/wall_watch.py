"""Where an action's wall time goes inside a benchmark server (``benchmarks/wall_split.py``).

Wraps, in this process only: the ASGI app (an action request from its first call to
its last body byte), the match log's chained append (``server/match_log.py``: its wait
for a slot among the appends in flight, and the store call: queue, pool, statements,
commit), each
group commit's one call (round trip and commit, and the group's size), the AI's
decision (a thread hop), and a probe task that sleeps 2 ms and records how late it
wakes (the event loop's queue: how long a ready task waits for the loop). Samples are
held in memory and written to ``WALL_LOG`` on SIGUSR2, so timing costs no I/O.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections import defaultdict
from typing import Any

SAMPLES: defaultdict[str, list[float]] = defaultdict(list)
PROBE_S = 0.002


def _timed(name: str, method: Any) -> Any:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            SAMPLES[name].append((time.perf_counter() - started) * 1000)

    return wrapper


async def _probe() -> None:
    while True:
        started = time.perf_counter()
        await asyncio.sleep(PROBE_S)
        SAMPLES["loop_lag"].append((time.perf_counter() - started - PROBE_S) * 1000)


def install(path: str) -> None:
    from litestar import Litestar

    from infra import sql_event_store
    from infra.sql_event_store import SqlEventStore
    from server.house_ai import HouseAi
    from server.match_log import MatchLog

    call = Litestar.__call__
    probing: list[asyncio.Task[None]] = []

    async def app_call(self: Any, scope: Any, receive: Any, send: Any) -> None:
        if not probing:
            probing.append(asyncio.get_running_loop().create_task(_probe()))
        if scope["type"] != "http" or not scope["path"].endswith("/actions"):
            return await call(self, scope, receive, send)
        started = time.perf_counter()

        async def timed_send(message: Any) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                SAMPLES["request"].append((time.perf_counter() - started) * 1000)
            await send(message)

        return await call(self, scope, receive, timed_send)

    Litestar.__call__ = app_call  # type: ignore[method-assign]
    MatchLog.append_chain = _timed("chain_with_slot_wait", MatchLog.append_chain)  # type: ignore[method-assign]
    HouseAi.command = _timed("ai_decision", HouseAi.command)  # type: ignore[method-assign]
    SqlEventStore.append_chain = _timed("store_append_chain", SqlEventStore.append_chain)  # type: ignore[method-assign]
    SqlEventStore.append = _timed("store_append", SqlEventStore.append)  # type: ignore[method-assign]
    group_call = sql_event_store.append_group

    async def timed_group(conn: Any, requests: Any, now: Any) -> Any:
        SAMPLES["group_size"].append(float(len(requests)))
        return await _timed("group_round_trip_and_commit", group_call)(conn, requests, now)

    sql_event_store.append_group = timed_group  # type: ignore[assignment]

    def dump(signum: int, frame: Any) -> None:
        with open(path, "w") as out:
            json.dump(SAMPLES, out)
        SAMPLES.clear()

    signal.signal(signal.SIGUSR2, dump)
