"""The Idempotency-Keys this process is acting on now, so an in-process loser is told at once.

A key's lasting record is the log: the append that acts writes the request's command id
(``key:<player>:<key>``) and hash in its own transaction, and refuses a second request
with that id (``IdempotencyMismatch``), so a key costs no round trip of its own. What
the log cannot show is a request still deciding: of two requests with one key in this
process, the loser would wait on the match lock and could then be refused on the
winner's state (an illegal move, a stale version) instead of as a reuse. A request
holds its key here while it acts, and another request with that key is refused before
it decides. Only requests in flight are held (a handful), so nothing needs evicting.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class KeysInFlight:
    """(player, key) -> the hash of the request acting with it, and how many copies are."""

    def __init__(self) -> None:
        self._held: dict[tuple[str, str], tuple[str, int]] = {}

    @contextmanager
    def hold(self, player_id: str, key: str, request_hash: str) -> Iterator[bool]:
        """Hold the key for this request while the block runs; False (and nothing held)
        if another request holds it. Copies of one request share it: a retry sent before
        its first answer came is answered from the log as the first one acts."""
        slot = (player_id, key)
        held = self._held.get(slot)
        if held is not None and held[0] != request_hash:
            yield False
            return
        self._held[slot] = (request_hash, (held[1] if held else 0) + 1)
        try:
            yield True
        finally:
            digest, count = self._held[slot]
            if count > 1:
                self._held[slot] = (digest, count - 1)
            else:
                del self._held[slot]

    def __len__(self) -> int:
        return len(self._held)
