"""The garbage collector tuned for a long-running server (issue 22, the latency tail).

A request allocates thousands of short-lived objects (SQLAlchemy rows and statements,
msgspec structs, Litestar's scope and response): at CPython's default gen-0 threshold
(700) the collector runs every few requests, and each older-generation pass walks every
object the process holds, the imported modules and the app included, on the event
loop, in the middle of whichever request allocated last. So once start-up is done,
what exists then is frozen (moved to the permanent generation, never walked again)
and the young generation is collected less often; reference counting still frees
everything that is not in a cycle at once.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 20_000  # allocations between young collections (CPython's default: 700)
OLDER_THRESHOLDS = (20, 20)

_tuned = False


def tune_after_start() -> None:
    """Freeze what start-up built and raise the thresholds; once per process."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()  # garbage from start-up is freed, not frozen
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *OLDER_THRESHOLDS)
