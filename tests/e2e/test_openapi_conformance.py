"""Real answers and socket frames, over whole matches, against the committed documents.

Schemathesis (test_schemathesis.py) fuzzes requests but rarely reaches deep into a
game; this test plays a match to its end and checks every answer on the way, success
and problem alike: a declared status, the declared content type, and a body that
validates with no undeclared property (``additionalProperties: false`` added
everywhere) and every required one present. A client generated from the document
can then trust both what it marks required and what it leaves out. The socket's
frames are checked the same way against openapi/asyncapi.yaml, whose payloads refer
to the OpenAPI schemas.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import websockets
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.e2e.harness import Player, ServerProcess, as_action

DOCUMENTS = Path(__file__).resolve().parents[2] / "openapi"
DOCUMENT = json.loads((DOCUMENTS / "openapi.json").read_text())
ASYNCAPI = yaml.safe_load((DOCUMENTS / "asyncapi.yaml").read_text())


def _closed(node: Any) -> Any:
    """The schema with every object schema closed to properties it does not declare."""
    if isinstance(node, dict):
        node = {key: _closed(value) for key, value in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [_closed(value) for value in node]
    return node


STRICT = _closed(copy.deepcopy(DOCUMENT))
# asyncapi.yaml's payloads refer to "openapi.json#/components/schemas/..."
REGISTRY = Registry().with_resource(
    "openapi.json", Resource.from_contents(STRICT, default_specification=DRAFT202012)
)


class Checker:
    def __init__(self) -> None:
        self.checked: dict[tuple[str, str, int], int] = {}

    def check(self, response: httpx.Response, template: str) -> None:
        method = response.request.method.lower()
        operation = DOCUMENT["paths"][template][method]
        status = response.status_code
        declared = operation["responses"]
        assert str(status) in declared, (method, template, status, response.text)
        content = declared[str(status)].get("content")
        if not content:
            assert not response.content, (method, template, status)
            return
        (media_type,) = content
        assert response.headers["content-type"].split(";")[0] == media_type, (template, status)
        schema = STRICT["paths"][template][method]["responses"][str(status)]["content"][media_type][
            "schema"
        ]
        validator = jsonschema.Draft202012Validator({**schema, "components": STRICT["components"]})
        errors = sorted(validator.iter_errors(response.json()), key=lambda e: list(e.path))
        assert not errors, (method, template, status, [e.message for e in errors[:5]])
        key = (method, template, status)
        self.checked[key] = self.checked.get(key, 0) + 1


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_answer_over_a_whole_match_conforms_strictly(server: ServerProcess) -> None:
    check = Checker().check
    checker = check.__self__  # type: ignore[attr-defined]
    anonymous = httpx.AsyncClient(base_url=server.url, timeout=30)
    check(await anonymous.get("/healthz"), "/healthz")
    check(await anonymous.get("/readyz"), "/readyz")
    created = await anonymous.post("/v1/players", json={"name": "conformance"})
    check(created, "/v1/players")
    check(await anonymous.get("/v1/matches"), "/v1/matches")  # 401
    check(await anonymous.post("/v1/players", content=b"{"), "/v1/players")  # 400
    player = await Player.create(server.url, "conformance")
    stranger = await Player.create(server.url, "stranger")
    me = f"/v1/players/{player.id}"
    check(await player.client.get(me), "/v1/players/{player_id}")
    check(await player.client.patch(me, json={"name": "renamed"}), "/v1/players/{player_id}")
    check(await stranger.client.patch(me, json={"name": "x"}), "/v1/players/{player_id}")  # 403
    rng = random.Random(7)
    for level in ("easy", "medium", "hard", "baseline"):
        response = await player.client.post(
            "/v1/matches",
            json={"level": level, "seed": f"conform-{level}", "rules": {"target": 25}},
        )
        check(response, "/v1/matches")
        match = response.json()
        match_id, version, view = match["match_id"], match["version"], match["view"]
        path = f"/v1/matches/{match_id}"
        check(await stranger.client.get(path), "/v1/matches/{match_id}")  # 403
        check(await player.client.get(f"{path}/replay"), "/v1/matches/{match_id}/replay")  # 409
        stale = await player.act(match_id, {"type": "draw_stock"}, version=version + 5)
        check(stale, "/v1/matches/{match_id}/actions")  # 409
        for step in range(3000):
            if view["phase"] == "match_over":
                break
            if step % 11 == 0:
                illegal = await player.act(match_id, {"type": "discard", "card": "ZZ"})
                check(illegal, "/v1/matches/{match_id}/actions")  # 422
                check(await player.client.get(path), "/v1/matches/{match_id}")
                events = await player.client.get(f"{path}/events", params={"after": version - 3})
                check(events, "/v1/matches/{match_id}/events")
            response = await player.act(match_id, as_action(rng.choice(view["legal"])), version)
            check(response, "/v1/matches/{match_id}/actions")
            body = response.json()
            version, view = body["version"], body["view"]
        assert view["phase"] == "match_over"
        check(await player.client.get(f"{path}/events"), "/v1/matches/{match_id}/events")
        for at in (1, version // 2, version):
            replay = await player.client.get(f"{path}/replay", params={"at": at})
            check(replay, "/v1/matches/{match_id}/replay")
    check(await player.client.get("/v1/matches"), "/v1/matches")
    check(await player.client.get(f"{me}/stats"), "/v1/players/{player_id}/stats")
    check(await player.client.get("/v1/matches/nope"), "/v1/matches/{match_id}")  # 404
    statuses = {status for _, _, status in checker.checked}
    assert {200, 201, 400, 401, 403, 404, 409, 422} <= statuses, statuses
    operations = {(m, t) for t, ops in DOCUMENT["paths"].items() for m in ops}
    assert {(m, t) for m, t, _ in checker.checked} == operations  # every one, at least once
    await anonymous.aclose()
    await player.close()
    await stranger.close()


def _frame_validators() -> dict[str, jsonschema.Draft202012Validator]:
    """One validator per server frame type, from the document's receive operation."""
    messages = ASYNCAPI["components"]["messages"]
    validators = {}
    for reference in ASYNCAPI["operations"]["receiveFeed"]["messages"]:
        name = reference["$ref"].rsplit("/", 1)[1]  # the channel's message name
        target = ASYNCAPI["channels"]["live"]["messages"][name]["$ref"].rsplit("/", 1)[1]
        payload = _closed(messages[target]["payload"])
        validators[payload["properties"]["type"]["const"]] = jsonschema.Draft202012Validator(
            payload, registry=REGISTRY
        )
    return validators


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_socket_frame_over_a_whole_match_conforms(server: ServerProcess) -> None:
    validators = _frame_validators()
    event_schema = {"$ref": "openapi.json#/components/schemas/VersionedEvent/properties/event"}
    events = jsonschema.Draft202012Validator(event_schema, registry=REGISTRY)
    seen: dict[str, int] = {}

    def check(frame: dict[str, Any]) -> None:
        validator = validators[frame["type"]]
        errors = [e.message for e in validator.iter_errors(frame)]
        if frame["type"] == "event":
            errors += [e.message for e in events.iter_errors(frame["event"])]
        assert not errors, (frame["type"], errors[:5], str(frame)[:300])
        seen[frame["type"]] = seen.get(frame["type"], 0) + 1

    player = await Player.create(server.url, "frames")
    match = await player.new_match(level="hard", seed="frames", rules={"target": 25})
    match_id, version = match["match_id"], match["version"]
    rng = random.Random(11)
    url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
    async with websockets.connect(url) as ws:

        async def frames_until(done: Any) -> dict[str, Any]:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
                check(frame)
                if done(frame):
                    return frame

        snapshot = await frames_until(lambda f: f["type"] == "snapshot")
        view = snapshot["view"]
        await ws.send(json.dumps({"type": "ping"}))
        await frames_until(lambda f: f["type"] == "pong")
        await ws.send(json.dumps({"type": "action", "action": {"type": "discard", "card": "ZZ"}}))
        await frames_until(lambda f: f["type"] == "error")
        while view["phase"] != "match_over":
            response = await player.act(match_id, as_action(rng.choice(view["legal"])), version)
            assert response.status_code == 200, response.text
            version = response.json()["version"]
            last = await frames_until(
                lambda f, v=version: f["type"] in ("event", "snapshot") and f["version"] == v
            )
            view = last["view"]
        # a resume within half the socket's queue replays events (a longer gap: a snapshot)
        await ws.send(json.dumps({"type": "resume", "after": version - 20}))
        await frames_until(lambda f, v=version: f["type"] == "event" and f["version"] == v)
    assert seen["event"] >= version - match["version"] + 20
    assert {"snapshot", "pong", "error"} <= set(seen)
    await player.close()
