"""The server's background loops: each does its work every few seconds, for ever.

One loop for all of them, so that each survives the same way: any failure is logged
and the next round tried. Catching only the store's translated errors was not enough:
a driver error nobody foresaw (a damaged SQLite file's, say) ended the token watch for
good, and from then on that process silently stopped ending revoked tokens'
connections. Expiring tables, firing move clocks and the rest would stop the same way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("ginrummy.server")


async def every(interval: float, work: Callable[[], Awaitable[object]], what: str) -> None:
    """Await ``work()`` every ``interval`` seconds until cancelled; log and go on if it fails."""
    while True:
        await asyncio.sleep(interval)
        try:
            await work()
        except Exception:  # cancellation is a BaseException and still ends the loop
            log.exception("%s failed; retrying later", what)
