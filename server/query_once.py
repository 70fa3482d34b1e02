"""A query parameter given twice is ambiguous input, refused rather than guessed.

``?after=1&after=4`` was read as 4 over HTTP (the last value) and as 1 by the match
sockets (the first), so one URL meant two things to one server, and a proxy or a log in
between may read either; ``?client_seed=`` twice chose a seat's part of the deal by a
rule no document states. As a JSON key given twice (``json_keys``), it is a 422
``invalid_request`` that names it, over HTTP and on every socket (an ``error`` frame,
then close 4422). No parameter of the API takes a list, so no client needs a repeat.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from domain.errors import shortened
from server.problems import InvalidRequest


def repeated_parameter(query_string: bytes) -> str | None:
    """Why ``query_string`` is ambiguous, if it names a parameter twice (escaped or not:
    ``%61fter`` is ``after``, as the handlers read it); None otherwise."""
    if b"&" not in query_string:
        return None  # one parameter at most: most requests, which need no parsing
    seen: set[str] = set()
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    for name, _ in pairs:
        if name in seen and name:
            return f"{shortened(name)}: the query parameter is given twice; send it once"
        seen.add(name)
    return None


def refuse_repeated_parameters(query_string: bytes) -> None:
    """A socket's check, before it reads any parameter: InvalidRequest (4422) on a repeat."""
    if (why := repeated_parameter(query_string)) is not None:
        raise InvalidRequest(why)
