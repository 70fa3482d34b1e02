"""A body sent as something other than JSON is a 415, before anything reads it.

The JSON routes decode the body whatever its ``Content-Type`` said, so a page on another
site could have a browser send ``text/plain`` (a "simple" request, no CORS preflight)
and create players from its visitors' addresses, counting against their rate limits. A
body labelled as JSON (``application/json``, or a ``+json`` type) is read; any other
label is refused, and says what to send. One with no label is read too, as before
(``curl --data-binary`` without ``-H``, scripts that set none), unless a browser sent it:
a page can post an unlabelled body (a ``Blob``) without a preflight as well, and a
browser names the page's ``Origin`` on every POST, which such clients never send (the
project's own page labels its bodies).
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send


def is_json(content_type: bytes) -> bool:
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (
        media.startswith(b"application/") and media.endswith(b"+json")
    )


class RequireJsonBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if "data" in scope["route_handler"].parsed_fn_signature.parameters:
            headers = dict(scope["headers"])
            label = headers.get(b"content-type")
            if label is None and b"origin" in headers:
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
        await next_app(scope, receive, send)
