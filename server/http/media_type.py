"""A body sent as something other than JSON is a 415, before anything reads it.

The JSON routes decode the body whatever its ``Content-Type`` said, so a page on another
site could have a browser send ``text/plain`` (a "simple" request, no CORS preflight)
and create players from its visitors' addresses, counting against their rate limits. A
body labelled as JSON (``application/json``, or a ``+json`` type) is read; any other
label is refused, and says what to send. So is a body with no label: it was read as
JSON, for scripts that set none, but curl labels every ``-d`` body (as a form, refused
already), the documented examples, the example bot and the project's page all label
theirs, and a page can post an unlabelled body (a ``Blob``) without a preflight too. A
request with no body at all (``Content-Length: 0``) is left to ``RefuseEmptyBody``,
which says it is empty.

A body sent with a ``Content-Encoding`` (``gzip``, say) was read as if it had none: a
plain body labelled ``gzip`` was taken, a gzipped one refused as malformed JSON. The
server decodes no content coding, so one other than ``identity`` is a 415 that says so
and names what it takes (``Accept-Encoding: identity``, RFC 9110 §12.5.3).

A body labelled as JSON in another charset (``application/json; charset=iso-8859-1``)
was read as UTF-8 all the same: its "é" (one byte, 0xE9) became a refusal as malformed,
or, in a byte sequence that happens to be UTF-8, other characters than the client sent.
JSON is UTF-8 (RFC 8259 §8.1), and the server decodes no other charset, so a body whose
label names one is a 415 that says only UTF-8 is read: at once for a charset that reads
ASCII otherwise (UTF-16, UTF-7) or that Python does not know, and as its first byte past
ASCII arrives for one that reads ASCII as ASCII (``iso-8859-1``, ``us-ascii``): an ASCII
body is the same text in UTF-8, and clients that label every body Latin-1 (older HTTP
libraries did) send those. ``charset=utf-8`` (in any case, quoted or not) and no charset
are read as before.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send


def is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


#: The charset labels that name UTF-8 (``utf8`` too, as the WHATWG Encoding Standard reads it).
UTF_8 = frozenset({"utf-8", "utf8"})


def charset_of(content_type: bytes) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` value, lower case and unquoted;
    None when it names none."""
    for parameter in content_type.split(b";")[1:]:
        name, _, value = parameter.partition(b"=")
        if name.strip().lower() == b"charset":
            return value.strip().strip(b'"').decode("latin-1").strip().lower()
    return None


def encoded_as(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The content codings a request's ``Content-Encoding`` headers name besides
    ``identity`` (which is no coding), comma-separated; empty when there are none."""
    named = (
        coding.strip().lower()
        for name, value in headers
        if name.lower() == b"content-encoding"
        for coding in value.decode("latin-1").split(",")
    )
    return ", ".join(coding for coding in named if coding and coding != "identity")


def sends_a_body(headers: dict[bytes, bytes]) -> bool:
    """Whether a request says it has a body: a ``Content-Length`` other than 0, or one
    sent in chunks (``Transfer-Encoding``)."""
    length = headers.get(b"content-length")
    return b"transfer-encoding" in headers or (length is not None and length.strip() != b"0")


class RequireJsonBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if "data" in scope["route_handler"].parsed_fn_signature.parameters:
            headers = dict(scope["headers"])
            if codings := encoded_as(scope["headers"]):
                raise HTTPException(
                    status_code=415,
                    detail=f"the body is sent with Content-Encoding {codings[:60]!r}, which "
                    "the server does not decode; send it unencoded (no Content-Encoding)",
                    headers={"Accept-Encoding": "identity"},
                )
            label = headers.get(b"content-type")
            if label is None and (b"origin" in headers or sends_a_body(headers)):
                raise HTTPException(
                    status_code=415,
                    detail="the body has no Content-Type; send JSON with Content-Type: "
                    "application/json",
                )
            if label is not None and not is_json(label):
                raise HTTPException(
                    status_code=415,
                    detail=f"the body is sent as {label.decode('latin-1')[:60]!r}; "
                    "send JSON with Content-Type: application/json",
                )
            charset = charset_of(label) if label is not None else None
            if charset is not None and charset not in UTF_8:
                if not ascii_compatible(charset):
                    raise not_utf_8(charset)
                # An ASCII body reads the same in UTF-8: only a byte past ASCII is refused.
                receive = ascii_only(receive, charset)
        await next_app(scope, receive, send)


def not_utf_8(charset: str) -> HTTPException:
    return HTTPException(
        status_code=415,
        detail=f"the body is labelled as charset {charset[:40]!r}; only UTF-8 is "
        "accepted (JSON is UTF-8, RFC 8259): send it as UTF-8, with "
        "charset=utf-8 or no charset",
    )


_ASCII = bytes(range(0x80))


@functools.lru_cache(maxsize=64)
def ascii_compatible(charset: str) -> bool:
    """Whether ``charset`` reads each ASCII byte as that ASCII character (``iso-8859-1``,
    ``us-ascii``, ``windows-1252``: a body in ASCII is then the same text in UTF-8);
    not UTF-16 or UTF-7, nor a charset Python does not know."""
    try:
        return _ASCII.decode(charset) == _ASCII.decode("ascii")
    except (LookupError, UnicodeDecodeError, ValueError):
        return False


def ascii_only(receive: Receive, charset: str) -> Receive:
    """``receive``, refusing (415) a body chunk with a byte past ASCII: in ``charset`` it
    would be another character than UTF-8 reads there."""

    async def checked() -> ReceiveMessage:
        message = await receive()
        body = message.get("body", b"") if message["type"] == "http.request" else b""
        if not body.isascii():
            raise not_utf_8(charset)
        return message

    return checked
