"""``after``, the last version of a match a client has: refused in the same words
wherever it is given.

It was read three ways (QA): ``GET /v1/matches/{id}/events?after=`` answered a version
past the match's end, however large, with an empty page; a socket's ``?after=`` refused
more than 18 digits (4422) and replied to any other version past the end with a
snapshot; a ``resume`` past the end was a ``version_out_of_range``. A version past the
end is a client's mistake (a version it never saw: every version a client is told is in
the store every process reads, before it is told), so each is now refused alike:

- an ``after`` that is no 64-bit version (a version is a PostgreSQL ``BIGINT``) is a
  422 ``invalid_request``: "after: must be a version, a whole number from 0 to
  9223372036854775807; got …";
- an ``after`` past the match's last version is a 422 ``version_out_of_range``:
  "after: N is past the match's last version, M; ask for a version from 0 to M".

Over HTTP the answer is the problem; on a socket as it opens (``?after=``, an ``auth``
message's ``after``), an ``error`` frame and close 4422; a ``resume`` message, an
``error`` frame, the socket staying open as for any refused message.
"""

from __future__ import annotations

from domain.errors import quoted
from server.problems import InvalidRequest, VersionOutOfRange

#: The largest version: a 64-bit signed integer, as the store keeps versions.
MAX_VERSION = 2**63 - 1


def not_a_version(raw: str, name: str = "after") -> InvalidRequest:
    """The refusal of ``name`` given as ``raw``, which is no version."""
    return InvalidRequest(
        f"{name}: must be a version, a whole number from 0 to {MAX_VERSION}; got {quoted(raw)}"
    )


def parse_version(raw: str, name: str = "after") -> int:
    """``raw`` (a query parameter) as a version: ASCII digits only ("²" is a digit to
    str.isdigit, not to int), no larger than ``MAX_VERSION``."""
    digits = raw.lstrip("0") or "0"
    if raw.isascii() and raw.isdigit() and len(digits) <= len(str(MAX_VERSION)):
        version = int(digits)
        if version <= MAX_VERSION:
            return version
    raise not_a_version(raw, name)


def version_text(number: int) -> str:
    """``number`` in digits (an error quotes 64 of them), or how many it has: Python
    writes no int of over 4,300 digits, and a socket message may hold 16 KiB of them."""
    try:
        return str(number)
    except ValueError:
        return f"a number of about {int(number.bit_length() * 0.30103)} digits"


def check_after(after: int, latest: int) -> None:
    """Refuse ``after`` unless it is a version from 0 to ``latest``, the match's last."""
    if after > MAX_VERSION:
        raise not_a_version(version_text(after))
    if after > latest:
        raise VersionOutOfRange(
            f"after: {after} is past the match's last version, {latest}; "
            f"ask for a version from 0 to {latest}"
        )
