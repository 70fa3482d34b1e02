"""Headers that tell a browser how to treat every answer, the page's above all.

Every answer: ``nosniff`` (a JSON or text answer is never run as a script or a page),
no ``Referer`` sent from the page (an invite link's code stays in the fragment, but
nothing else leaks either), and no framing by another site (the page has Resign and
Sign out buttons a frame could trick a player into clicking). The page itself gets a
content security policy of its own origin only: its scripts, styles and sockets are
all served here, so an injected script or style would not run even if text ever
reached the DOM as markup. The problem pages (one inline stylesheet) and the API docs
(Redoc, which injects styles) keep only the framing rule.

Every answer to a request with a token is ``Cache-Control: private, no-store``: both
seats read their hands at one URL, told apart by the token alone, and a reverse proxy's
cache (nginx's ``proxy_cache`` keys by URL and skips only answers marked so) would
otherwise hand one seat's hand to the other, or to anyone. Public answers may be kept.

It wraps the app's ASGI handler, ahead of routing, so a 404 or a static file gets the
headers as a handler's answer does.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.types import HTTPScope, Message, Receive, Send

from server.http.asgi_wrapper import HttpWrapper

EVERY_ANSWER = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
PAGE_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    b"frame-ancestors 'none'"
)
NO_FRAMING = b"frame-ancestors 'none'"
FOR_ONE_CALLER = (b"cache-control", b"private, no-store")
OWN_STYLE_PATHS = ("/schema", "/problems")  # HTML with inline or injected styles


def add_security_headers(app: Litestar) -> None:
    app.asgi_handler = _SecurityHeaders(app.asgi_handler)


def policy_for(path: str, content_type: bytes) -> bytes | None:
    """The Content-Security-Policy of an HTML answer at ``path``; None for other media."""
    if not content_type.lower().startswith(b"text/html"):
        return None
    return NO_FRAMING if path.startswith(OWN_STYLE_PATHS) else PAGE_POLICY


class _SecurityHeaders(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:

        with_token = any(name.lower() == b"authorization" for name, _ in scope["headers"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                named = {name.lower() for name, _ in headers}
                headers += [(n, v) for n, v in EVERY_ANSWER if n not in named]
                if with_token:  # whatever the handler said: this answer is the caller's
                    headers = [(n, v) for n, v in headers if n.lower() != FOR_ONE_CALLER[0]]
                    headers.append(FOR_ONE_CALLER)
                content_type = next((v for n, v in headers if n.lower() == b"content-type"), b"")
                policy = policy_for(scope["path"], content_type)
                if policy is not None and b"content-security-policy" not in named:
                    headers.append((b"content-security-policy", policy))
                message = {**message, "headers": headers}
            await send(message)

        await self.next_app(scope, receive, send_with_headers)
