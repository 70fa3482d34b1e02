"""JSON nested past the decoder's depth is unreadable input, not a server error.

msgspec gives up at about a thousand levels with RecursionError, so a few kilobytes
of brackets (well under the size limits) reached clients as a 500 over HTTP and
stopped a socket's reader. Both channels now answer them as any malformed JSON.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.exceptions import ClientException

TOO_DEEP = "the JSON nests too deeply to read"

T = TypeVar("T")


def decode(text: str | bytes, type: type[T]) -> T:
    """``msgspec.json.decode``, with too deep a document a DecodeError like any bad JSON."""
    try:
        return msgspec.json.decode(text, type=type)
    except RecursionError:
        raise msgspec.DecodeError(TOO_DEEP) from None


class DepthCheckedRequest(Request[Any, Any, Any]):
    """Litestar's request, whose JSON body too deep to decode is a 400."""

    async def json(self) -> Any:
        try:
            return await super().json()
        except RecursionError:
            raise ClientException(TOO_DEEP) from None
