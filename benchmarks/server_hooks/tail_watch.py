"""A timeline of one benchmark server, to tell what a slow action waited for (``tail_trace.py``).

Records, with ``time.perf_counter()`` (the system's monotonic clock, which the load
generator reads too), the span of every action request inside the ASGI app, of every
group commit's one call (with the group's size), of every collection of the collector,
and every stall of the event loop: a watchdog thread sees the loop's 2 ms heartbeat go
quiet for 20 ms and takes the main thread's stack once per stall, so the tail shows
what held the loop; and every new database connection (``asyncpg.connect``). Spans are kept in memory and written to ``TAIL_LOG`` on SIGUSR2.
Nothing here changes what the server answers.
"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import sys
import threading
import time
import traceback
from typing import Any

SPANS: list[list[Any]] = []  # [kind, start, end, detail]
HEARTBEAT_S = 0.002
STALL_S = 0.020
_beat = [time.perf_counter()]


async def _heartbeat() -> None:
    while True:
        _beat[0] = time.perf_counter()
        await asyncio.sleep(HEARTBEAT_S)


def _watchdog(main_id: int) -> None:
    """Take the main thread's stack once per stall of the loop (a quiet heartbeat)."""
    taken_for = 0.0
    while True:
        time.sleep(0.005)
        beat = _beat[0]
        now = time.perf_counter()
        if now - beat > STALL_S and beat != taken_for:
            taken_for = beat
            frame = sys._current_frames().get(main_id)
            stack = traceback.extract_stack(frame)[-12:] if frame is not None else []
            where = [f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno} {f.name}" for f in stack]
            SPANS.append(["stall", beat, now, where])


def install(path: str) -> None:
    from litestar import Litestar

    from infra import sql_event_store

    call = Litestar.__call__
    started_loop: list[bool] = []

    async def app_call(self: Any, scope: Any, receive: Any, send: Any) -> None:
        if not started_loop:
            started_loop.append(True)
            asyncio.get_running_loop().create_task(_heartbeat())
            main_id = threading.get_ident()
            threading.Thread(target=_watchdog, args=(main_id,), daemon=True).start()
        if scope["type"] != "http" or not scope["path"].endswith("/actions"):
            return await call(self, scope, receive, send)
        started = time.perf_counter()

        async def timed_send(message: Any) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                SPANS.append(["request", started, time.perf_counter(), scope["path"]])
            await send(message)

        return await call(self, scope, receive, timed_send)

    Litestar.__call__ = app_call  # type: ignore[method-assign]
    group_call = sql_event_store.append_group

    async def timed_group(conn: Any, requests: Any, now: Any) -> Any:
        started = time.perf_counter()
        try:
            return await group_call(conn, requests, now)
        finally:
            SPANS.append(["group", started, time.perf_counter(), len(requests)])

    sql_event_store.append_group = timed_group  # type: ignore[assignment]
    import asyncpg  # type: ignore[import-untyped]

    connect = asyncpg.connect

    async def timed_connect(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await connect(*args, **kwargs)
        finally:
            SPANS.append(["connect", started, time.perf_counter(), None])

    asyncpg.connect = timed_connect
    collecting = [0.0]

    def on_collect(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[0] = time.perf_counter()
        else:
            SPANS.append(["gc", collecting[0], time.perf_counter(), info["generation"]])

    gc.callbacks.append(on_collect)

    def dump(signum: int, frame: Any) -> None:
        with open(path, "w") as out:
            json.dump(SPANS, out)
        SPANS.clear()

    signal.signal(signal.SIGUSR2, dump)
