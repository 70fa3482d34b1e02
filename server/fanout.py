"""In-process fan-out: "match M reached version V" to every socket watching M.

Only the fact that a stream moved travels here; each socket then reads the events it
has not sent from the match service (which reads the store once per process), so a
notification can be lost or repeated without losing or repeating an event. Publish
never blocks and never raises: a watcher that is gone or slow cannot stall the
publisher or the other watchers.

Two sources publish: this process right after its own appends (low latency), and the
store's global-log tailer (moves made by other processes). Both also announce each
match that starts (its ``match_started`` event) to the player streams concerned.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Iterable

from domain.chat import STREAM_PREFIX as CHAT_STREAM_PREFIX
from infra.waiting import wait_set

log = logging.getLogger("ginrummy.fanout")


class Watch:
    """One socket's wake-up signal: coalesces any number of publishes into one wake."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        self.latest = 0
        self._wake = asyncio.Event()

    def notify(self, version: int) -> None:
        if version > self.latest:
            self.latest = version
        self._wake.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """True if woken, False on timeout."""
        if not await wait_set(self._wake, timeout):
            return False
        self._wake.clear()
        return True


class Quiet:
    """How long a stream has sent nothing, so that it pings after ``interval`` seconds of
    its own silence. A firehose wakes for every stream that moves anywhere, most of
    them none of its reader's business: a ping sent only after a wake-up-free interval
    never comes on a busy server, and a client or proxy waiting for it hangs up."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._loop = asyncio.get_running_loop()
        self._last = self._loop.time()

    def sent(self) -> None:
        """A frame went out now."""
        self._last = self._loop.time()

    def left(self) -> float:
        """Seconds until a ping is due (0 if it is)."""
        return max(0.0, self._last + self.interval - self._loop.time())

    def due(self) -> bool:
        return self.left() == 0.0


class Backoff:
    """When to try a failed database read again: ``first`` seconds after it failed,
    doubling while it keeps failing, at most ``at_most``; from ``first`` again once one is
    answered. A read that fails for every socket of a process at once (the database is
    down) is then not repeated in a tight loop, and one that failed once is soon retried.
    """

    def __init__(self, first: float = 0.5, at_most: float = 10.0) -> None:
        self.first = first
        self.at_most = at_most
        self.delay = first
        self._due: float | None = None  # time.monotonic() of the next try

    @property
    def scheduled(self) -> bool:
        return self._due is not None

    def failed(self) -> None:
        """A read failed: try again after the delay, and wait longer after the next."""
        self._due = time.monotonic() + self.delay
        self.delay = min(self.at_most, self.delay * 2)

    def answered(self) -> None:
        self._due, self.delay = None, self.first

    def seconds_left(self) -> float | None:
        """Until the next try (0 if it is due); None if none is scheduled."""
        return None if self._due is None else max(0.0, self._due - time.monotonic())

    def due(self) -> bool:
        return self._due is not None and time.monotonic() >= self._due

    def take(self) -> bool:
        """Whether a try is due now; if so it is no longer scheduled (``failed`` again)."""
        if not self.due():
            return False
        self._due = None
        return True


class Firehose:
    """One player stream's wake-up signal for every stream that moves, with the newest
    version seen of each since it last looked (so publishes coalesce, as a Watch's do),
    and the matches that started with its player in a seat or as their host."""

    def __init__(self, player_id: str | None = None) -> None:
        self.player_id = player_id
        self.pending: dict[str, int] = {}
        self.started: list[str] = []
        self._wake = asyncio.Event()

    def start(self, match_id: str) -> None:
        self.started.append(match_id)
        self._wake.set()

    def take_started(self) -> list[str]:
        """The matches of this player that started since it last looked, each once."""
        started, self.started = list(dict.fromkeys(self.started)), []
        return started

    def poke(self) -> None:
        """Wake with no stream moved: something else is due (a presence change)."""
        self._wake.set()

    def notify(self, stream_id: str, version: int) -> None:
        if version > self.pending.get(stream_id, 0):
            self.pending[stream_id] = version
        self._wake.set()

    async def wait(self, timeout: float | None = None) -> dict[str, int]:
        """The streams that moved (empty on timeout), each once."""
        if not await wait_set(self._wake, timeout):
            return {}
        self._wake.clear()
        moved, self.pending = self.pending, {}
        return moved


class Hub:
    def __init__(self) -> None:
        self._watches: dict[str, set[Watch]] = defaultdict(set)
        self._firehoses: set[Firehose] = set()

    def firehose(self, player_id: str | None = None) -> Firehose:
        hose = Firehose(player_id)
        self._firehoses.add(hose)
        return hose

    def close_firehose(self, hose: Firehose) -> None:
        self._firehoses.discard(hose)

    def watch(self, match_id: str) -> Watch:
        watch = Watch(match_id)
        self._watches[match_id].add(watch)
        return watch

    def unwatch(self, watch: Watch) -> None:
        watches = self._watches.get(watch.match_id)
        if watches is None:
            return
        watches.discard(watch)
        if not watches:
            del self._watches[watch.match_id]

    def publish(self, match_id: str, version: int) -> None:
        # A chat's appends are no player stream's or the lobby's business, and waking
        # them would shift their next ping: a mute would show as a late ping.
        if not match_id.startswith(CHAT_STREAM_PREFIX):
            for hose in self._firehoses:
                hose.notify(match_id, version)
        for watch in tuple(self._watches.get(match_id, ())):
            try:
                watch.notify(version)
            except Exception:  # a broken watcher must not stop the others
                log.exception("dropping a broken watch on %s", match_id)
                self.unwatch(watch)

    def announce_start(self, match_id: str, attendees: Iterable[str]) -> None:
        """A match began: tell the player streams of its seats and its host. A match
        started outside a table (against the house AI, or two house AIs to watch) is
        known to its creator's stream only this way, on every process."""
        concerned = set(attendees)
        for hose in self._firehoses:
            if hose.player_id in concerned:
                hose.start(match_id)

    def watcher_count(self, match_id: str | None = None) -> int:
        if match_id is not None:
            return len(self._watches.get(match_id, ()))
        return sum(len(w) for w in self._watches.values())
