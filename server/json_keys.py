"""A JSON object that gives one key twice is ambiguous input, refused rather than guessed.

msgspec, as most decoders, keeps the last value: ``{"action": "discard", "action":
"knock"}`` knocked, though a proxy, a log or another decoder in between may have read
the discard. RFC 8259 §4 leaves such a document's meaning to the reader; this server
refuses it (422 ``invalid_request``), over HTTP and on the sockets alike.
"""

from __future__ import annotations

import json
from typing import Any

from domain.errors import quoted


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _refuse_repeats(pairs: list[tuple[str, Any]]) -> None:
    """Each object's keys as the stdlib decoder reads them: the first repeat stops it."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Repeated(key)
        seen.add(key)


def repeated_key(document: str | bytes) -> str | None:
    """Why ``document`` (JSON msgspec has read already) is ambiguous, if an object in it
    gives a key twice (escaped or not: ``"\\u0061"`` is ``"a"``); None otherwise. Read
    again by the stdlib's decoder, whose hook sees each object's keys in order: msgspec
    has none. A document too deep for it is left to msgspec's verdict."""
    try:
        json.loads(document, object_pairs_hook=_refuse_repeats)
    except _Repeated as repeated:
        return f"the key {quoted(repeated.key)} appears twice in one object: send it once"
    except (ValueError, RecursionError):
        return None
    return None
