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

from infra.errors import StoreUnavailable
from server.repeated_failures import RepeatedFailures, skipped_note

log = logging.getLogger("ginrummy.server")


async def every(interval: float, work: Callable[[], Awaitable[object]], what: str) -> None:
    """Await ``work()`` every ``interval`` seconds until cancelled; log and go on if it
    fails. The database being away is one warning line; any other failure a traceback;
    either, repeated, at most once every 30 s (with how many were not logged)."""
    failures = RepeatedFailures()
    while True:
        await asyncio.sleep(interval)
        try:
            await work()
        except StoreUnavailable as exc:
            if (skipped := failures.due("store")) is not None:
                log.warning("%s: %s; retrying%s", what, exc, skipped_note(skipped))
        except Exception as exc:  # cancellation is a BaseException and still ends the loop
            if (skipped := failures.due(type(exc).__name__)) is not None:
                log.exception("%s failed; retrying later%s", what, skipped_note(skipped))
