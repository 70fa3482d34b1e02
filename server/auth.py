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


def bearer_token(authorization: str | None) -> str:
    """The token from an ``Authorization: Bearer`` header, or Unauthorized."""
    if not authorization:
        raise Unauthorized("send Authorization: Bearer <token> (from POST /v1/players)")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 200:
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    return token
