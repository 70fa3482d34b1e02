"""RFC 9457 problem details: the one place where every refusal becomes an HTTP answer.

Domain and infra errors carry a stable ``rule`` code; the problem ``type`` is a URI
built from it (``/problems/<slug>``, relative to the server, which explains it there;
server/problem_types.py holds each type's status, title and explanation), so clients
switch on ``type`` (or ``rule``) and never on wording.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import ParameterKwarg

from domain import errors as domain_errors
from domain.errors import shortened
from infra import errors as infra_errors
from server.problem_types import PROBLEM_TYPES, PROBLEMS_PATH
from server.repeated_failures import RepeatedFailures, skipped_note

PROBLEM_MEDIA_TYPE = "application/problem+json"

log = logging.getLogger("ginrummy.server")


class Problem(msgspec.Struct, frozen=True, omit_defaults=True):
    """An RFC 9457 problem; ``rule`` repeats the type's last segment as a plain code."""

    type: str
    title: str
    status: int
    detail: str
    rule: str
    instance: str | None = None

    def __post_init__(self) -> None:
        """A detail past ``DETAIL_LIMIT`` is cut (it may quote input), however the problem
        is built: through ``make_problem`` or not, for HTTP, a stream or a socket."""
        if len(self.detail) > DETAIL_LIMIT:
            msgspec.structs.force_setattr(self, "detail", self.detail[: DETAIL_LIMIT - 1] + "…")


class ServerError(Exception):
    """A refusal decided by the server layer itself (auth, lookup, limits)."""

    rule = "server_error"
    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers: dict[str, str] = {}  # sent with the problem over HTTP (Retry-After)


class Unauthorized(ServerError):
    """No bearer token, or one that matches no player."""

    rule = "unauthorized"
    status = 401


class InvalidRequest(ServerError):
    """A field or parameter the handler checks itself (a socket's ``?after=``, a player's
    name) is not valid; its detail begins with the field's name, as a schema refusal's does."""

    rule = "invalid_request"
    status = 422


class SignInCodeRefused(ServerError):
    """A sign-in code that is wrong, expired or spent: one answer for the three, so a
    guesser learns nothing. A 400, as OAuth answers a bad grant (RFC 6749 §5.2): the
    route exists (a 404 would read as a server without it), the code sent is no good."""

    rule = "invalid_sign_in_code"
    status = 400


class NotYourMatch(ServerError):
    """The token is valid but its player holds no seat in this match."""

    rule = "not_your_match"
    status = 403


class NotYou(ServerError):
    """The token is valid but names another player than the one the request changes."""

    rule = "not_you"
    status = 403


class MatchNotFound(ServerError):
    """No match with that id."""

    rule = "match_not_found"
    status = 404


class PlayerNotFound(ServerError):
    """No player with that id."""

    rule = "player_not_found"
    status = 404


class NotRatable(ServerError):
    """``rated: true`` asked of a match that cannot count (a chosen seed, custom rules)."""

    rule = "not_ratable"
    status = 422


class NotHouseSeats(ServerError):
    """A match to watch names a seat that is no house AI (``ai:<level>``) of a known level."""

    rule = "not_house_ai"
    status = 422


class StaleVersion(ServerError):
    """The client acted on an old version of the match; it should refresh and retry."""

    rule = "stale_version"
    status = 409


class MatchNotFinished(ServerError):
    """Complete replays are for finished matches only: the hands are still secret."""

    rule = "match_not_finished"
    status = 409


class VersionOutOfRange(ServerError):
    """A replay position beyond the match's last event."""

    rule = "version_out_of_range"
    status = 422


class IdempotencyKeyReused(ServerError):
    """An Idempotency-Key already used for a different request body."""

    rule = "idempotency_key_reused"
    status = 422


def problem_type(rule: str) -> str:
    """``/problems/<slug>``: relative to the server, which serves the page it names."""
    return PROBLEMS_PATH + rule.replace("_", "-")


DETAIL_LIMIT = 500  # characters: a detail that quotes a client's 5,000-character id stops here


def make_problem(rule: str, detail: str, status: int | None = None) -> Problem:
    """The problem for ``rule``; a detail past ``DETAIL_LIMIT`` is cut (``Problem`` cuts it)."""
    known = PROBLEM_TYPES.get(rule)  # every rule the server raises is there (a test checks)
    known_status, title = (
        (known.status, known.title)
        if known
        else (status or 422, rule.replace("_", " ").capitalize())
    )
    return Problem(
        type=problem_type(rule),
        title=title,
        status=status or known_status,
        detail=detail,
        rule=rule,
    )


def problem_for(exc: BaseException, request: Request[Any, Any, Any] | None = None) -> Problem:
    """The problem for any exception: domain, infra, server, Litestar or unexpected.

    ``request``, when there is one, lets a refused parameter be named as the client
    sent it (``Idempotency-Key``) rather than as the handler's argument.
    """
    if isinstance(exc, ServerError):
        return make_problem(exc.rule, exc.detail, exc.status)
    if isinstance(exc, domain_errors.DomainError):
        return make_problem(exc.rule, str(exc))  # 422 unless the rule says otherwise
    if isinstance(exc, infra_errors.InfraError):
        known = PROBLEM_TYPES.get(exc.rule)
        status = known.status if known else 500
        return make_problem(exc.rule, str(exc) or exc.rule, status)
    if isinstance(exc, ValidationException):
        return _validation_problem(exc, request)
    if isinstance(exc, msgspec.ValidationError):
        return make_problem("invalid_request", naming_the_field(str(exc)), 422)
    if isinstance(exc, msgspec.DecodeError):
        return make_problem("malformed_json", str(exc), 400)
    if isinstance(exc, HTTPException) and exc.status_code == 404 and _litestars_own(exc):
        # One sentence for every path that names nothing: the router said "Not Found", and
        # the static files "no file or directory match the path … was found".
        where = f" at {shortened(request.url.path)}" if request is not None else ""
        return make_problem(
            "not_found",
            f"nothing is served{where}; the API's paths are listed at /schema/openapi.json",
            404,
        )
    if isinstance(exc, HTTPException):
        rule = {
            400: _bad_request_rule(str(exc.detail)),
            401: "unauthorized",
            404: "not_found",
            405: "method_not_allowed",
            408: "request_timeout",
            413: "payload_too_large",
            415: "unsupported_media_type",
        }.get(exc.status_code, "invalid_request")
        return make_problem(rule, str(exc.detail), exc.status_code)
    return make_problem("internal_error", "unexpected server error", 500)


def _litestars_own(exc: HTTPException) -> bool:
    """A 404 Litestar raised itself (no route, no static file), not one of the server's."""
    detail = str(exc.detail)
    return detail == "Not Found" or detail.startswith("no file or directory match the path")


def _bad_request_rule(detail: str) -> str:
    lowered = detail.lower()
    if any(word in lowered for word in ("json", "truncated", "malformed", "decode")):
        return "malformed_json"
    return "bad_request"


def _validation_problem(
    exc: ValidationException, request: Request[Any, Any, Any] | None = None
) -> Problem:
    """Malformed JSON is a 400; well-formed JSON that breaks the schema is a 422.

    Each message is prefixed with the field Litestar reports it for (``extra``'s
    ``key``): msgspec's own words ("Expected `int` >= 0") name no field, and the
    rules page promises a refusal that does.
    """
    extra = exc.extra
    items = [item for item in extra if isinstance(item, Mapping)] if isinstance(extra, list) else []
    messages = [str(item.get("message", "")) for item in items]
    lowered = " ".join(messages).lower() or str(exc.detail).lower()
    named = [
        _named(_wire_name(request, str(item.get("key", ""))), quoting_at_most_64(message))
        for item, message in zip(items, messages, strict=True)
        if message
    ]
    text = "; ".join(named) or str(exc.detail)
    if "malformed" in lowered or "json is" in lowered or "invalid json" in lowered:
        return make_problem("malformed_json", text, 400)
    return make_problem("invalid_request", text, 422)


# msgspec ends a nested error with its JSON path: "Expected `int` >= 0 - at `$.rules.gin_bonus`".
_AT_PATH = re.compile(r"^(?P<message>.*) - at `\$\.?(?P<path>[^`]*)`$", re.DOTALL)
_BODY_ROOT = "data"  # Litestar's key for the body itself, when the whole body is wrong


def naming_the_field(message: str) -> str:
    """msgspec's message with its path moved to the front, as Litestar's keys are."""
    found = _AT_PATH.match(message)
    if found is None:
        return quoting_at_most_64(message)
    return _named(found["path"], quoting_at_most_64(found["message"]))


# The msgspec messages that quote what a client sent, whole: a key no field has, a value
# none of those allowed (a literal's, a tagged union's tag). 5,000 characters sent came
# back as 500 (Problem's cut), where every other detail quotes at most 64 (``shortened``).
_QUOTES_INPUT = re.compile(
    r"^(?P<lead>Object contains unknown field `|Invalid (?:enum )?value ')(?P<sent>.*)"
    r"(?P<end>[`'])$",
    re.DOTALL,
)


def quoting_at_most_64(message: str) -> str:
    """msgspec's ``message`` with what it quotes of the client's input ``shortened``."""
    found = _QUOTES_INPUT.match(message)
    if found is None:
        return message
    return f"{found['lead']}{shortened(found['sent'])}{found['end']}"


def _named(field: str, message: str) -> str:
    if not field or field == _BODY_ROOT:
        return message  # the whole document is wrong; there is no field to name
    return f"{field}: {message}"


def _wire_name(request: Request[Any, Any, Any] | None, key: str) -> str:
    """The parameter's name on the wire: ``Idempotency-Key``, not ``idempotency_key``."""
    if request is None or not key:
        return key
    try:
        parameter = request.route_handler.parsed_fn_signature.parameters.get(key)
    except (AttributeError, KeyError):  # no route matched: nothing declared to rename
        return key
    kwarg = getattr(parameter, "kwarg_definition", None)
    if isinstance(kwarg, ParameterKwarg) and kwarg.name:
        return kwarg.name
    return key


def problem_response(problem: Problem, headers: Mapping[str, str] | None = None) -> Response[bytes]:
    return Response(
        content=msgspec.json.encode(problem),
        status_code=problem.status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=dict(headers or {}),
    )


_failures = RepeatedFailures()


def report_failure(exc: Exception, problem: Problem, where: str) -> None:
    """Log a request's failure as its answer, ``problem``, calls for: an outage, a stuck
    step or a probe's "not yet" as a warning, one line a while (every request meets an
    outage at once); any other 5xx as a bug, with its traceback. ``where``: what failed
    (``GET /v1/...``, a socket's action), so HTTP and the sockets say an outage alike."""
    if isinstance(exc, infra_errors.StoreUnavailable):  # expected in an outage: no traceback
        if (skipped := _failures.due("store")) is not None:
            log.warning("database unavailable (503) on %s: %s%s", where, exc, skipped_note(skipped))
    elif isinstance(exc, infra_errors.LockWaitTimeout):  # a stuck step, said and counted
        if (skipped := _failures.due("busy")) is not None:
            log.warning("busy (503) on %s: %s%s", where, exc, skipped_note(skipped))
    elif isinstance(exc, infra_errors.ProjectionsBehind):  # a probe's answer, not a bug
        if (skipped := _failures.due("behind")) is not None:
            log.warning("not ready: %s%s", exc, skipped_note(skipped))
    elif problem.status >= 500:
        log.error("unhandled error on %s", where, exc_info=exc)


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    problem = problem_for(exc, request)
    report_failure(exc, problem, f"{request.method} {request.url.path}")
    headers = dict(exc.headers or {}) if isinstance(exc, HTTPException | ServerError) else {}
    retry_after = getattr(exc, "retry_after_s", None)  # a limit says when to come back
    if isinstance(retry_after, int):
        headers["Retry-After"] = str(retry_after)
    if problem.status == 401:
        headers.setdefault("WWW-Authenticate", bearer_challenge(request))
    return problem_response(problem, headers)  # keeps e.g. the Allow header of a 405


def bearer_challenge(request: Request[Any, Any, Any]) -> str:
    """The challenge a 401 must carry (RFC 9110 §11.6.1), in RFC 6750 §3's terms.

    A request that sent no bearer token learns only the scheme; one that sent a
    token which matches no player is told the token is invalid, so a client can tell
    "log in" from "your token is gone". HTTP only: a socket has no headers to answer.
    """
    scheme, _, token = request.headers.get("authorization", "").strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return 'Bearer error="invalid_token"'
    return "Bearer"


#: The 503 of a step that holds players' names while it checks them (server/names.py).
NAMES_HELD = {
    503: "Database unavailable (`store_unavailable`), or the players' names this step holds "
    "stayed held by another step for over 10 s (`busy`): retry after `Retry-After`"
}


# What 403, 404 and 409 mean on the lobby's routes (the defaults speak of matches).
TABLE_REFUSALS = {
    403: "Not yours to do (`not_the_host`, `not_invited`, `invite_code_required`, "
    "`opponent_refused`; see `type`)",
    404: "No such table or challenge, or one you are not at (`table_not_found`)",
    409: "The table's state refuses it (`table_full`, `table_started`, `table_cancelled`, "
    "`table_expired`, `challenge_declined`, `own_table`, `name_taken`, "
    "`concurrency_conflict`; see `type`)",
}
OPENING_REFUSALS = {
    404: "No player (or house AI level) with that id (`player_not_found`)",
    409: "One open too many (`too_many_open_tables`, `too_many_open_challenges`, "
    "`already_challenged`), or a player you block or yourself (`you_block_this_player`, "
    "`own_table`; see `type`)",
}


#: What a 400 may be on any route, whatever else a route means by it: a body that is not
#: JSON, or a request Litestar cannot read. A route's own 400 is added to these, never put
#: in their place: the redeem route's named only ``invalid_sign_in_code`` though malformed
#: JSON is a 400 there too, and a description that names codes names every one sent.
ANY_ROUTES_400 = (
    "Malformed JSON (`malformed_json`) or a request the server cannot read (`bad_request`)"
)


def problem_responses(
    *statuses: int, described_as: Mapping[int, str] | None = None
) -> dict[int, ResponseSpec]:
    """OpenAPI declarations of the problems a route may answer with.

    ``described_as`` replaces a status's usual description where the route means
    something else by it; for a 400 it adds to what any route's 400 may be
    (``ANY_ROUTES_400``).
    """
    own = dict(described_as or {})
    if 400 in own:
        own[400] = f"{ANY_ROUTES_400}, or {own[400]}"
    described = {
        400: ANY_ROUTES_400,
        401: "Missing or invalid bearer token",
        403: "The caller holds no seat in this match",
        404: "No such match or player",
        409: "Stale version, concurrent change, or match not finished",
        408: "The request body did not arrive within GINRUMMY_BODY_TIMEOUT_S",
        413: "Request body too large",
        415: "The body is labelled as something other than JSON, or in a charset other than "
        "UTF-8 (`unsupported_media_type`)",
        422: "Request (body or parameters) breaks the schema or a game rule (see `type`)",
        429: "Too many requests: wait the seconds `Retry-After` says",
        503: "Database unavailable",
        **own,
    }
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=described.get(status, "Problem"),
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
        )
        # A route that reads a body (413) may also find it too slow to arrive (408), or
        # labelled as something other than JSON (415).
        for status in sorted({400, 422, 503, *statuses, *((408, 415) if 413 in statuses else ())})
    }
