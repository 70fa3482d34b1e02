"""Guest identity: random bearer tokens, stored only as their SHA-256.

A token has 256 bits of entropy, so a plain SHA-256 (not a slow password hash) is
enough to make a leaked table useless, and keeps every request's lookup cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from server.problems import Unauthorized

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def same_hash(a: str, b: str) -> bool:
    return hmac.compare_digest(a, b)


MAX_TOKEN_CHARS = 200  # far above any token the server makes


def bearer_token(authorization: str | None) -> str:
    """The token from an ``Authorization: Bearer`` header, or Unauthorized."""
    if not authorization:
        raise Unauthorized("send Authorization: Bearer <token> (from POST /v1/players)")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    if len(token) > MAX_TOKEN_CHARS:  # no token is this long: said so, not read
        raise Unauthorized("unknown or revoked token; create a player with POST /v1/players")
    return token
