"""HTTP's own promises over a real server: problems name the field, Allow, WWW-Authenticate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.harness import Player, ServerProcess, as_action
from tests.e2e.tables import join, open_table

OPENAPI = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


# The tests that need no server of their own share one (sqlite_site): each test makes
# players, matches and tables of its own and reads only those, or asks what no state changes
# (static files, problem pages, refusals).


async def test_a_validation_problem_names_the_field_it_refuses(sqlite_site: ServerProcess) -> None:
    """docs/rules.md: nonsense is refused "with a message naming the field"."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="fields")
    actions = f"/v1/matches/{match['match_id']}/actions"
    events = f"/v1/matches/{match['match_id']}/events"
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("POST", "/v1/matches", {"json": {"rules": {"gin_bonus": -1}}}, "rules.gin_bonus"),
        # a field the rule book's table of custom fields does not list (no custom name)
        ("POST", "/v1/matches", {"json": {"rules": {"name": "house"}}}, "rules"),
        ("POST", "/v1/matches", {"json": {"level": "easy", "seed": ""}}, "seed"),
        ("POST", "/v1/matches", {"json": {"level": "easy", "seed": "a\x00b"}}, "seed"),
        # lenient Litestar accepts "5"; the strict decode in the handler refuses it
        ("POST", "/v1/matches", {"json": {"rules": {"gin_bonus": "5"}}}, "rules.gin_bonus"),
        (
            "POST",
            actions,
            {"json": {"action": {"type": "lay_off", "card": "AS", "meld": "1"}}},
            "action.meld",
        ),
        ("POST", actions, {"json": {"action": {"type": "discard", "card": "1Z"}}}, "action.card"),
        ("GET", events, {"params": {"after": -1}}, "after"),
        ("GET", events, {"params": {"limit": 0}}, "limit"),
        ("GET", f"/v1/matches/{match['match_id']}/replay", {"params": {"at": 0}}, "at"),
        ("GET", "/v1/matches", {"params": {"status": "paused"}}, "status"),
        ("GET", "/v1/matches", {"params": {"status": "null"}}, "status"),  # no null is offered
        ("GET", f"/v1/matches/{match['match_id']}/replay", {"params": {"at": "null"}}, "at"),
        (
            "POST",
            actions,
            {"json": {"action": {"type": "draw_stock"}}, "headers": {"Idempotency-Key": "k" * 201}},
            "Idempotency-Key",
        ),
        (  # an empty key (a client's unset variable) would bind every later move to one key
            "POST",
            actions,
            {"json": {"action": {"type": "pass_up_card"}}, "headers": {"Idempotency-Key": ""}},
            "Idempotency-Key",
        ),
    ]
    for method, path, arguments, field in cases:
        response = await player.client.request(method, path, **arguments)
        assert response.status_code == 422, (field, response.text)
        problem = response.json()
        assert problem["rule"] == "invalid_request", problem
        assert problem["detail"].startswith(f"{field}: "), (field, problem["detail"])
    named = await player.client.post("/v1/matches", json={"rules": {"name": "house"}})
    assert "`name`" in named.json()["detail"]  # the unknown field is named
    after = (await player.client.get(f"/v1/matches/{match['match_id']}")).json()
    assert after["version"] == match["version"]  # nothing refused was played
    await player.close()


async def test_options_allows_every_method_each_documented_path_answers(
    sqlite_site: ServerProcess,
) -> None:
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="options")
    table = (await player.client.post("/v1/tables", json={})).json()
    ids = {
        "match_id": match["match_id"],
        "player_id": player.id,
        "table_id": table["table_id"],
        "challenge_id": table["table_id"],
    }
    paths = json.loads(OPENAPI.read_text())["paths"]
    assert "/v1/matches" in paths
    for template, operations in paths.items():
        path = template.format(**ids)
        response = await player.client.options(path)
        assert response.status_code == 204, (path, response.text)
        allowed = {method.strip() for method in response.headers["allow"].split(",")}
        methods = {m.upper() for m in operations}
        head = {"HEAD"} if "GET" in methods else set()
        assert allowed == methods | head | {"OPTIONS"}, template
    await player.close()


async def test_head_answers_as_get_would_without_the_body(sqlite_site: ServerProcess) -> None:
    """RFC 9110 §9.1: a general-purpose server supports HEAD wherever it supports GET.

    Uptime checks and load balancers probe ``/`` and ``/healthz`` with HEAD.
    """
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="head")
    paths = [
        "/",
        "/healthz",
        "/readyz",
        "/v1/matches",
        f"/v1/matches/{match['match_id']}",
        f"/v1/matches/{match['match_id']}/events",
        f"/v1/players/{player.id}",
        "/v1/matches/no-such-match",
        # the pages a problem's type names, the offline API docs and the rule book
        "/problems/",
        "/problems/stale-version",
        "/problems/no-such-problem",
        "/schema",
        "/schema/redoc.standalone.js",
        "/schema/redoc-licenses.txt",
        "/schema/openapi.json",
        "/schema/asyncapi.yaml",
        "/rules.md",
    ]
    for path in paths:
        got = await player.client.get(path)
        head = await player.client.head(path)
        assert head.status_code == got.status_code, (path, head.status_code, got.status_code)
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
        assert head.headers.get("content-length") == got.headers.get("content-length"), path
        assert head.headers.get("cache-control") == got.headers.get("cache-control"), path
        # One media type and each parameter once (a "charset" given twice is malformed).
        parameters = [p.split("=")[0].strip() for p in got.headers["content-type"].split(";")]
        assert len(parameters) == len(set(parameters)), (path, got.headers["content-type"])
    refused = await player.client.delete("/healthz")
    assert refused.status_code == 405
    assert {m.strip() for m in refused.headers["allow"].split(",")} == {"GET", "HEAD", "OPTIONS"}
    await player.close()


async def test_every_401_challenges_with_bearer(sqlite_site: ServerProcess) -> None:
    """RFC 9110 §11.6.1 requires the challenge; RFC 6750 §3 names an unknown token."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="challenge")
    anonymous = httpx.AsyncClient(base_url=sqlite_site.url, timeout=30)
    requests = [
        ("GET", "/v1/matches", None),
        ("POST", "/v1/matches", {"level": "easy"}),
        ("GET", f"/v1/matches/{match['match_id']}", None),
        ("POST", f"/v1/matches/{match['match_id']}/actions", {"action": {"type": "draw_stock"}}),
        ("GET", f"/v1/matches/{match['match_id']}/events", None),
        ("GET", f"/v1/matches/{match['match_id']}/replay", None),
        ("GET", "/v1/me", None),
    ]
    credentials = {
        None: "Bearer",
        "Basic dXNlcjpwYXNz": "Bearer",
        "Bearer": "Bearer",  # the scheme with no token
        "Bearer not-a-token": 'Bearer error="invalid_token"',
    }
    for method, path, body in requests:
        for authorization, challenge in credentials.items():
            headers = {"Authorization": authorization} if authorization is not None else {}
            response = await anonymous.request(method, path, json=body, headers=headers)
            assert response.status_code == 401, (method, path, authorization, response.text)
            assert response.json()["rule"] == "unauthorized"
            assert response.headers.get("www-authenticate") == challenge, (path, authorization)
    for operations in json.loads(OPENAPI.read_text())["paths"].values():
        for operation in operations.values():
            if "401" in operation["responses"]:
                assert "WWW-Authenticate" in operation["responses"]["401"]["headers"]
    stranger = await Player.create(sqlite_site.url, "stranger")
    forbidden = await stranger.client.get(f"/v1/matches/{match['match_id']}")
    assert forbidden.status_code == 403 and "www-authenticate" not in forbidden.headers
    await anonymous.aclose()
    await stranger.close()
    await player.close()


async def test_a_missing_token_is_said_before_a_bad_body(sqlite_site: ServerProcess) -> None:
    """Every operation that requires a token (the OpenAPI document's ``security``) refuses
    a request without one as 401, whatever its body: a client that forgot the token and
    sent a body with a mistake was told of the body (422), then of the token. With a
    valid token the same body is refused for itself, and nothing was done either way."""
    player = await Player.create(sqlite_site.url)
    anonymous = httpx.AsyncClient(base_url=sqlite_site.url, timeout=30)
    required = [
        (method.upper(), path.replace("{", "").replace("}", ""))  # a path parameter is its name
        for path, operations in json.loads(OPENAPI.read_text())["paths"].items()
        for method, operation in operations.items()
        if operation.get("security") == [{"bearer": []}] and "requestBody" in operation
    ]
    named = {
        ("POST", "/v1/matches/match_id/actions"),
        ("POST", "/v1/tables/table_id/join"),
        ("POST", "/v1/challenges"),
        ("PATCH", "/v1/players/player_id"),
    }
    assert named <= set(required), required  # the document is read, not empty
    for method, path in required:
        for body in (b'{"not json', b'{"unheard_of_field": 1}'):
            headers = {"content-type": "application/json"}
            response = await anonymous.request(method, path, content=body, headers=headers)
            assert response.status_code == 401, (method, path, body, response.text)
            assert response.json()["rule"] == "unauthorized"
    refused = await player.client.post(
        "/v1/matches", content=b'{"not json', headers={"content-type": "application/json"}
    )
    assert refused.status_code in (400, 422), refused.text  # signed in: the body's own fault
    assert (await player.client.get("/v1/matches")).json()["matches"] == []
    await anonymous.aclose()
    await player.close()


async def test_a_plain_get_of_the_socket_says_upgrade(sqlite_site: ServerProcess) -> None:
    """RFC 9110 §15.5.22: 426 and the protocol to switch to, not a 405 with no method."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="upgrade")
    response = await player.client.get(f"/v1/matches/{match['match_id']}/live")
    assert response.status_code == 426, response.text
    assert response.headers["upgrade"] == "websocket"
    assert response.json()["rule"] == "upgrade_required"
    refused = await player.client.delete(f"/v1/matches/{match['match_id']}/live")
    assert refused.status_code == 405
    assert {m.strip() for m in refused.headers["allow"].split(",")} == {"GET", "HEAD", "OPTIONS"}
    await player.close()


async def test_every_answer_tells_a_browser_how_to_treat_it(sqlite_site: ServerProcess) -> None:
    """nosniff, no referrer and no framing on every answer (a handler's, a static file's,
    a 404's); the page's own-origin content security policy on the page only (the
    problem pages and the API docs keep inline styles, and only the framing rule)."""
    async with httpx.AsyncClient(base_url=sqlite_site.url, timeout=10) as client:
        answers = {
            path: await client.get(path)
            for path in ("/", "/js/app.js", "/v1/chat/canned", "/nowhere", "/problems/rate-limited")
        }
        answers["HEAD /"] = await client.head("/")
    for path, answer in answers.items():
        assert answer.headers["x-content-type-options"] == "nosniff", path
        assert answer.headers["referrer-policy"] == "no-referrer", path
        assert answer.headers["x-frame-options"] == "DENY", path
    assert answers["/nowhere"].status_code == 404
    for page in ("/", "HEAD /"):
        policy = answers[page].headers["content-security-policy"]
        assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, policy
    problem_page = answers["/problems/rate-limited"]
    assert problem_page.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert answers["/v1/chat/canned"].status_code == 200
    for path in ("/js/app.js", "/v1/chat/canned", "/nowhere"):
        assert "content-security-policy" not in answers[path].headers, path


async def test_no_cache_may_store_an_answer_given_for_a_token(sqlite_site: ServerProcess) -> None:
    """Each seat reads its hand at the same URL (``GET /v1/matches/{id}``), told apart only
    by its token. HTTP forbids a shared cache to reuse an answer to a request with a token,
    but a reverse proxy's cache need not heed that (nginx's ``proxy_cache`` caches by URL
    alone and skips only answers marked ``private`` or ``no-store``): with micro-caching
    in front, one seat would have read the other's hand. Every answer to a request with
    a token says ``private, no-store``; a public one (the spectator's view) may be kept."""
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    table = await open_table(host)
    joined = await join(guest, table["table_id"])
    match_id = joined.json()["match"]["match_id"]
    view = await guest.client.get(f"/v1/matches/{match_id}")
    move = view.json()["view"]["legal"]
    mover = guest if move else host
    if not move:
        move = (await host.view(match_id))["view"]["legal"]
    answers = {
        "join": joined,
        "view": view,
        "head": await host.client.head(f"/v1/matches/{match_id}"),
        "events": await host.client.get(f"/v1/matches/{match_id}/events"),
        "action": await mover.act(match_id, as_action(move[0])),
        "claim": await host.client.get(f"/v1/matches/{match_id}/claim"),
        "me": await host.client.get("/v1/me"),
        "matches": await host.client.get("/v1/matches"),
        "refusal": await host.act(match_id, {"type": "discard", "card": "ZZ"}),
    }
    for name, answer in answers.items():
        assert answer.status_code < 500, (name, answer.text)
        directives = {d.strip() for d in answer.headers.get("cache-control", "").split(",")}
        assert {"private", "no-store"} <= directives, (name, answer.headers)
    async with httpx.AsyncClient(base_url=sqlite_site.url) as anonymous:
        public = await anonymous.get(f"/v1/matches/{match_id}/spectator")
    assert public.status_code == 200
    assert "no-store" not in public.headers.get("cache-control", "")
    await host.close()
    await guest.close()


async def test_a_path_that_names_nothing_is_said_so_in_one_sentence(
    sqlite_site: ServerProcess,
) -> None:
    """The router said "Not Found" and the static files "no file or directory match the
    path nothing/here was found" (found by QA); the server's own 404s keep their words."""
    async with httpx.AsyncClient(base_url=sqlite_site.url, timeout=10) as client:
        for path in ("/v1/nothing", "/nothing/here", "/v1/matches/some-id/nothing"):
            answer = await client.get(path)
            assert (answer.status_code, answer.json()["rule"]) == (404, "not_found"), path
            assert answer.json()["detail"] == (
                f"nothing is served at {path}; the API's paths are listed at /schema/openapi.json"
            )
        own = (await client.get("/problems/no-such-problem")).json()["detail"]
        assert own.startswith("no problem type 'no-such-problem'"), own
