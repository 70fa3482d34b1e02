"""Lookups by key that arrive together go to the database together: one query at a time.

A keyed move asks the log whether its key is bound to another request before the AI
thinks (``MatchService._refuse_a_key_bound_elsewhere``), a read on the request path of
every keyed action. Like the appends' group commit, a lookup made while no query is out
goes at once, and those made while one is out wait for it and then go as one query: one
round trip and one pooled connection for many, no wait added to a lone lookup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")
Fetch = Callable[[Collection[str]], Awaitable[Mapping[str, V]]]


class LookupBatch(Generic[V]):
    """``get(key)`` answers ``fetch(keys).get(key)``, batching the keys asked concurrently."""

    def __init__(self, fetch: Fetch[V]) -> None:
        self._fetch = fetch
        self._waiting: dict[str, list[asyncio.Future[V | None]]] = {}
        self._running: asyncio.Task[None] | None = None
        self.queries = 0  # how many fetches ran: a benchmark and a test read it

    async def get(self, key: str) -> V | None:
        answer: asyncio.Future[V | None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(answer)
        running = self._running
        if running is None or running.done() or running.get_loop() is not answer.get_loop():
            self._running = asyncio.create_task(self._drain())
        return await answer

    async def _drain(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, {}
            self.queries += 1
            try:
                found = await self._fetch(batch.keys())
            except BaseException as error:  # every waiter of the batch hears of it
                for answers in batch.values():
                    for answer in answers:
                        if not answer.done():
                            answer.set_exception(error)
                if not isinstance(error, Exception):
                    raise
                continue
            for key, answers in batch.items():
                for answer in answers:
                    if not answer.done():
                        answer.set_result(found.get(key))
