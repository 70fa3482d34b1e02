"""Long-lived connections end when their token dies, on every process.

A socket or an NDJSON stream authenticates once, when it opens. Each process keeps the
token hashes of its open connections here and asks the ``tokens`` table every
``CHECK_S`` which of them are still valid: one query per process, however many
connections it holds. A token revoked on any process, or past its expiry, sets its
connections' ``dead`` event; each then sends an ``error`` frame (``unauthorized``) and
closes with ``CLOSE_TOKEN_REVOKED`` (the code a bad token gets at connect time).
A revocation on this process ends its connections at once (``forget``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, defaultdict
from collections.abc import AsyncIterator
from typing import TypeVar

from infra.clock import now_ms
from infra.tokens import Tokens
from server.background import every

T = TypeVar("T")
log = logging.getLogger("ginrummy.stream")

CHECK_S = 0.5
FORGOTTEN_KEPT = 10_000  # revoked here lately (a hold after it is dead at once)
CLOSE_TOKEN_REVOKED = 4401  # 4000 + 401, as every refusal that closes a socket
REVOKED_DETAIL = "the token was revoked or has expired; create or rotate a token"


class TokenWatch:
    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self._held: defaultdict[str, set[asyncio.Event]] = defaultdict(set)
        # Tokens this process revoked lately. A connection whose token was looked up just
        # before a revocation here may hold it just after: it is told at once, not at the
        # next check. A dead token never comes back, so remembering it is always right.
        self._forgotten: OrderedDict[str, None] = OrderedDict()

    def hold(self, token_hash: str) -> asyncio.Event:
        """The event that is set when this token stops being valid."""
        dead = asyncio.Event()
        if token_hash in self._forgotten:
            dead.set()
            return dead
        self._held[token_hash].add(dead)
        return dead

    def release(self, token_hash: str, dead: asyncio.Event) -> None:
        held = self._held.get(token_hash)
        if held is not None:
            held.discard(dead)
            if not held:
                del self._held[token_hash]

    def forget(self, token_hashes: set[str]) -> None:
        """These tokens are dead: end their connections now."""
        for token_hash in token_hashes:
            for dead in self._held.pop(token_hash, set()):
                dead.set()
            self._forgotten[token_hash] = None
        while len(self._forgotten) > FORGOTTEN_KEPT:
            self._forgotten.popitem(last=False)

    async def check(self) -> None:
        """End the connections whose token is no longer valid."""
        if not self._held:
            return
        held = set(self._held)
        valid = await self.tokens.valid(held, now_ms())
        self.forget(held - valid)

    async def run(self) -> None:
        """Check every ``CHECK_S``, for ever (a background task of each process).

        Any failure is logged and the next check tried (``server.background``).
        """
        await every(CHECK_S, self.check, "checking open connections' tokens")


async def until_set(items: AsyncIterator[T], dead: asyncio.Event) -> AsyncIterator[T]:
    """``items`` until they end or ``dead`` is set, whichever comes first; then
    ``items`` is closed (its ``finally`` runs).

    Each step of ``items`` runs in a task of its own, so a consumer that is cancelled
    (an NDJSON client hanging up, say) may leave one suspended inside ``items``. Closing
    ``items`` then would raise "aclose(): asynchronous generator is already running":
    the step is cancelled and awaited first, and ``items`` closed after it, in a task
    that finishes even if the consumer is cancelled again while it waits (as anyio's
    cancel scopes do, at every await).
    """
    waiting = asyncio.ensure_future(dead.wait())
    following: asyncio.Future[T] | None = None
    try:
        while True:
            following = asyncio.ensure_future(anext(items))
            await asyncio.wait({following, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if not following.done():
                return  # dead: the step is cancelled and ``items`` closed below
            try:
                item = following.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        waiting.cancel()
        closing = asyncio.ensure_future(_close_after(following, items))
        _closing.add(closing)
        closing.add_done_callback(_closing.discard)
        await asyncio.shield(closing)


# Closings that outlive a consumer cancelled while it waited for them (a strong
# reference, so that the loop does not drop them half-way).
_closing: set[asyncio.Future[None]] = set()


async def _close_after(step: asyncio.Future[T] | None, items: AsyncIterator[T]) -> None:
    """Stop ``step`` (a pending ``anext(items)``), then close ``items``."""
    if step is not None:
        step.cancel()  # a no-op if it is done
        # Its outcome is moot (an item nobody will read, or the cancellation), but it
        # is taken, so that asyncio does not log it as never retrieved.
        try:
            await step
        except (asyncio.CancelledError, StopAsyncIteration):
            pass
        except Exception:  # the stream failed as it stopped (its presence, say): say so
            log.warning("a stream failed while it was being closed", exc_info=True)
    aclose = getattr(items, "aclose", None)
    if aclose is not None:
        await aclose()
