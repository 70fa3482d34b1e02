"""The garbage collector tuned for a long-running server (issue 22, the latency tail).

A request allocates thousands of short-lived objects (SQLAlchemy rows and statements,
msgspec structs, Litestar's scope and response): at CPython's default gen-0 threshold
(700) the collector runs every few requests, and each older-generation pass walks every
object the process holds, the imported modules and the app included, on the event
loop, in the middle of whichever request allocated last. So once start-up is done,
what exists then is frozen (moved to the permanent generation, never walked again)
and the young generation is collected less often; reference counting still frees
everything that is not in a cycle at once.

How young: a young collection costs what it finds (survivors since the last one, and
the cyclic garbage of requests), about 0.6 µs of CPU an object on the 2-core machine.
At 20,000 it found 20–26 thousand objects and took 10–25 ms of CPU (30–110 ms of wall
on a loaded machine) every ~30 s at 150 actions/s; at 5,000, 2.8 ms median and 5.7 ms
at most, every few seconds, for ~60 ms more CPU in two minutes (issue 22, RESULTS-server).
That is affordable only because the match cache is not tracked (``gc=False`` events
and states): before, each older collection walked a tracked object per cached event.

Before that, while ``ginrummy serve`` starts, the collector is off (``pause_for_start``):
importing the server and building its app allocate some hundred thousand objects that
all live on, so each collection then walked a growing heap to free next to nothing, a
fifth of the imports' CPU (130 of 650 ms, measured); the collection that ends the start
frees what start-up left.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 5_000  # allocations between young collections (CPython's default: 700)
OLDER_THRESHOLDS = (20, 20)

_tuned = False


def pause_for_start() -> None:
    """No collections while the process starts: ``tune_after_start`` (or ``resume``, in a
    process that serves nothing itself) turns the collector on again."""
    gc.disable()


def resume() -> None:
    gc.enable()


def tune_after_start() -> None:
    """Freeze what start-up built and raise the thresholds; once per process."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()  # garbage from start-up is freed, not frozen
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *OLDER_THRESHOLDS)
    gc.enable()  # paused for the start (pause_for_start), when started by ``serve``
