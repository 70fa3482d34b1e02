"""The benchmarks' lean HTTP client against a real server: the answers httpx gets, one
connection kept alive, a closed connection reopened, a dead server a transport error."""

from __future__ import annotations

import random

import httpx
import pytest

from benchmarks import bench_server as bench
from benchmarks.lean_client import LeanClient, LeanStatusError
from tests.e2e.harness import ServerProcess, free_port, timeless

# The tests that need no server of their own share one (sqlite_site): the client's tests
# seat players of their own or ask what no state changes (health, OPTIONS).


async def test_it_plays_a_match_as_httpx_sees_it(sqlite_site: ServerProcess) -> None:
    client = LeanClient(sqlite_site.url, timeout=30)
    try:
        headers, match = await bench.seated(client)
        first_socket = client._writer
        rng = random.Random(5)
        for _ in range(6):
            body = {"action": bench.pick(match["view"], rng), "version": match["version"]}
            answer = await client.post(
                f"/v1/matches/{match['match_id']}/actions", json=body, headers=headers
            )
            assert answer.status_code == 200, answer.text
            match = {"match_id": match["match_id"], **answer.json()}
            if match["view"]["phase"] == "match_over":
                break
        assert client._writer is first_socket, "every request went over one connection"
        async with httpx.AsyncClient(base_url=sqlite_site.url) as reference:
            seen = await reference.get(f"/v1/matches/{match['match_id']}", headers=headers)
        mine = await client.get(f"/v1/matches/{match['match_id']}", headers=headers)
        assert mine.status_code == 200 and timeless(mine.json()) == timeless(seen.json())
        missing = await client.get("/v1/matches/no-such-match", headers=headers)
        assert missing.status_code == 404
        assert missing.json()["type"].startswith("/problems/")
        with pytest.raises(httpx.HTTPError) as raised:  # as httpx: a status, not a transport
            missing.raise_for_status()
        assert isinstance(raised.value, LeanStatusError)
        assert not isinstance(raised.value, httpx.TransportError)
    finally:
        await client.aclose()


async def test_a_connection_the_server_closed_is_reopened(sqlite_site: ServerProcess) -> None:
    client = LeanClient(sqlite_site.url, timeout=30)
    try:
        closing = await client.get("/healthz", headers={"Connection": "close"})
        assert closing.status_code == 200
        assert client._writer is None, "the server said it closes: so did the client"
        assert (await client.get("/healthz")).status_code == 200
        assert client._writer is not None
    finally:
        await client.aclose()


async def test_no_server_is_a_transport_error_as_in_httpx() -> None:
    client = LeanClient(f"http://127.0.0.1:{free_port()}", timeout=5)
    with pytest.raises(httpx.TransportError):
        await client.get("/healthz")


async def test_answers_without_a_body_end_at_their_head(sqlite_site: ServerProcess) -> None:
    """A HEAD answer carries the GET's Content-Length but no body, and a 204 none at
    all: the client must not wait for one (it did, until its timeout)."""
    client = LeanClient(sqlite_site.url, timeout=5)
    try:
        head = await client.request("HEAD", "/healthz")
        assert head.status_code == 200 and head.content == b""
        allowed = await client.request("OPTIONS", "/v1/me")
        assert allowed.status_code == 204 and allowed.content == b""
        after = await client.get("/healthz")
        assert after.status_code == 200 and after.json() == {"status": "ok"}
    finally:
        await client.aclose()
