"""Where the house AI thinks: hard in a process of its own, the quick levels on the loop.

Hard's search is pure Python. In a thread it holds the server's interpreter lock while
it works, so every request of the process waits its turn behind it, and a second core
sits idle. In a process pool it runs beside the event loop: requests keep their latency
and a machine with two cores uses both. The other levels decide in well under a
millisecond (measured on the 2-core machine over 15 matches: easy's p99 0.07 ms,
medium's 0.36 ms), less than even a hand-off to a worker thread costs (about 0.1 ms of
CPU and a wait for the interpreter lock), so they decide on the event loop itself.

Hard is count-bounded and seeded, so it decides the same in either place; only the
last-resort time cap (``domain.ai.clock``) is read in the process that thinks. If the
pool's process dies, that decision is made in a thread instead and the next one starts
a fresh pool: a crash there never stalls a match. The other way round, a pool process
whose server was killed outright (``kill -9``: no shutdown, so no one tells it) sees
its parent change and exits, instead of waiting on its queue for good.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from domain.ai import choose
from domain.ai.clock import cap_hits
from domain.commands import AnySeatCommand
from domain.views import PlayerView

log = logging.getLogger("ginrummy.ai")

SEARCHING_LEVELS = frozenset({"hard"})  # the levels worth a trip to another process
PARENT_CHECK_S = 0.5  # how often a pool process looks whether its server still lives


def decide_counting(
    level: str, view: PlayerView, seed: str, cap_ms: float | None
) -> tuple[AnySeatCommand, bool]:
    """The AI's command, and whether its time cap cut the thinking short.

    Runs in a worker thread or process, where ``cap_hits`` counts this decision alone.
    """
    before = cap_hits()
    command = choose(level, view, seed, time_budget_ms=cap_ms)  # type: ignore[arg-type]
    return command, cap_hits() > before


def _ready() -> bool:
    return True


def _exit_with_parent(parent: int, logging_as: tuple[str, str] | None = None) -> None:
    """Pool initializer: end this process once ``parent`` is gone (it was reparented),
    and not before: a stop signal is the server's to handle. A spawned process starts
    with logging unconfigured, so it takes the server's (``logging_as``: level, format):
    whatever it logs has the server's shape and masking.

    ``systemctl stop`` sends SIGTERM to every process of the service, and Ctrl-C in a
    terminal SIGINT to the whole foreground group, so this process heard the server's
    stop signal too and died at once: a decision under way was redone in a thread while
    the server drained, and every clean stop logged that the AI's process had died. The
    server ends the pool itself once its requests are done (``AiThinker.close``).

    A pool process holds both ends of its own task queue, so a dead server never shows
    it an end of file; without this, every server killed after meeting hard left one
    idle Python process behind.
    """

    if logging_as is not None:
        from server import logs

        logs.install(*logging_as)
        logs.report_uncaught_exceptions()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class AiThinker:
    """Decides house-AI moves; ``processes`` 0 keeps hard in a thread instead of a pool."""

    def __init__(self, processes: int = 0, logging_as: tuple[str, str] | None = None) -> None:
        self.processes = processes
        self.logging_as = logging_as  # (level, format) for the pool's processes
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        """Start the pool (spawned, so the server's threads are not forked); the server
        leaves it to hard's first decision, so a process that never meets hard pays nothing."""
        if self.processes > 0 and self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.processes,
                mp_context=context,
                initializer=_exit_with_parent,
                initargs=(os.getpid(), self.logging_as),
            )
            self._pool.submit(_ready)  # the first decision does not wait for the imports

    async def decide(
        self, level: str, view: PlayerView, seed: str, cap_ms: float | None
    ) -> tuple[AnySeatCommand, bool]:
        if level not in SEARCHING_LEVELS:
            return decide_counting(level, view, seed, cap_ms)
        if self.processes > 0:
            self.start()
            pool = self._pool
            assert pool is not None
            try:
                return await asyncio.get_running_loop().run_in_executor(
                    pool, decide_counting, level, view, seed, cap_ms
                )
            except BrokenProcessPool:
                log.warning("the AI's process died; deciding in a thread, a new pool next time")
                if self._pool is pool:
                    self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
        return await asyncio.to_thread(decide_counting, level, view, seed, cap_ms)

    def close(self) -> None:
        """Stop the pool and wait for its processes (a decision under way ends within the
        cap): a process left running at exit leaks the pool's semaphores, and Python warns."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
