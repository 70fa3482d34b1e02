"""Put on a benchmark server's path (``bench_server.start_server(hooks=...)``).

``GC_PAUSE_LOG``: log the collector's pauses (gc_watch.py). ``WALL_LOG``: time where
an action's wall time goes inside the server (wall_watch.py). ``TAIL_LOG``: a timeline of
requests, group commits, collections and loop stalls (tail_watch.py). None is set in
production, and none changes what the server answers.
"""

from __future__ import annotations

import os

if os.environ.get("GC_PAUSE_LOG"):
    import gc_watch

    gc_watch.install(os.environ["GC_PAUSE_LOG"])
if os.environ.get("WALL_LOG"):
    import wall_watch

    wall_watch.install(os.environ["WALL_LOG"])
if os.environ.get("TAIL_LOG"):
    import tail_watch

    tail_watch.install(os.environ["TAIL_LOG"])
