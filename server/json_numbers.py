"""A body's number too large to read, or its bytes not UTF-8, refused as a socket refuses them.

Litestar first reads a body as untyped JSON, so msgspec's refusal of a number out of
range named no field ("Number out of range - at `$[...]`") and, like a body that is not
UTF-8, reached clients as a 400 ``bad_request``, where the same message on a match
socket (read typed at once) is a 422 ``invalid_request`` naming the field, or a 400
``malformed_json``. These find what the socket's reading says.
"""

from __future__ import annotations

import json
import math
from typing import Any

from domain.errors import shortened
from server.problems import naming_the_field


class _OutOfRange:
    def __init__(self, message: str) -> None:
        self.message = message


def _int(text: str) -> Any:
    try:
        return int(text)
    except ValueError:  # past the interpreter's digits for an int, as msgspec's
        return _OutOfRange("Integer value out of range")


def _float(text: str) -> Any:
    value = float(text)
    return _OutOfRange("Number out of range") if math.isinf(value) else value


def _first(value: Any, path: str) -> str | None:
    """msgspec's words for the first number out of range in ``value``, at its path. The
    path is made of the client's keys, so it is quoted as any input: 64 characters at
    most (msgspec's own paths name only the schema's fields)."""
    if isinstance(value, _OutOfRange):
        dot = "." if path.startswith(".") else ""
        return f"{value.message} - at `${dot}{shortened(path.removeprefix('.'))}`"
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found = _first(item, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found is not None:
            return found
    return None


def out_of_range_at(body: str | bytes) -> str | None:
    """msgspec's words for ``body``'s first number out of range, with its real path
    (msgspec says ``$.action[...]`` inside a tagged union, ``$[...]`` when untyped);
    None if it has none, or is no JSON to read."""
    try:
        document = json.loads(body, parse_int=_int, parse_float=_float)
    except (ValueError, RecursionError):
        return None
    return _first(document, "")


def number_out_of_range(body: bytes) -> str | None:
    """The refusal of ``body``'s first number out of range, naming its field (as
    ``version: Number out of range``); None if it has none."""
    found = out_of_range_at(body)
    return None if found is None else naming_the_field(found)


def not_utf8(body: bytes) -> str | None:
    """Why ``body`` is no JSON text, if its bytes are not UTF-8 (RFC 8259 §8.1)."""
    try:
        body.decode()
    except UnicodeDecodeError as exc:
        return f"the JSON text is not valid UTF-8: byte {exc.start} cannot begin or continue a character"
    return None
