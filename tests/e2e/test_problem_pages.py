"""Problem ``type`` URIs resolve on the live server (issue 23, item 7).

Each type the registry defines answers 200 with its explanation; the ``type`` of a
real refusal, resolved against the address that refused, is such a page; and the
OpenAPI document describes ``type`` as exactly these relative references.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urljoin

import httpx
import jsonschema
import pytest
from websockets.sync.client import ClientConnection, connect

from server.problem_types import PROBLEM_TYPES, ProblemType
from tests.e2e.test_page import site  # noqa: F401 (fixture)


def _text(page: str) -> str:
    """What a reader sees: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.mark.parametrize("problem", PROBLEM_TYPES.values(), ids=lambda p: p.slug)
def test_every_type_has_a_page_that_explains_it(
    site: str,  # noqa: F811
    problem: ProblemType,
) -> None:
    answer = httpx.get(site + problem.uri)
    assert answer.status_code == 200, problem.uri
    assert answer.headers["content-type"].startswith("text/html")
    seen = _text(answer.text)
    for text in (problem.title, problem.meaning, problem.sent_when, problem.client_should):
        assert text.replace("`", "") in seen, (problem.uri, text)
    assert f"Status{problem.status}" in seen
    assert f"<code>{problem.rule}</code>" in answer.text


def test_the_index_links_every_type(site: str) -> None:  # noqa: F811
    answer = httpx.get(f"{site}/problems/")
    assert answer.status_code == 200
    links = re.findall(r'href="(/problems/[^"]+)"', answer.text)
    assert links == [p.uri for p in PROBLEM_TYPES.values()]
    assert httpx.get(f"{site}/problems/no-such-problem").json()["rule"] == "not_found"


def _resolves(base: str, refused_url: str, problem: dict[str, Any]) -> str:
    """Dereference a problem's ``type`` as RFC 3986 does, against the URL that refused."""
    assert problem["type"].startswith("/problems/"), problem  # relative to the server
    page = httpx.get(urljoin(refused_url, problem["type"]))
    assert page.status_code == 200, problem
    assert page.url.host == httpx.URL(base).host  # the server itself explains it
    assert f"<code>{problem['rule']}</code>" in page.text
    return page.text


def test_a_real_refusals_type_resolves_on_the_server(site: str) -> None:  # noqa: F811
    url = f"{site}/v1/me"
    unauthorized = httpx.get(url)
    assert unauthorized.status_code == 401
    assert unauthorized.json()["rule"] == "unauthorized"
    _resolves(site, url, unauthorized.json())

    player = httpx.post(f"{site}/v1/players", json={"name": "Pat"}).json()
    auth = {"Authorization": f"Bearer {player['token']}"}
    start = httpx.post(
        f"{site}/v1/matches", headers=auth, json={"level": "easy", "seed": "problems"}
    ).json()
    url = f"{site}/v1/matches/{start['match_id']}/actions"
    card = start["view"]["hand"][0]
    refused = httpx.post(url, headers=auth, json={"action": {"type": "discard", "card": card}})
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["rule"] in {"wrong_phase", "not_your_turn"}, problem
    page = _resolves(site, url, problem)
    assert PROBLEM_TYPES[problem["rule"]].title in html.unescape(page)


def test_the_openapi_problem_schema_describes_these_types(site: str) -> None:  # noqa: F811
    document = httpx.get(f"{site}/schema/openapi.json").json()
    schema = document["components"]["schemas"]["Problem"]
    type_schema = schema["properties"]["type"]
    assert type_schema["format"] == "uri-reference"
    assert "/problems/" in schema["description"]
    for problem in PROBLEM_TYPES.values():
        body = {
            "type": problem.uri,
            "title": problem.title,
            "status": problem.status,
            "detail": "d",
            "rule": problem.rule,
        }
        jsonschema.validate(body, schema)
    with pytest.raises(jsonschema.ValidationError):  # the old absolute URIs no longer fit
        jsonschema.validate(
            {**body, "type": "https://ginrummy.dev/problems/" + problem.slug}, schema
        )
    live = httpx.get(f"{site}/v1/matches/x", headers={"Authorization": "Bearer nope"}).json()
    jsonschema.validate(live, schema)


def _when_sent(base: str, problem: dict[str, Any]) -> str:
    """The page's "When it is sent", as a reader sees it, for a problem really received."""
    page = httpx.get(base + problem["type"])
    assert page.status_code == 200, problem
    seen = _text(page.text)
    assert f"Status{problem['status']}" in seen, problem  # the page and the answer agree
    assert problem["title"] in seen, problem
    return seen.split("When it is sent", 1)[1].split("What a client should do", 1)[0]


def test_each_page_says_when_its_refusal_is_really_sent(site: str) -> None:  # noqa: F811
    """A refusal's page names the request that got it: JSON nested too deep is
    ``malformed_json`` (the ``payload_too_large`` page claimed it), and the ``claim``
    message of the sockets gets ``claim_against_house`` on a seat's ``live`` socket and
    ``spectators_cannot_act`` on a ``watch`` socket (the pages named only HTTP's claim
    and a spectator's ``action``)."""
    nested = '{"name":' + "[" * 3000 + "]" * 3000 + "}"
    refused = httpx.post(
        f"{site}/v1/players", content=nested, headers={"content-type": "application/json"}
    ).json()
    assert refused["rule"] == "malformed_json", refused
    assert "nests" in _when_sent(site, refused)
    too_large = PROBLEM_TYPES["payload_too_large"]
    assert "nest" not in too_large.sent_when + too_large.meaning

    player = httpx.post(f"{site}/v1/players", json={"name": "Claimant"}).json()
    auth = {"Authorization": f"Bearer {player['token']}"}
    start = httpx.post(f"{site}/v1/matches", headers=auth, json={"level": "easy"}).json()
    ws = site.replace("http://", "ws://") + f"/v1/matches/{start['match_id']}"
    claim = json.dumps({"type": "claim"})
    with connect(f"{ws}/live", additional_headers=auth) as seat:
        assert json.loads(seat.recv(timeout=10))["type"] == "snapshot"
        seat.send(claim)
        frame = _next_error(seat)
    assert frame["rule"] == "claim_against_house", frame
    assert "`claim` message" in PROBLEM_TYPES["claim_against_house"].sent_when
    assert "claim message on the live socket" in _when_sent(site, frame)
    with connect(f"{ws}/watch") as spectator:
        assert json.loads(spectator.recv(timeout=10))["type"] == "snapshot"
        spectator.send(claim)
        frame = _next_error(spectator)
    assert frame["rule"] == "spectators_cannot_act", frame
    assert "claim message on a watch socket" in _when_sent(site, frame)


def _next_error(socket: ClientConnection) -> dict[str, Any]:
    for _ in range(50):
        frame = json.loads(socket.recv(timeout=10))
        if frame["type"] == "error":
            return dict(frame["problem"])
    raise AssertionError("no error frame")
