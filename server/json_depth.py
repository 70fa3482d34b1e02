"""JSON nested past the decoder's depth is unreadable input, not a server error.

msgspec gives up at about a thousand levels with RecursionError, so a few kilobytes
of brackets (well under the size limits) reached clients as a 500 over HTTP and
stopped a socket's reader. Both channels now answer them as any malformed JSON.

A string escape that is half of a UTF-16 surrogate pair (``"\\ud800"`` alone) is no
Unicode text: msgspec refuses it, but in words that mislead ("Input data was truncated"
for a high half followed by anything but its low one). Both channels say what it is.

Both channels also refuse an object that gives a key twice (``server.json_keys``),
which msgspec would read as its last value.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.exceptions import ClientException, SerializationException

from server.json_keys import repeated_key
from server.json_numbers import not_utf8, number_out_of_range, out_of_range_at
from server.problems import InvalidRequest

TOO_DEEP = "the JSON nests too deeply to read"

T = TypeVar("T")


_ESCAPE = re.compile(rb"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)  # one escape: \\, \", \uXXXX...


def lone_surrogate(text: str | bytes) -> str | None:
    """Why a JSON document is not valid Unicode, if it is for a surrogate escape without
    its other half (a ``\\uD800``-``\\uDBFF`` not followed by a ``\\uDC00``-``\\uDFFF``,
    or the latter alone); None if every surrogate escape in it is paired."""
    raw = text.encode(errors="surrogatepass") if isinstance(text, str) else text
    pending: re.Match[bytes] | None = None  # a high half waiting for its low half
    for found in _ESCAPE.finditer(raw):
        escape = found[1]
        value = int(escape[1:], 16) if len(escape) == 5 else None
        if pending is not None:
            if value is not None and 0xDC00 <= value <= 0xDFFF and found.start() == pending.end():
                pending = None
                continue
            break
        if value is not None and 0xD800 <= value <= 0xDBFF:
            pending = found
        elif value is not None and 0xDC00 <= value <= 0xDFFF:
            pending = found
            break
    if pending is None:
        return None
    return (
        f"the JSON text is not valid Unicode: {pending[0].decode()} at byte {pending.start()}"
        " is half of a UTF-16 surrogate pair without its other half"
    )


class RepeatedKey(msgspec.ValidationError):
    """A socket message whose object gives a key twice: a 422 like any message of the
    wrong shape."""


def decode(text: str | bytes, type: type[T]) -> T:
    """``msgspec.json.decode``, with too deep a document a DecodeError like any bad JSON,
    a lone surrogate escape one that says so, and a key given twice a ``RepeatedKey``."""
    try:
        decoded = msgspec.json.decode(text, type=type)
    except RecursionError:
        raise msgspec.DecodeError(TOO_DEEP) from None
    except msgspec.ValidationError as exc:
        if "out of range" in str(exc) and (found := out_of_range_at(text)) is not None:
            raise msgspec.ValidationError(found) from None  # its field, as HTTP names it
        raise
    except msgspec.DecodeError as exc:
        why = lone_surrogate(text)
        if why is not None and not isinstance(exc, msgspec.ValidationError):
            raise msgspec.DecodeError(why) from None
        raise
    if (repeated := repeated_key(text)) is not None:
        raise RepeatedKey(repeated)
    return decoded


class DepthCheckedRequest(Request[Any, Any, Any]):
    """Litestar's request, whose JSON body too deep to decode is a 400, and one that
    gives a key twice a 422; a number out of range and bytes that are not UTF-8 are
    refused as a socket's message (``json_numbers``)."""

    async def json(self) -> Any:
        try:
            decoded = await super().json()
        except RecursionError:
            raise ClientException(TOO_DEEP) from None
        except SerializationException:
            body = await self.body()
            why = lone_surrogate(body) or not_utf8(body)
            if why is not None:
                raise ClientException(why) from None
            if (out_of_range := number_out_of_range(body)) is not None:
                raise InvalidRequest(out_of_range) from None
            raise
        if (repeated := repeated_key(await self.body())) is not None:
            raise InvalidRequest(repeated)
        return decoded
