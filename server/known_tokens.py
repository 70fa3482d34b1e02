"""Bearer tokens this process has seen lately, re-checked together in the background.

Every request names its token, and looking it up in the shared ``tokens`` table on
each one would cost a database round trip per request. A token found valid is
therefore trusted here for ``TRUST_S`` after the check that found it, so a token
revoked on another process is refused here within that second (its expiry is
checked on every use). The checks run in the background, every ``CHECK_S``, for all
the tokens in use at once: one query a process, however many clients are busy, so a
busy client's requests never wait on a lookup (before, each token was looked up again
in its request once its second was up: one query a second for every busy client).
A token unused for ``IDLE_S`` is dropped, and looked up again if it comes back.

A lookup under way when a token is revoked here (``forget``) may have read the table
before the revocation: its answer serves the request that asked (begun before the
revocation) but is not remembered, or that request's token would be trusted for
another second after this process itself revoked it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from infra.clock import now_ms
from infra.tokens import TokenHolder, Tokens
from server.background import every

TRUST_S = 1.0  # a revoked token is trusted at most this long by another process
CHECK_S = 0.5  # the background check's period: well inside TRUST_S
IDLE_S = 60.0
CAPACITY = 10_000  # past this many, all are forgotten (each then costs one lookup)


@dataclass(slots=True)
class _Known:
    holder: TokenHolder
    checked_at: float  # monotonic time of the query that last found it valid
    used_at: float


class KnownTokens:
    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self._known: dict[str, _Known] = {}
        self._forgets = 0  # calls of forget so far: a lookup that spans one is not kept

    async def holder(self, token_hash: str) -> TokenHolder | None:
        """The token's holder if the token was valid within ``TRUST_S`` (None: unknown
        or revoked). The caller checks its expiry."""
        now = time.monotonic()
        known = self._known.get(token_hash)
        if known is not None and now - known.checked_at < TRUST_S:
            known.used_at = now
            return known.holder
        forgets = self._forgets
        holder = await self.tokens.holder(token_hash)
        if holder is None:
            self._known.pop(token_hash, None)
            return None
        if self._forgets != forgets:  # perhaps this very token, revoked here meanwhile
            return holder
        if len(self._known) >= CAPACITY:
            self._known.clear()
        self._known[token_hash] = _Known(holder, now, now)
        return holder

    def forget(self, token_hashes: set[str]) -> None:
        """Tokens revoked or rotated on this process: refused here at once."""
        self._forgets += 1
        for token_hash in token_hashes:
            self._known.pop(token_hash, None)

    async def check(self) -> None:
        """Re-check every token used within ``IDLE_S`` in one query; forget the rest."""
        started = time.monotonic()
        idle = [h for h, known in self._known.items() if started - known.used_at >= IDLE_S]
        for token_hash in idle:
            del self._known[token_hash]
        if not self._known:
            return
        asked = set(self._known)
        valid = await self.tokens.valid(asked, now_ms())
        for token_hash in asked:  # one forgotten or looked up meanwhile is left as it is now
            now_known = self._known.get(token_hash)
            if now_known is None or now_known.checked_at > started:
                continue
            if token_hash in valid:
                now_known.checked_at = started
            else:
                del self._known[token_hash]

    async def run(self) -> None:
        """Check every ``CHECK_S``, for ever (a background task of each process)."""
        await every(CHECK_S, self.check, "re-checking the tokens in use")
