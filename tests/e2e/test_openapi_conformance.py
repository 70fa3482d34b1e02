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
import re
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import websockets
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from server.problem_types import PROBLEM_TYPES
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
        for name, header in declared[str(status)].get("headers", {}).items():
            if header.get("required"):
                assert name.lower() in response.headers, (method, template, status, name)
        content = declared[str(status)].get("content")
        if not content:
            assert not response.content, (method, template, status)
            return
        (media_type,) = content
        sent = response.headers["content-type"].split(";")[0]
        assert sent == media_type.split(";")[0], (template, status)  # parameters aside
        schema = STRICT["paths"][template][method]["responses"][str(status)]["content"][media_type][
            "schema"
        ]
        validator = jsonschema.Draft202012Validator({**schema, "components": STRICT["components"]})
        body = response.text if sent.startswith("text/") else response.json()
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
        assert not errors, (method, template, status, [e.message for e in errors[:5]])
        # A description that names the rules of its status names every one sent with it.
        described = declared[str(status)]["description"]
        named = [rule for rule in re.findall(r"`([a-z_]+)`", described) if rule in PROBLEM_TYPES]
        if media_type == "application/problem+json" and named:
            rule = response.json()["rule"]
            assert rule in named, (method, template, status, rule, named)
        key = (method, template, status)
        self.checked[key] = self.checked.get(key, 0) + 1


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_answer_over_a_whole_match_conforms_strictly(server: ServerProcess) -> None:
    check = Checker().check
    checker = check.__self__  # type: ignore[attr-defined]
    anonymous = httpx.AsyncClient(base_url=server.url, timeout=30)
    check(await anonymous.get("/healthz"), "/healthz")
    check(await anonymous.get("/readyz"), "/readyz")
    check(await anonymous.get("/metrics"), "/metrics")
    created = await anonymous.post("/v1/players", json={"name": "conformance"})
    check(created, "/v1/players")
    check(await anonymous.get("/v1/matches"), "/v1/matches")  # 401
    malformed = await anonymous.post(
        "/v1/players", content=b"{", headers={"content-type": "application/json"}
    )
    check(malformed, "/v1/players")  # 400
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
        check(await player.client.post(f"{path}/claim"), "/v1/matches/{match_id}/claim")  # 422
        check(await stranger.client.post(f"{path}/claim"), "/v1/matches/{match_id}/claim")  # 403
        check(await player.client.get(f"{path}/claim"), "/v1/matches/{match_id}/claim")
        check(await stranger.client.get(f"{path}/claim"), "/v1/matches/{match_id}/claim")  # 403
        check(await player.client.get(f"{path}/events"), "/v1/matches/{match_id}/events")
        for at in (1, version // 2, version):
            replay = await player.client.get(f"{path}/replay", params={"at": at})
            check(replay, "/v1/matches/{match_id}/replay")
    watched = {"seats": ["ai:easy", "ai:hard"], "rules": {"target": 25}}
    check(await player.client.post("/v1/house-matches", json=watched), "/v1/house-matches")
    refused = {"seats": ["ai:easy", player.id]}
    check(await player.client.post("/v1/house-matches", json=refused), "/v1/house-matches")  # 422
    check(await anonymous.post("/v1/house-matches", json=watched), "/v1/house-matches")  # 401
    check(await player.client.get("/v1/matches"), "/v1/matches")
    check(await player.client.get(f"{me}/stats"), "/v1/players/{player_id}/stats")
    await check_ratings(check, player)
    check(await player.client.get("/v1/matches/nope"), "/v1/matches/{match_id}")  # 404
    await check_the_lobby(check, player, stranger)
    await check_challenges_and_the_player_stream(checker, player, stranger, anonymous)
    await check_the_chat(check, player, stranger, anonymous)
    await check_tokens(check, server.url)
    await check_blocks(check, server.url, anonymous)
    statuses = {status for _, _, status in checker.checked}
    assert {200, 201, 400, 401, 403, 404, 409, 422, 429} <= statuses, statuses
    operations = {(m, t) for t, ops in DOCUMENT["paths"].items() for m in ops}
    assert {(m, t) for m, t, _ in checker.checked} == operations  # every one, at least once
    await anonymous.aclose()
    await player.close()
    await stranger.close()


def frame_validators(
    channel: str = "live", operation: str = "receiveFeed"
) -> dict[str, jsonschema.Draft202012Validator]:
    """One validator per server frame type, from the document's receive operation."""
    messages = ASYNCAPI["components"]["messages"]
    validators = {}
    for reference in ASYNCAPI["operations"][operation]["messages"]:
        name = reference["$ref"].rsplit("/", 1)[1]  # the channel's message name
        target = ASYNCAPI["channels"][channel]["messages"][name]["$ref"].rsplit("/", 1)[1]
        payload = _closed(messages[target]["payload"])
        validators[payload["properties"]["type"]["const"]] = jsonschema.Draft202012Validator(
            payload, registry=REGISTRY
        )
    return validators


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_socket_frame_over_a_whole_match_conforms(server: ServerProcess) -> None:
    validators = frame_validators()
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
    assert {"snapshot", "seats", "pong", "error"} <= set(seen)
    await player.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_malformed_json_is_a_problem_each_route_declares(server: ServerProcess) -> None:
    """Every route that reads a body, sent one that is not JSON: its answer is declared,
    and where the route's description names the codes of that status, it names the one
    sent (QA: ``POST /v1/sign-in-codes/redeem``'s 400 named only ``invalid_sign_in_code``,
    though malformed JSON is a 400 there too)."""
    checker = Checker()
    player = await Player.create(server.url, "malformed")
    sent = {}
    try:
        for template, operations in DOCUMENT["paths"].items():
            for method, operation in operations.items():
                if "requestBody" not in operation:
                    continue
                path = re.sub(r"\{[a-z_]+\}", "x", template)
                answer = await player.client.request(
                    method, path, content=b'{"a": ', headers={"content-type": "application/json"}
                )
                checker.check(answer, template)
                sent[(method, template)] = (answer.status_code, answer.json().get("rule"))
    finally:
        await player.close()
    assert sent[("post", "/v1/sign-in-codes/redeem")] == (400, "malformed_json"), sent
    assert list(sent.values()).count((400, "malformed_json")) > 10, sent


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_watch_channel_lists_every_message_its_socket_answers(
    server: ServerProcess,
) -> None:
    """A spectator's socket answers every message a seat's takes (QA: asyncapi.yaml's
    ``watch`` channel listed neither ``action`` nor ``claim``, though each is answered
    there with an ``error`` frame): each is sent on a real ``watch`` socket, and its
    answer is a frame the channel declares, with the refusal the channel's description
    names."""
    from server.ws.live import FIELDS

    sent = {
        "ping": ({"type": "ping"}, "pong", None),
        "pong": ({"type": "pong"}, None, None),
        "auth": ({"type": "auth", "token": "x"}, "error", "invalid_request"),
        "resume": ({"type": "resume", "after": 0}, "snapshot", None),
        "action": (
            {"type": "action", "action": {"type": "resign"}},
            "error",
            "spectators_cannot_act",
        ),
        "chat": ({"type": "chat", "text": "hello"}, "error", "spectators_cannot_chat"),
        "claim": ({"type": "claim"}, "error", "spectators_cannot_act"),
    }
    # that the channel lists each: tests/e2e/test_docs.py
    assert set(sent) == set(FIELDS), "a message the socket takes is not tried here"
    description = ASYNCAPI["channels"]["watch"]["description"]
    validators = frame_validators("watch", "receiveWatch")
    player = await Player.create(server.url, "watched")
    match = await player.new_match(level="easy")
    url = f"{server.ws_url}/v1/matches/{match['match_id']}/watch"
    try:
        async with websockets.connect(url) as ws:

            async def next_checked() -> dict[str, Any]:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
                assert not errors, (frame["type"], errors[:5])
                return frame

            assert (await next_checked())["type"] == "snapshot"
            assert (await next_checked())["type"] == "seats"
            for kind, (message, answer, rule) in sent.items():
                await ws.send(json.dumps(message))
                if answer is None:
                    continue
                frame = await next_checked()
                if kind == "resume":  # the events after 0: the first one at least
                    assert frame["type"] in ("event", "snapshot"), frame
                    while frame["version"] < match["version"]:
                        frame = await next_checked()
                    continue
                assert frame["type"] == answer, (kind, frame)
                if rule is not None:
                    assert frame["problem"]["rule"] == rule, (kind, frame)
                    assert f"`{rule}`" in description, (kind, rule)
            await ws.send(json.dumps({"type": "ping"}))  # the socket stayed open throughout
            assert (await next_checked())["type"] == "pong"
    finally:
        await player.close()


async def check_the_lobby(check: Any, host: Player, guest: Player) -> None:
    """Every table operation, its answers and its refusals, then a resignation."""
    tables, table = "/v1/tables", "/v1/tables/{table_id}"
    opened = await host.client.post(tables, json={"rules": {"target": 25}, "private": True})
    check(opened, tables)
    private = opened.json()
    check(await host.client.post(tables, json={"rules": "nope"}), tables)  # 422
    check(await guest.client.get(tables), tables)
    check(await guest.client.get(tables, params={"rules": "classic"}), tables)
    path = f"/v1/tables/{private['table_id']}"
    check(await guest.client.get(path), table)  # 404: private
    check(await guest.client.get(path, params={"invite_code": private["invite_code"]}), table)
    check(await guest.client.post(f"{path}/join", json={}), table + "/join")  # 403
    check(await host.client.post(f"{path}/join", json={}), table + "/join")  # 409: own table
    check(await guest.client.post(f"{path}/cancel"), table + "/cancel")  # 403
    joined = await guest.client.post(f"{path}/join", json={"invite_code": private["invite_code"]})
    check(joined, table + "/join")
    check(await guest.client.post(f"{path}/join", json={}), table + "/join")  # 409: full
    check(await host.client.post(f"{path}/cancel"), table + "/cancel")  # 409: started
    check(await host.client.get(path), table)
    public = (await host.client.post(tables, json={})).json()
    check(await host.client.post(f"/v1/tables/{public['table_id']}/cancel"), table + "/cancel")
    match_id = joined.json()["match"]["match_id"]
    spectate = "/v1/matches/{match_id}/spectator"
    watched = f"/v1/matches/{match_id}/spectator"
    check(await guest.client.get(watched), spectate)  # 403: a private table's match
    check(await guest.client.get(watched, params={"watch_code": private["watch_code"]}), spectate)
    check(await guest.client.get("/v1/matches/nope/spectator"), spectate)  # 404
    watchable = "/v1/matches/watchable"
    listed = (await host.client.post(tables, json={})).json()
    in_play = await guest.client.post(f"/v1/tables/{listed['table_id']}/join", json={})
    check(await guest.client.get(watchable), watchable)  # the public match, not the private
    check(await guest.client.get(watchable, params={"player": host.id, "limit": 1}), watchable)
    check(await guest.client.get(watchable, params={"limit": 0}), watchable)  # 422
    over = await host.act(in_play.json()["match"]["match_id"], {"type": "resign"})
    check(over, "/v1/matches/{match_id}/actions")
    resigned = await host.act(match_id, {"type": "resign"})
    check(resigned, "/v1/matches/{match_id}/actions")
    assert resigned.json()["view"]["settlement"]["resigned"] == 0


async def check_tokens(check: Any, url: str) -> None:
    """Another token, a sign-in code redeemed (and refused), a rotation, and signing out
    everywhere, with a throwaway player."""
    owner = await Player.create(url, "tokens")
    try:
        issued = await owner.client.post("/v1/me/tokens")
        check(issued, "/v1/me/tokens")
        made = await owner.client.post("/v1/me/sign-in-codes")
        check(made, "/v1/me/sign-in-codes")
        async with httpx.AsyncClient(base_url=url, timeout=30) as other_device:
            check(await other_device.post("/v1/me/sign-in-codes"), "/v1/me/sign-in-codes")  # 401
            code = {"code": made.json()["code"]}
            redeem = "/v1/sign-in-codes/redeem"
            check(await other_device.post(redeem, json=code), redeem)  # 201
            check(await other_device.post(redeem, json=code), redeem)  # 400: spent
            check(await other_device.post(redeem, json={"code": ""}), redeem)  # 422
        rotated = await owner.client.post("/v1/me/tokens/rotate")
        check(rotated, "/v1/me/tokens/rotate")
        check(await owner.client.post("/v1/me/tokens/rotate"), "/v1/me/tokens/rotate")  # 401
        owner.client.headers["Authorization"] = f"Bearer {rotated.json()['token']}"
        check(await owner.client.delete("/v1/me/tokens"), "/v1/me/tokens")  # 204
        check(await owner.client.delete("/v1/me/tokens"), "/v1/me/tokens")  # 401
    finally:
        await owner.close()


async def check_blocks(check: Any, url: str, anonymous: httpx.AsyncClient) -> None:
    """Blocking, unblocking and the list, each refusal, and what a block refuses in the
    lobby, with throwaway players."""
    ada = await Player.create(url, "blocker")
    bob = await Player.create(url, "blocked")
    try:
        body = {"player_id": bob.id}
        check(await ada.client.post("/v1/me/blocks", json=body), "/v1/me/blocks")
        check(await ada.client.post("/v1/me/blocks", json=body), "/v1/me/blocks")  # again
        for refused in ({"player_id": ada.id}, {"player_id": "ai:easy"}, {"player_id": "x"}, {}):
            check(await ada.client.post("/v1/me/blocks", json=refused), "/v1/me/blocks")
        check(await anonymous.post("/v1/me/blocks", json=body), "/v1/me/blocks")  # 401
        check(await ada.client.get("/v1/me/blocks"), "/v1/me/blocks")
        check(await anonymous.get("/v1/me/blocks"), "/v1/me/blocks")  # 401
        refused_challenge = await bob.client.post("/v1/challenges", json={"to": ada.id})
        assert refused_challenge.status_code == 403, refused_challenge.text
        check(refused_challenge, "/v1/challenges")
        own_block = await ada.client.post("/v1/challenges", json={"to": bob.id})
        assert own_block.status_code == 409, own_block.text
        check(own_block, "/v1/challenges")
        table = (await ada.client.post("/v1/tables", json={})).json()
        refused_seat = await bob.client.post(f"/v1/tables/{table['table_id']}/join", json={})
        assert refused_seat.status_code == 403, refused_seat.text
        check(refused_seat, "/v1/tables/{table_id}/join")
        unblock = f"/v1/me/blocks/{bob.id}"
        check(await ada.client.delete(unblock), "/v1/me/blocks/{player_id}")  # 204
        check(await ada.client.delete(unblock), "/v1/me/blocks/{player_id}")  # 204 again
        check(await anonymous.delete(unblock), "/v1/me/blocks/{player_id}")  # 401
    finally:
        await ada.close()
        await bob.close()


async def check_challenges_and_the_player_stream(
    checker: Checker, host: Player, guest: Player, anonymous: httpx.AsyncClient
) -> None:
    """Every challenge and rematch operation, while the guest's player stream runs; each
    line of the stream is checked against asyncapi.yaml's ``player`` channel."""
    check = checker.check
    check(await host.client.get("/v1/me"), "/v1/me")
    check(await anonymous.get("/v1/me"), "/v1/me")  # 401
    found = await host.client.get("/v1/players", params={"name": "STRAN"})
    check(found, "/v1/players")
    assert [p["id"] for p in found.json()["players"]] == [guest.id]  # any case, by prefix
    check(await host.client.get("/v1/players", params={"name": ""}), "/v1/players")  # 422
    check(await anonymous.get("/v1/me/stream"), "/v1/me/stream")  # 401
    validators = frame_validators("player", "receivePlayer")
    frames: list[dict[str, Any]] = []

    async def read_stream() -> None:
        async with guest.client.stream("GET", "/v1/me/stream") as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("application/x-ndjson")
            checker.checked[("get", "/v1/me/stream", 200)] = 1
            async for line in stream.aiter_lines():
                if line:
                    frame = json.loads(line)
                    errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
                    assert not errors, (frame, errors[:3])
                    frames.append(frame)

    reading = asyncio.create_task(read_stream())
    challenges, one = "/v1/challenges", "/v1/challenges/{challenge_id}"
    check(await host.client.post(challenges, json={"to": "nobody"}), challenges)  # 404
    declined = (await host.client.post(challenges, json={"to": guest.id})).json()
    check(await host.client.get(challenges), challenges)
    check(await guest.client.post(f"{challenges}/{declined['table_id']}/decline"), one + "/decline")
    again = await guest.client.post(f"{challenges}/{declined['table_id']}/decline")
    check(again, one + "/decline")  # 409
    withdrawn = await host.client.post(challenges, json={"to": guest.id, "rules": "classic"})
    check(withdrawn, challenges)
    path = f"{challenges}/{withdrawn.json()['table_id']}"
    check(await host.client.post(f"{path}/cancel"), one + "/cancel")
    check(await host.client.post(f"{path}/cancel"), one + "/cancel")  # 409
    check(await guest.client.post(f"{path}/accept"), one + "/accept")  # 409: cancelled
    accepted = (await host.client.post(challenges, json={"to": guest.id})).json()
    joined = await guest.client.post(f"{challenges}/{accepted['table_id']}/accept")
    check(joined, one + "/accept")
    match_id = joined.json()["match"]["match_id"]
    rematch = "/v1/matches/{match_id}/rematch"
    check(await host.client.get(f"/v1/matches/{match_id}/rematch"), rematch)  # 404
    check(await host.client.post(f"/v1/matches/{match_id}/rematch"), rematch)  # 409: not over
    await host.act(match_id, {"type": "resign"})
    check(await host.client.post(f"/v1/matches/{match_id}/rematch"), rematch)  # the offer
    check(await guest.client.post(f"/v1/matches/{match_id}/rematch"), rematch)  # accepts it
    started = await host.client.get(f"/v1/matches/{match_id}/rematch")
    check(started, rematch)
    assert started.json()["status"] == "started"
    kinds = {"challenge", "challenge_closed", "match_started", "match_finished"}
    for _ in range(200):
        if kinds <= {f["type"] for f in frames}:
            break
        await asyncio.sleep(0.05)
    reading.cancel()
    assert kinds <= {f["type"] for f in frames}, [f["type"] for f in frames]


async def check_the_chat(
    check: Any, host: Player, guest: Player, anonymous: httpx.AsyncClient
) -> None:
    """Every chat operation, its answers and its refusals, the flood's 429 included."""
    table = (await host.client.post("/v1/tables", json={})).json()
    joined = await guest.client.post(f"/v1/tables/{table['table_id']}/join", json={})
    match_id = joined.json()["match"]["match_id"]
    chat, path = "/v1/matches/{match_id}/chat", f"/v1/matches/{match_id}/chat"
    check(await anonymous.get("/v1/chat/canned"), "/v1/chat/canned")
    for text in ("Good luck", "", "x" * 281, 5):
        check(await host.client.post(path, json={"text": text}), chat)  # 201, then 422s
    check(
        await host.client.post(path, content=b"{", headers={"content-type": "application/json"}),
        chat,
    )  # 400
    check(await anonymous.post(path, json={"text": "hi"}), chat)  # 401
    check(await host.client.post("/v1/matches/nope/chat", json={"text": "hi"}), chat)  # 404
    check(await guest.client.post(f"{path}/mute"), chat + "/mute")
    check(await anonymous.post(f"{path}/mute"), chat + "/mute")  # 401
    check(await guest.client.post(f"{path}/unmute"), chat + "/unmute")
    check(await host.client.post("/v1/matches/nope/chat/unmute"), chat + "/unmute")  # 404
    for reader in (host.client, guest.client, anonymous):
        check(await reader.get(path, params={"after": 0, "limit": 1}), chat)
    check(await anonymous.get("/v1/matches/nope/chat"), chat)  # 404
    outsider = await Player.create(str(host.client.base_url), "outsider")
    check(await outsider.client.post(path, json={"text": "hi"}), chat)  # 403
    check(await outsider.client.post(f"{path}/mute"), chat + "/mute")  # 403
    await outsider.close()
    for _ in range(6):  # the guest's sixth in ten seconds
        flood = await guest.client.post(path, json={"text": "again"})
    check(flood, chat)  # 429
    assert flood.status_code == 429 and int(flood.headers["retry-after"]) >= 1


async def check_ratings(check: Any, player: Player) -> None:
    """A rated match resigned at once, a rating with its history, the leaderboards."""
    rated = await player.client.post("/v1/matches", json={"level": "easy"})
    check(rated, "/v1/matches")
    resigned = await player.act(rated.json()["match_id"], {"type": "resign"})
    check(resigned, "/v1/matches/{match_id}/actions")
    refused = await player.client.post("/v1/matches", json={"seed": "chosen", "rated": True})
    check(refused, "/v1/matches")  # 422 not_ratable
    template = "/v1/players/{player_id}/rating"
    for who in (player.id, "ai:hard", "nobody"):  # the last a 404
        check(await player.client.get(f"/v1/players/{who}/rating"), template)
    for kind in ("person", "bot"):
        board = await player.client.get("/v1/leaderboard", params={"kind": kind, "limit": 5})
        check(board, "/v1/leaderboard")
    check(await player.client.get("/v1/leaderboard", params={"kind": "nope"}), "/v1/leaderboard")
    check(await player.client.get("/v1/bots/online"), "/v1/bots/online")
    check(await player.client.get("/v1/bots/online", params={"limit": 0}), "/v1/bots/online")
