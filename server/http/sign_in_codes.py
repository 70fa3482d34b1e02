"""Using one player on another device: a one-time code made where the player is signed in,
redeemed where it is not (server/sign_in_codes.py says what a code is)."""

from __future__ import annotations

from typing import Any

from litestar import Request, post
from litestar.datastructures import CacheControlHeader, State
from litestar.params import JSONBody

from server.auth import bearer_token
from server.http.limits import rate_limited
from server.http.players import iso_ms
from server.problems import problem_responses
from server.schemas import RedeemSignInCodeRequest, SignInCodeIssued, TokenIssued, strict_body
from server.services import services_of


@post(
    "/v1/me/sign-in-codes",
    operation_id="createSignInCode",
    summary="A code to use your player on another device",
    tags=["players"],
    status_code=201,
    security=[{"bearer": []}],
    responses=problem_responses(401, 429),
    before_request=rate_limited("creates"),
)
async def create_sign_in_code(state: State, request: Request[Any, Any, Any]) -> SignInCodeIssued:
    """A one-time code that another device redeems (``POST /v1/sign-in-codes/redeem``)
        for a token of your player. It works once, for ``GINRUMMY_SIGN_IN_CODE_TTL_S`` (ten
        minutes), while the token that made it does: a new code replaces the one before, and
    rotating that token or signing out everywhere ends it."""
    services = services_of(state)
    code, expires_ms = await services.sign_in_code(
        bearer_token(request.headers.get("authorization"))
    )
    return SignInCodeIssued(code=code, expires_at=iso_ms(expires_ms) or "")


@post(
    "/v1/sign-in-codes/redeem",
    operation_id="redeemSignInCode",
    summary="Sign in with a code from another device",
    tags=["players"],
    status_code=201,
    responses=problem_responses(
        400,
        413,
        429,
        described_as={
            400: "a sign-in code that is wrong, expired or used already "
            "(`invalid_sign_in_code`, the same answer for the three)",
            429: "Too many redeems from this address: wait the seconds `Retry-After` says",
        },
    ),
    # No token: counted by client address, in a bucket of its own and a tight one, so
    # that guessing codes gets nowhere and costs nobody their creations.
    before_request=rate_limited("sign_ins", by_player=False),
    # A token in the answer to a request that sent none: kept by no cache (RFC 6749 §5.1).
    cache_control=CacheControlHeader(private=True, no_store=True),
)
async def redeem_sign_in_code(
    state: State, request: Request[Any, Any, Any], data: JSONBody[RedeemSignInCodeRequest]
) -> TokenIssued:
    """A new token for the player whose code this is, as ``POST /v1/me/tokens`` gives; the
    code is spent. A wrong, expired or spent code is a 400 ``invalid_sign_in_code`` and
    changes nothing. Check ``GET /v1/me`` with the token for the player's id and name."""
    data = await strict_body(request, RedeemSignInCodeRequest)
    token, expires_ms = await services_of(state).redeem_sign_in_code(data.code)
    return TokenIssued(token=token, token_expires_at=iso_ms(expires_ms))
