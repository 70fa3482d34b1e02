"""The collector watched in a server that ``benchmarks/gc_pauses.py`` starts.

With ``GC_PAUSE_LOG`` set (sitecustomize.py installs it) it writes one line per collection to that file: wall time,
generation, pause ms, objects collected, and the pause's CPU ms (the thread's own time,
which other processes on a loaded machine cannot stretch). On SIGUSR1 it appends the tracked objects'
counts (per generation, frozen, and the most common types), to see what the heap holds,
then forces a middle and a full collection and times them (what the next would cost);
with ``GC_PAUSE_TYPES`` also what each young collection finds (before it is timed).
Nothing here changes what the server does; it only watches the collector.
"""

from __future__ import annotations

import collections
import gc
import os
import signal
import time
from typing import Any


def install(path: str) -> None:
    out = open(path, "a", buffering=1)  # noqa: SIM115 - open for the process's life
    started = [0.0, 0.0]

    def on_collect(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            if info["generation"] == 0 and os.environ.get("GC_PAUSE_TYPES"):
                young = gc.get_objects(0)  # before the clock starts: not in the pause
                types = collections.Counter(type(o).__name__ for o in young).most_common(8)
                top = " ".join(f"{name}={count}" for name, count in types)
                out.write(f"young {time.time():.3f} {len(young)} {top}\n")
                del young
            started[:] = [time.perf_counter(), time.thread_time()]
            return
        pause = (time.perf_counter() - started[0]) * 1000
        cpu = (time.thread_time() - started[1]) * 1000
        out.write(
            f"gc {time.time():.3f} {info['generation']} {pause:.3f} {info['collected']} {cpu:.3f}\n"
        )

    def dump(signum: int, frame: Any) -> None:
        sizes = [len(gc.get_objects(generation)) for generation in range(3)]
        types = collections.Counter(type(o).__name__ for o in gc.get_objects())
        top = " ".join(f"{name}={count}" for name, count in types.most_common(25))
        out.write(f"heap {time.time():.3f} gens={sizes} frozen={gc.get_freeze_count()} {top}\n")
        for generation in (1, 2):  # what the next older collection costs at this heap
            wall, cpu = time.perf_counter(), time.thread_time()
            gc.collect(generation)
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            out.write(f"forced {generation} wall_ms={wall * 1000:.1f} cpu_ms={cpu * 1000:.1f}\n")

    gc.callbacks.append(on_collect)
    signal.signal(signal.SIGUSR1, dump)
