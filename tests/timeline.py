"""Where a run's time went, printed at its end: each test file's wall time, the worker
that ran it, and how long each worker sat idle while the other finished.

The suite runs on two workers, a file kept whole on one (``--dist loadfile``), so its
wall time is the later worker's: a long file started last is a tail that no faster test
shortens. A run's summary shows it; one run's numbers, not a guess, say what to change.
Loaded with ``-p tests.timeline`` (pyproject's ``addopts``); said only by a run on
several workers (``make test``), whose controller hears every worker's reports.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

# file -> worker -> [first start, last stop] of its tests' phases (setup, call, teardown)
_spans: dict[str, dict[str, list[float]]] = defaultdict(dict)

SLOWEST = 12  # files named in the summary


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    start, stop = getattr(report, "start", None), getattr(report, "stop", None)
    if start is None or stop is None:
        return
    node: Any = getattr(report, "node", None)  # set on the controller for a worker's report
    worker = node.gateway.id if node is not None else "main"
    file = report.nodeid.split("::", 1)[0]
    span = _spans[file].setdefault(worker, [start, stop])
    span[0], span[1] = min(span[0], start), max(span[1], stop)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    rows = [(f, w, a, b) for f, by in _spans.items() for w, (a, b) in by.items()]
    if len({w for _, w, _, _ in rows}) < 2:
        return  # one process (a worker among others, or a run without any): no balance to show
    began = min(a for _, _, a, _ in rows)
    ended: dict[str, float] = defaultdict(float)
    busy: dict[str, float] = defaultdict(float)
    for _, worker, start, stop in rows:
        ended[worker] = max(ended[worker], stop)
        busy[worker] += stop - start
    write = terminalreporter.write_line
    terminalreporter.section("where the time went (tests/timeline.py)")
    last = max(ended.values())
    for worker in sorted(ended):
        write(
            f"{worker}: busy {busy[worker]:.0f} s in files, done at {ended[worker] - began:.0f} s,"
            f" idle {last - ended[worker]:.0f} s at the end"
        )
    write("slowest files (wall s, worker, started at s):")
    for file, worker, start, stop in sorted(rows, key=lambda r: r[2] - r[3])[:SLOWEST]:
        write(f"  {stop - start:6.1f}  {worker}  {start - began:6.0f}  {file}")
    tail = sorted(rows, key=lambda r: r[3])[-3:]
    write("last to finish: " + ", ".join(f"{f} ({w}, {b - a:.0f} s)" for f, w, a, b in tail))
