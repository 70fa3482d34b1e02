"""Lookups by key that arrive together go to the database together: one query at a time.

A keyed move asks the log, before the AI thinks, whether its key is bound to another
request (``MatchService._refuse_a_key_bound_elsewhere``): a read on the request path of
every keyed action. Like the appends' group commit, a lookup made while no query is out
goes at once, and those made while one is out wait for it and then go as one query: one
round trip and one pooled connection for many, no wait added to a lone lookup.

Every waiter gets an answer or an error, whatever ends the task that asks: a lookup is
awaited under its match's lock, so one left waiting would stall that match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping
from itertools import islice
from typing import Generic, TypeVar

V = TypeVar("V")
Fetch = Callable[[Collection[str]], Awaitable[Mapping[str, V]]]
MAX_KEYS = 500  # per query: well inside SQLite's limit on bound parameters


class LookupBatch(Generic[V]):
    """``get(key)`` answers ``fetch(keys).get(key)``, batching the keys asked concurrently."""

    def __init__(self, fetch: Fetch[V]) -> None:
        self._fetch = fetch
        self._waiting: dict[str, list[asyncio.Future[V | None]]] = {}
        self._running: asyncio.Task[None] | None = None
        self.queries = 0  # how many fetches ran: a benchmark and a test read it

    async def get(self, key: str) -> V | None:
        loop = asyncio.get_running_loop()
        running = self._running
        if running is not None and running.get_loop() is not loop:
            # Left by another event loop (a test's, or a closed one): its waiters can
            # never be answered from this loop, and its task will never run again.
            self._fail(self._waiting, RuntimeError("the lookup's event loop has gone"))
            self._waiting, self._running = {}, None
        answer: asyncio.Future[V | None] = loop.create_future()
        self._waiting.setdefault(key, []).append(answer)
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self._drain())
        return await answer

    async def wait_idle(self) -> None:
        """Until the lookups asked so far are answered (for a store's close)."""
        running = self._running
        if running is not None and not running.done():
            await asyncio.wait([running])

    async def _drain(self) -> None:
        batch: dict[str, list[asyncio.Future[V | None]]] = {}
        try:
            while self._waiting:
                keys = list(islice(self._waiting, MAX_KEYS))
                batch = {key: self._waiting.pop(key) for key in keys}
                self.queries += 1
                try:
                    found = await self._fetch(batch.keys())
                except Exception as error:  # every waiter of the batch hears of it
                    self._fail(batch, error)
                    continue
                for key, answers in batch.items():
                    for answer in answers:
                        if not answer.done():
                            answer.set_result(found.get(key))
                batch = {}
        finally:  # cancelled, or worse: no waiter is left without an answer
            gone = RuntimeError("the key lookup was interrupted")
            self._fail(batch, gone)
            self._fail(self._waiting, gone)
            self._waiting = {}

    @staticmethod
    def _fail(waiting: dict[str, list[asyncio.Future[V | None]]], error: BaseException) -> None:
        for answers in waiting.values():
            for answer in answers:
                if not answer.done() and not answer.get_loop().is_closed():
                    answer.set_exception(error)
