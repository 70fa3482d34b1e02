"""Two house AIs playing each other on a real server, paced so people can watch: the
match plays to its end one decision at a time, a spectator's socket sees every event
in order and no hidden card, a kill -9 mid-match does not stop it, and a refused
request creates nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from domain.events import Discarded, Drew, Knocked, UpCardPassed, UpCardTaken
from domain.match import evolve
from domain.state import MatchState
from infra.store import open_store
from tests.e2e.conftest import server_for
from tests.e2e.harness import Player, ServerProcess, wait_for
from tests.e2e.secrecy import Recorder
from tests.e2e.test_openapi_conformance import Checker, frame_validators

PACED = {"GINRUMMY_AI_PACE_MS": "20", "GINRUMMY_CLOCK_SWEEP_S": "0.1"}
SHORT = {"preset": "classic", "target": 60}
TURN_DECISIONS = (UpCardTaken, UpCardPassed, Drew, Discarded, Knocked)


@pytest.fixture(scope="module")
def sqlite_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """This file's shared SQLite server, as conftest's but with no AI pace: a house match
    is played within its request. The refusals (which create nothing) and the unpaced
    match share it, each with players of its own: one start, not two."""
    with server_for("sqlite", tmp_path_factory.mktemp("house"), GINRUMMY_AI_PACE_MS="0") as site:
        yield site


async def complete_log(database_url: str, match_id: str) -> dict[int, MatchState]:
    """The state after each event, from the store itself: the host holds no seat."""
    store = await open_store(database_url, migrate=False)
    try:
        states: dict[int, MatchState] = {}
        state: MatchState | None = None
        for recorded in await store.read_stream(match_id):
            state = evolve(state, recorded.match_event)
            states[recorded.version] = state
        return states
    finally:
        await store.close()


async def watch(url: str, frames: list[dict[str, Any]], limit: float = 60) -> None:
    """A spectator's socket, every frame kept, until the match is over."""
    async with websockets.connect(url) as ws:
        async with asyncio.timeout(limit):
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] == "ping":  # a live client answers, or is closed as silent
                    await ws.send(json.dumps({"type": "pong"}))
                    continue
                frames.append(frame)
                if (frame.get("view") or {}).get("phase") == "match_over":
                    return


async def wait_finished(client: httpx.AsyncClient, match_id: str, limit: float) -> dict[str, Any]:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        watched = (await client.get(f"/v1/matches/{match_id}/spectator")).json()
        if watched["view"]["phase"] == "match_over":
            return watched
        await asyncio.sleep(0.1)
    raise AssertionError(f"match {match_id} did not finish in {limit} s")


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_two_house_ais_play_to_the_end_one_watched_move_at_a_time(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, **PACED).start()
    host = await Player.create(server.url, "Watcher")
    try:
        created = await host.client.post(
            "/v1/house-matches", json={"seats": ["ai:easy", "ai:medium"], "rules": SHORT}
        )
        assert created.status_code == 201, created.text
        Checker().check(created, "/v1/house-matches")
        body = created.json()
        match_id = body["match_id"]
        assert [seat["id"] for seat in body["seats"]] == ["ai:easy", "ai:medium"]
        assert body["view"]["phase"] != "match_over"  # paced: not played inside the request
        assert body["version"] <= 3

        frames: list[dict[str, Any]] = []
        await watch(f"{server.ws_url}/v1/matches/{match_id}/watch", frames)
        assert frames[0]["type"] == "snapshot"
        # Watched live, move by move: the socket opened on a match still being played, and
        # each later event came as a frame of its own, in order, to the last. How many is
        # the match's and the socket's timing (a gin in the first hand ends at version 8,
        # a few paced decisions after the answer), so none is counted.
        assert frames[0]["view"]["phase"] != "match_over", "the socket opened on its end"
        versions = [f["version"] for f in frames[1:] if f["type"] == "event"]
        assert versions == list(range(frames[0]["version"] + 1, versions[-1] + 1))
        states = await complete_log(database_url, match_id)
        assert versions[-1] == max(states)  # every event, in order, to the last
        assert states[versions[-1]].settlement is not None
        validators = frame_validators("watch", "receiveWatch")
        for frame in frames:
            errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
            assert not errors, (frame["type"], errors[:3])
        seen = Recorder()
        seen.add(body["version"], body["view"])  # the creator's answer is a spectator's view
        for frame in frames:
            seen.add(frame["version"], frame)
        assert seen.assert_no_leaks(states, seat=None) == len(frames) + 1

        # paced: the log's AI decisions are spread out, never a whole hand in one append
        store = await open_store(database_url, migrate=False)
        try:
            recorded = await store.read_stream(match_id)
        finally:
            await store.close()
        appends = {r.command_id for r in recorded if r.command_id}
        turns = [r.command_id for r in recorded if isinstance(r.match_event, TURN_DECISIONS)]
        assert len(turns) >= 2 and len(set(turns)) == len(turns)  # one decision per append
        span = (recorded[-1].recorded_at - recorded[0].recorded_at).total_seconds()
        assert span >= 0.02 * (len(appends) - 1)

        listed = (await host.client.get("/v1/matches")).json()["matches"]
        assert [(m["match_id"], m["watching"], m["status"]) for m in listed] == [
            (match_id, True, "finished")
        ]
        final = states[versions[-1]].settlement
        assert final is not None
        assert listed[0]["winner"] == final.winner
        assert listed[0]["scores"] == list(final.totals)
        mine = await host.client.get(f"/v1/matches/{match_id}")
        assert mine.status_code == 403  # the host watches; it holds no seat
        # ...but the match is the host's: once over, its whole log and replay are too
        log = await host.client.get(f"/v1/matches/{match_id}/events?limit=1000")
        assert log.status_code == 200, log.text
        Checker().check(log, "/v1/matches/{match_id}/events")
        assert log.json()["complete"] is True
        assert [e["version"] for e in log.json()["events"]] == sorted(states)
        dealt = [e["event"] for e in log.json()["events"] if e["event"]["type"] == "dealt"]
        assert dealt and all(d["deck"] for d in dealt)  # the stock's order, as players get it
        replay = await host.client.get(f"/v1/matches/{match_id}/replay")
        assert replay.status_code == 200, replay.text
        assert replay.json()["at"] == versions[-1]
    finally:
        await host.close()
        server.stop()


async def test_the_host_reads_a_running_house_matchs_log_as_a_spectator_and_nobody_else_does(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_AI_PACE_MS="3000").start()
    host = await Player.create(server.url, "Host")
    stranger = await Player.create(server.url, "Stranger")
    try:
        created = await host.client.post(
            "/v1/house-matches", json={"seats": ["ai:easy", "ai:medium"], "rules": SHORT}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        log = await host.client.get(f"/v1/matches/{match_id}/events")
        assert log.status_code == 200, log.text
        page = log.json()
        assert page["complete"] is False  # one AI decision every 3 s: the hand has begun
        events = [e["event"] for e in page["events"]]
        dealt = [e for e in events if e["type"] == "dealt"]
        assert dealt and all(d["deck"] is None and d["hand"] is None for d in dealt)
        assert events[0]["type"] == "match_started" and events[0]["seed"] is None
        drawn = [e for e in events if e["type"] == "drew" and e["source"] == "stock"]
        assert all(d["card"] is None for d in drawn)
        early = await host.client.get(f"/v1/matches/{match_id}/replay")
        assert early.status_code == 409 and early.json()["rule"] == "match_not_finished"
        for path in ("events", "replay"):
            refused = await stranger.client.get(f"/v1/matches/{match_id}/{path}")
            assert refused.status_code == 403, (path, refused.text)
    finally:
        await host.close()
        await stranger.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_house_match_finishes_after_a_kill_and_a_restart(
    database_url: str, tmp_path: Path
) -> None:
    slow = {**PACED, "GINRUMMY_AI_PACE_MS": "150"}
    first = ServerProcess(database_url, tmp_path, **slow).start()
    host = await Player.create(first.url, "Patient")
    # To 25, not 60: the kill comes at the first paced move, so the match need not last
    # long to be under way then; the rest is played after the restart, a hand or two.
    created = await host.client.post(
        "/v1/house-matches",
        json={"seats": ["ai:hard", "ai:hard"], "rules": {**SHORT, "target": 25}},
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    # under way: a paced decision made since the answer (not a fixed second's wait)
    before, deadline = created.json(), time.monotonic() + 30
    while before["version"] <= created.json()["version"]:
        assert time.monotonic() < deadline, "no paced move came"
        await asyncio.sleep(0.05)
        before = (await host.client.get(f"/v1/matches/{match_id}/spectator")).json()
    assert before["view"]["phase"] != "match_over"
    first.kill()  # kill -9 mid-match: its waker dies with it; the deadline row stays
    await host.close()
    second = ServerProcess(database_url, tmp_path, **PACED).start()
    reader = httpx.AsyncClient(base_url=second.url, timeout=30)
    try:
        finished = await wait_finished(reader, match_id, limit=60)
        assert finished["version"] > before["version"]
        states = await complete_log(database_url, match_id)
        settled = states[max(states)].settlement
        assert settled is not None
        # one id in both seats: the host's list still names the winning seat
        listed = await reader.get("/v1/matches", headers={"authorization": f"Bearer {host.token}"})
        summary = listed.json()["matches"][0]
        assert (summary["match_id"], summary["watching"]) == (match_id, True)
        assert (summary["winner"], summary["scores"]) == (settled.winner, list(settled.totals))
    finally:
        await reader.aclose()
        second.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_another_process_carries_on_a_house_match_when_its_own_dies(
    database_url: str, tmp_path: Path
) -> None:
    """Two processes share the database: one starts the match and plays it, the other
    fans it out to a spectator; kill the first and the second's sweeper plays the rest.
    The first is killed once the spectator has seen a move made live (it waited a fixed
    second at a pace of 100 ms, then the rest of the match went at that pace too)."""
    first = ServerProcess(database_url, tmp_path, **PACED).start()
    second = ServerProcess(database_url, tmp_path, **PACED).start()
    host = await Player.create(first.url, "Both")
    try:
        created = await host.client.post(
            "/v1/house-matches", json={"seats": ["ai:medium", "ai:easy"], "rules": SHORT}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        frames: list[dict[str, Any]] = []
        watching = asyncio.create_task(
            watch(f"{second.ws_url}/v1/matches/{match_id}/watch", frames)
        )
        await wait_for(lambda: watching.done() or any(f["type"] == "event" for f in frames), 30)
        assert not watching.done() and frames  # watched mid-match when its player dies
        first.kill()
        await asyncio.wait_for(watching, 60)
        versions = [f["version"] for f in frames[1:] if f["type"] == "event"]
        assert versions == list(range(frames[0]["version"] + 1, versions[-1] + 1))
        states = await complete_log(database_url, match_id)
        assert versions[-1] == max(states) and states[max(states)].settlement is not None
    finally:
        await host.close()
        first.stop()
        second.stop()


@pytest.mark.parametrize(
    ("body", "rule", "says"),
    [
        (
            {"seats": ["ai:easy", "ai:grandmaster"]},
            "not_house_ai",
            "no house AI level 'grandmaster'",
        ),
        ({"seats": ["PERSON", "ai:easy"]}, "not_house_ai", "is no house AI"),
        (
            {"seats": ["ai:easy", "ai:hard"], "level": "easy"},
            "invalid_request",
            "unknown field `level`",
        ),
        ({"seats": ["ai:easy"]}, "invalid_request", "seats: Expected `array` of length 2"),
    ],
)
async def test_a_refused_house_match_is_a_problem_and_creates_nothing(
    sqlite_site: ServerProcess, body: dict[str, Any], rule: str, says: str
) -> None:
    # One server for the four refusals: each asks with two new players, whose match
    # lists must stay empty.
    server = sqlite_site
    host = await Player.create(server.url, "Careful")
    person = await Player.create(server.url, "Person")
    try:
        body = {
            **body,
            "seats": [person.id if s == "PERSON" else s for s in body["seats"]],
        }
        refused = await host.client.post("/v1/house-matches", json=body)
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        problem = refused.json()
        assert problem["rule"] == rule and says in problem["detail"], problem
        Checker().check(refused, "/v1/house-matches")
        assert (await host.client.get("/v1/matches")).json()["matches"] == []
        assert (await person.client.get("/v1/matches")).json()["matches"] == []
    finally:
        await host.close()
        await person.close()


async def test_without_a_pace_a_house_match_is_played_within_its_request(
    sqlite_site: ServerProcess,
) -> None:
    server = sqlite_site  # no AI pace
    host = await Player.create(server.url, "Hasty")
    try:
        created = await host.client.post(
            "/v1/house-matches", json={"seats": ["ai:random", "ai:easy"], "rules": SHORT}
        )
        assert created.status_code == 201, created.text
        assert created.json()["view"]["phase"] == "match_over"
    finally:
        await host.close()
