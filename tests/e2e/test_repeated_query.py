"""A query parameter (or an Idempotency-Key header) given twice is refused, over HTTP and
on every socket (QA).

``?after=1&after=4`` paged the log after 4 over HTTP (the last value) and replayed it
after 1 on the live socket (the first); ``?client_seed=`` twice chose a seat's part of
the deal by the last. Now either is a 422 ``invalid_request`` that names the parameter
(on a socket, its ``error`` frame and close 4422), and nothing is done.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, as_action, next_frame


def refused_for(problem: dict[str, Any], name: str) -> None:
    assert (problem["status"], problem["rule"]) == (422, "invalid_request"), problem
    assert problem["detail"].startswith(f"{name}: the query parameter is given twice"), problem


async def refused_socket(url: str) -> None:
    """The socket's one frame is the refusal naming ``after``/``watch_code``/``token``."""
    async with websockets.connect(url) as ws:
        frame = await next_frame(ws)
        assert frame["type"] == "error", frame
        name = url.rsplit("&", 1)[1].split("=")[0]
        refused_for(frame["problem"], name)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4422


async def test_a_query_parameter_given_twice_is_refused_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    ada = await Player.create(sqlite_site.url, "Ada Twice")
    bob = await Player.create(sqlite_site.url, "Bob Twice")
    match = await ada.new_match(seed="twice")
    events = f"/v1/matches/{match['match_id']}/events"
    assert (await ada.client.get(f"{events}?after=1")).status_code == 200  # once: read
    for query in ("after=1&after=4", "%61fter=1&after=4", "limit=1&after=0&limit=2"):
        answer = await ada.client.get(f"{events}?{query}")
        assert answer.status_code == 422, (query, answer.text)
        refused_for(answer.json(), "limit" if "limit" in query else "after")

    challenge = await ada.client.post("/v1/challenges", json={"to": bob.id})
    challenge_id = challenge.json()["table_id"]
    accept = f"/v1/challenges/{challenge_id}/accept?client_seed=mine&client_seed=theirs"
    refused = await bob.client.post(accept)
    assert refused.status_code == 422, refused.text
    refused_for(refused.json(), "client_seed")
    still = await bob.client.get("/v1/challenges")
    assert [c["status"] for c in still.json()["challenges"]] == ["open"], still.text

    base = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}"
    await refused_socket(f"{base}/live?token={ada.token}&after=1&after=4")
    await refused_socket(f"{base}/watch?watch_code=a&watch_code=b")
    await refused_socket(f"{sqlite_site.ws_url}/v1/me/live?token={ada.token}&token={ada.token}")
    await refused_socket(f"{sqlite_site.ws_url}/v1/tables/live?token={ada.token}&token=x")
    async with websockets.connect(f"{base}/live?token={ada.token}&after=1") as ws:
        replayed = json.loads(await ws.recv())  # given once, it is read
        assert (replayed["type"], replayed["version"]) == ("event", 2), replayed
    await ada.close()
    await bob.close()


async def test_an_idempotency_key_given_twice_is_refused_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    """Two ``Idempotency-Key`` headers were accepted silently (QA): the move was bound to
    one of them, which, a client cannot tell. Now a 422 ``invalid_request`` names the
    header, the same two keys or not, and nothing is done; one key is taken."""
    ada = await Player.create(sqlite_site.url, "Ada Keys")
    match = await ada.new_match(seed="two-keys")
    match_id, version = match["match_id"], match["version"]
    action = as_action(match["view"]["legal"][0])
    path = f"/v1/matches/{match_id}/actions"
    for keys in (("k1", "k2"), ("k1", "k1")):
        headers = [("Idempotency-Key", keys[0]), ("idempotency-key", keys[1])]
        answer = await ada.client.post(
            path, json={"action": action, "version": version}, headers=headers
        )
        assert answer.status_code == 422, answer.text
        problem = answer.json()
        assert problem["rule"] == "invalid_request", problem
        assert problem["detail"].startswith("Idempotency-Key: the header is given twice"), problem
        assert (await ada.view(match_id))["version"] == version  # nothing was done
    acted = await ada.act(match_id, action, version, key="k1")  # once: taken
    assert acted.status_code == 200, acted.text
    assert acted.json()["version"] > version
    await ada.close()
