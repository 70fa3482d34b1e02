"""The API's promises over a real server: resume, idempotency, versions, bad input."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from domain.melds import arrange
from infra.migrate import upgrade
from tests.e2e.harness import (
    GINRUMMY,
    Player,
    ServerProcess,
    as_action,
    chunked,
    fail_every_append,
    opened,
    play_out,
    timeless,
)

# The tests that leave the server's database and log alone share one (sqlite_site, or
# each_backend_site for those run on both): each makes its own players and matches and reads
# only those; the no-traceback check then covers the whole server's log.


async def step(player: Player, match_id: str, view: dict[str, Any]) -> dict[str, Any]:
    """Play the first legal action; returns the answer."""
    response = await player.act(match_id, as_action(view["legal"][0]))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def frames_until(ws: Any, version: int) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == "ping":
            continue
        frames.append(frame)
        if frame["version"] >= version:
            return frames


def live_url(server: ServerProcess, match_id: str) -> str:
    return f"{server.ws_url}/v1/matches/{match_id}/live"


async def test_a_reconnecting_client_gets_exactly_what_it_missed(
    each_backend_site: ServerProcess,
) -> None:
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="resume")
    match_id = match["match_id"]
    async with websockets.connect(live_url(each_backend_site, match_id)) as ws:
        await ws.send(json.dumps({"type": "auth", "token": player.token}))
        snapshot = await opened(ws)
        assert snapshot["type"] == "snapshot" and snapshot["version"] == match["version"]
        body = await step(player, match_id, snapshot["view"])
        seen = await frames_until(ws, body["version"])
        assert [f["version"] for f in seen] == [e["version"] for e in body["events"]]
        last_seen = seen[-1]["version"]
    view = body["view"]
    for _ in range(4):  # moves made while the client is away
        if not view["legal"]:
            break
        body = await step(player, match_id, view)
        view = body["view"]
    async with websockets.connect(
        live_url(each_backend_site, match_id) + f"?token={player.token}"
    ) as ws:
        snapshot = await opened(ws)
        assert snapshot["version"] == body["version"]
        await ws.send(json.dumps({"type": "resume", "after": last_seen}))
        missed = await frames_until(ws, body["version"])
    log = (await player.events(match_id))["events"]
    expected = [e for e in log if e["version"] > last_seen]
    assert [f["version"] for f in missed] == [e["version"] for e in expected]
    assert [f["event"] for f in missed] == [e["event"] for e in expected]
    assert missed[-1]["view"] == (await player.view(match_id))["view"]
    await player.close()


async def test_reconnecting_with_after_while_the_match_moves_sends_each_version_once(
    each_backend_site: ServerProcess,
) -> None:
    """A resume message after the snapshot raced the live events (the soak audit saw
    94..100 then 91..97 in 34 of 40 tries); ``after`` given when connecting cannot."""
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="moving", rules={"preset": "classic", "target": 10000})
    match_id = match["match_id"]
    moving = True

    async def keep_moving() -> None:
        view = match["view"]
        while moving:
            view = (await step(player, match_id, view))["view"]
            await asyncio.sleep(0.02)

    mover = asyncio.create_task(keep_moving())
    try:
        last_seen = match["version"]
        for attempt in range(12):
            await asyncio.sleep(0.05)  # the match moves on while the client is away
            if attempt % 2:
                url, auth = (
                    live_url(each_backend_site, match_id)
                    + f"?token={player.token}&after={last_seen}",
                    None,
                )
            else:
                url, auth = (
                    live_url(each_backend_site, match_id),
                    {"type": "auth", "token": player.token, "after": last_seen},
                )
            async with websockets.connect(url) as ws:
                if auth:
                    await ws.send(json.dumps(auth))
                versions: list[int] = []
                seats: list[int] = []  # once, after the replay, at the version it reached
                reading = asyncio.get_running_loop().time() + 0.3  # longer than it was away
                # ...and until the seats frame has come: it follows the replay, after a read
                # of the seats' names, which a loaded machine's SQLite can hold past 0.3 s.
                while not versions or not seats or asyncio.get_running_loop().time() < reading:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == "seats":
                        seats.append(frame["version"])
                        assert frame["version"] == (versions or [last_seen])[-1], frame
                    elif frame["type"] != "ping":
                        assert frame["type"] == "event", frame
                        versions.append(frame["version"])
                assert len(seats) == 1, seats
            assert versions == list(range(last_seen + 1, last_seen + 1 + len(versions)))
            last_seen = versions[-1]
    finally:
        moving = False
        await mover
    before = (await player.view(match_id))["version"]
    for name, odd in [("after", v) for v in ("%C2%B2", "9" * 5000, "-1", "x", "")] + [
        ("chat_after", "-1")
    ]:  # "²" passes str.isdigit, not int; as HTTP's /events?after=-1, each is a 422
        url = live_url(each_backend_site, match_id) + f"?token={player.token}&{name}={odd}"
        async with websockets.connect(url) as ws:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert frame["type"] == "error", (name, odd, frame)
            assert frame["problem"]["rule"] == "invalid_request", frame
            assert frame["problem"]["detail"].startswith(f"{name}: "), frame
            assert len(frame["problem"]["detail"]) < 200  # junk is not echoed in full
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4422
    async with websockets.connect(
        live_url(each_backend_site, match_id)
    ) as ws:  # in the auth message
        await ws.send(json.dumps({"type": "auth", "token": player.token, "after": -1}))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "error" and frame["problem"]["rule"] == "invalid_request", frame
    url = live_url(each_backend_site, match_id) + f"?token={player.token}"
    async with websockets.connect(url) as ws:  # and in a resume, as in ?after=
        assert (await opened(ws))["type"] == "snapshot"
        await ws.send(json.dumps({"type": "resume", "after": -1}))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "error" and frame["problem"]["rule"] == "invalid_request", frame
    assert (await player.view(match_id))["version"] == before  # nothing played or changed
    await player.close()


async def test_resuming_from_the_start_replays_the_whole_log(
    each_backend_site: ServerProcess,
) -> None:
    """Version 1 (match_started) comes before any deal: its frame has no view yet."""
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="from-zero")
    match_id = match["match_id"]
    async with websockets.connect(
        live_url(each_backend_site, match_id) + f"?token={player.token}"
    ) as ws:
        snapshot = await opened(ws)
        await ws.send(json.dumps({"type": "resume", "after": 0}))
        frames = await frames_until(ws, snapshot["version"])
    log = (await player.events(match_id))["events"]
    assert [f["version"] for f in frames] == [e["version"] for e in log]
    assert [f["event"] for f in frames] == [e["event"] for e in log]
    assert frames[0]["event"]["type"] == "match_started" and frames[0]["view"] is None
    assert frames[1]["event"]["type"] == "dealt"
    assert sorted(frames[1]["event"]["hand"]) == sorted(frames[1]["view"]["hand"])
    assert frames[-1]["view"] == snapshot["view"]
    await player.close()


async def test_a_retried_action_returns_the_first_answer_and_appends_nothing(
    each_backend_site: ServerProcess,
) -> None:
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="idem")
    match_id = match["match_id"]
    action = as_action(match["view"]["legal"][0])
    first = await player.act(match_id, action, version=match["version"], key="k-1")
    assert first.status_code == 200, first.text
    version_after = (await player.view(match_id))["version"]
    again = await player.act(match_id, action, version=match["version"], key="k-1")
    assert again.status_code == 200, again.text
    assert timeless(again.json()) == timeless(first.json())
    assert (await player.view(match_id))["version"] == version_after
    other = await player.act(match_id, {"type": "draw_stock"}, key="k-1")
    assert other.status_code == 422
    assert other.json()["type"] == "/problems/idempotency-key-reused"
    assert (await player.view(match_id))["version"] == version_after
    await player.close()


async def test_a_stale_version_is_a_409_and_changes_nothing(
    each_backend_site: ServerProcess,
) -> None:
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="stale")
    match_id = match["match_id"]
    body = await step(player, match_id, match["view"])
    before = await player.view(match_id)
    legal = as_action(body["view"]["legal"][0])
    response = await player.act(match_id, legal, version=match["version"])
    assert response.status_code == 409
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["rule"] == "stale_version"
    assert timeless(await player.view(match_id)) == timeless(before)
    await player.close()


async def test_bad_input_is_a_clear_4xx_and_leaves_the_match_alone(
    sqlite_site: ServerProcess,
) -> None:
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="bad")
    match_id = match["match_id"]
    before = await player.view(match_id)
    url = f"/v1/matches/{match_id}/actions"
    client = player.client
    cases: list[tuple[Any, int, str]] = [
        (
            client.post(url, content=b'{"action": {', headers={"content-type": "application/json"}),
            400,
            "malformed-json",
        ),
        (client.post(url, json={"action": {"type": "fly"}}), 422, "invalid-request"),
        (
            client.post(url, json={"action": {"type": "discard", "card": "1Z"}}),
            422,
            "invalid-request",
        ),
        (
            client.post(url, json={"action": {"type": "discard", "card": "AS"}, "x": 1}),
            422,
            "invalid-request",
        ),
        (client.post(url, json={"action": {"type": "knock", "card": "AS"}}), 422, None),
        (client.post(url, content=b"[" * 20000), 413, "payload-too-large"),
        # a route that takes no body is no way around the limit
        (client.post("/v1/me/tokens", content=b"[" * 20000), 413, "payload-too-large"),
        (client.post(f"/v1/matches/{match_id}/rematch", content=b"[" * 20000), 413, None),
        (  # sent without a Content-Length (chunked): read, and refused past the limit
            client.post("/v1/me/tokens", content=chunked(b"[" * 10000, b"[" * 10000)),
            413,
            "payload-too-large",
        ),
        (
            client.post(
                url,
                content=chunked(b"[" * 10000, b"[" * 10000),
                headers={"content-type": "application/json"},
            ),
            413,
            None,
        ),
        # a body labelled as anything but JSON (a cross-site form or text/plain post)
        (
            client.post(
                url,
                content=b'{"action": {"type": "draw_stock"}}',
                headers={"content-type": "text/plain"},
            ),
            415,
            "unsupported-media-type",
        ),
        (
            client.post(
                "/v1/players",
                content=b'{"name": "Mallory"}',
                headers={"content-type": "application/x-www-form-urlencoded"},
            ),
            415,
            "unsupported-media-type",
        ),
        (  # unlabelled, from a browser (a page's Blob body skips the preflight too)
            client.post(
                "/v1/players",
                content=b'{"name": "Mallory"}',
                headers={"origin": "https://elsewhere.example"},
            ),
            415,
            "unsupported-media-type",
        ),
        (
            client.post("/v1/matches/nope/actions", json={"action": {"type": "draw_stock"}}),
            404,
            "match-not-found",
        ),
        (
            client.get(f"/v1/matches/{match_id}", headers={"Authorization": "Bearer wrong"}),
            401,
            "unauthorized",
        ),
        (client.get(f"/v1/matches/{match_id}/replay"), 409, "match-not-finished"),
        (client.get("/v1/matches/" + "x" * 5000), 404, "match-not-found"),
    ]
    for request, status, kind in cases:
        response = await request
        assert response.status_code == status, (status, response.text)
        problem = response.json()
        assert response.headers["content-type"].startswith("application/problem+json")
        assert problem["status"] == status and problem["title"] and problem["detail"]
        assert len(problem["detail"]) <= 500  # a long id is not echoed back in full
        if kind is not None:
            assert problem["type"] == f"/problems/{kind}", problem
    missing = await httpx.AsyncClient(base_url=sqlite_site.url).get(f"/v1/matches/{match_id}")
    assert missing.status_code == 401
    stranger = await Player.create(sqlite_site.url, "stranger")
    forbidden = await stranger.act(match_id, as_action(before["view"]["legal"][0]))
    assert forbidden.status_code == 403 and forbidden.json()["rule"] == "not_your_match"
    assert timeless(await player.view(match_id)) == timeless(before)
    await player.close()
    await stranger.close()


async def test_custom_rules_out_of_range_are_a_422_problem(sqlite_site: ServerProcess) -> None:
    player = await Player.create(sqlite_site.url)
    response = await player.client.post(
        "/v1/matches", json={"rules": {"preset": "classic", "knock_limit": 11}}
    )
    assert response.status_code == 422 and response.json()["rule"] == "invalid_request"
    response = await player.client.post("/v1/matches", json={"rules": {"preset": "bridge"}})
    assert response.status_code == 422
    match = await player.new_match(rules={"preset": "arkadium", "gin_bonus": 40}, seed="x")
    assert match["view"]["rules"]["gin_bonus"] == 40
    assert match["view"]["rules"]["shutout_bonus"] == 200
    again = await player.new_match(rules={"preset": "arkadium", "gin_bonus": 40}, seed="x")
    assert again["view"]["hand"] == match["view"]["hand"], "a seed makes the deal reproducible"
    await player.close()


async def test_socket_actions_errors_and_auth(sqlite_site: ServerProcess) -> None:
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="ws")
    match_id = match["match_id"]
    async with websockets.connect(live_url(sqlite_site, match_id)) as ws:
        await ws.send(json.dumps({"type": "auth", "token": "nope"}))
        error = json.loads(await ws.recv())
        assert error["type"] == "error" and error["problem"]["status"] == 401
    async with websockets.connect(
        live_url(sqlite_site, match_id),
        additional_headers={"Authorization": f"Bearer {player.token}"},
    ) as ws:
        snapshot = await opened(ws)
        await ws.send("{not json")
        assert json.loads(await ws.recv())["problem"]["rule"] == "malformed_json"
        await ws.send(json.dumps({"type": "action", "action": {"type": "gin", "card": "ZZ"}}))
        assert json.loads(await ws.recv())["problem"]["status"] == 422
        legal = as_action(snapshot["view"]["legal"][0])
        await ws.send(
            json.dumps({"type": "action", "action": legal, "version": snapshot["version"]})
        )
        event = json.loads(await ws.recv())
        assert event["type"] == "event" and event["version"] == snapshot["version"] + 1
        await ws.send(json.dumps({"type": "ping"}))
        while (frame := json.loads(await ws.recv()))["type"] != "pong":
            assert frame["type"] == "event"
    await player.close()


async def test_a_matchs_answer_says_when_it_was_settled(sqlite_site: ServerProcess) -> None:
    """``finished_at_ms``: null while the match runs; once settled, the time its
    ``match_settled`` was recorded, the list's ``finished_at`` to the millisecond (a page
    that comes back to a finished match times its rematch window by it)."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(rules="classic")
    path = f"/v1/matches/{match['match_id']}"
    assert match["finished_at_ms"] is None
    assert (await player.client.get(path)).json()["finished_at_ms"] is None
    before = (await player.client.get(path)).json()["now_ms"]
    resigned = await player.act(match["match_id"], {"type": "resign"})
    assert resigned.status_code == 200, resigned.text
    answer = (await player.client.get(path)).json()
    assert before <= answer["finished_at_ms"] <= answer["now_ms"]
    listed = (await player.client.get("/v1/matches?status=finished")).json()["matches"]
    finished_at = datetime.fromisoformat(listed[0]["finished_at"])
    assert listed[0]["match_id"] == match["match_id"]
    assert answer["finished_at_ms"] == int(finished_at.timestamp() * 1000)


async def test_match_list_stats_and_replay_follow_the_log(sqlite_site: ServerProcess) -> None:
    player = await Player.create(sqlite_site.url)
    finished = await player.new_match(seed="list-1", rules={"preset": "classic", "target": 10})
    view, version = finished["view"], finished["version"]
    while view["phase"] != "match_over":
        body = (
            await player.act(finished["match_id"], as_action(view["legal"][-1]), version)
        ).json()
        view, version = body["view"], body["version"]
    active = await player.new_match(seed="list-2", level="medium")
    listing = (await player.client.get("/v1/matches")).json()["matches"]
    assert {m["match_id"] for m in listing} == {finished["match_id"], active["match_id"]}
    only_active = (await player.client.get("/v1/matches?status=active")).json()["matches"]
    assert [m["match_id"] for m in only_active] == [active["match_id"]]
    assert only_active[0]["level"] == "medium" and only_active[0]["opponent"] == "ai:medium"
    done = next(m for m in listing if m["match_id"] == finished["match_id"])
    settlement = view["settlement"]
    assert done["status"] == "finished" and done["winner"] == settlement["winner"]
    assert done["rules"] == "classic+custom" and done["finished_at"]

    assert done["practice"] is True  # a chosen seed and custom rules
    stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
    assert stats["matches_played"] == 0, "a practice match is in no statistics"
    fair = await player.new_match(rules="classic")
    resigned = await player.act(fair["match_id"], {"type": "resign"})
    assert resigned.status_code == 200, resigned.text
    stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
    assert (stats["matches_played"], stats["matches_lost"]) == (1, 1)

    # paged, newest first: each match once, and `more` says when another page follows
    whole = (await player.client.get("/v1/matches")).json()
    assert len(whole["matches"]) == 3 and whole["more"] is False
    pages = [
        (await player.client.get("/v1/matches", params={"limit": 2, "offset": at})).json()
        for at in (0, 2)
    ]
    assert [page["more"] for page in pages] == [True, False]
    paged = [m["match_id"] for page in pages for m in page["matches"]]
    assert paged == [m["match_id"] for m in whole["matches"]]
    assert paged[0] == fair["match_id"]
    for bad in ({"limit": 0}, {"limit": 201}, {"offset": -1}):
        refused = await player.client.get("/v1/matches", params=bad)
        assert refused.json()["rule"] == "invalid_request", (bad, refused.text)

    replay = await player.client.get(f"/v1/matches/{finished['match_id']}/replay?at=2")
    assert replay.status_code == 200
    state = replay.json()["state"]
    assert replay.json()["at"] == 2 and state["version"] == 2
    assert len(state["hand"]["hands"][1]) == 10, "a finished match's replay shows both hands"
    for seat, shown in enumerate(replay.json()["arrangements"]):
        expected = arrange(state["hand"]["hands"][seat])
        assert shown["melds"] == [list(meld) for meld in expected.melds]
        assert shown["deadwood"] == list(expected.deadwood)
        assert shown["deadwood_points"] == expected.deadwood_points
    before_deal = await player.client.get(f"/v1/matches/{finished['match_id']}/replay?at=1")
    assert before_deal.json()["state"]["hand"] is None
    assert before_deal.json()["arrangements"] is None
    beyond = await player.client.get(f"/v1/matches/{finished['match_id']}/replay?at={version + 1}")
    assert beyond.status_code == 422
    await player.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_cli_replays_a_match_from_the_store(
    server: ServerProcess, database_url: str
) -> None:
    player = await Player.create(server.url)
    match = await player.new_match(seed="cli")
    await play_out(player, match)  # the CLI prints finished matches only
    env = {**os.environ, "GINRUMMY_DATABASE_URL": database_url}
    shown = subprocess.run(
        [str(GINRUMMY), "replay", match["match_id"], "--at", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip()
    missing = subprocess.run(
        [str(GINRUMMY), "replay", "no-such-match"], env=env, capture_output=True, text=True
    )
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert "no match 'no-such-match' in the " in missing.stderr, "it names the database read"
    await player.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_tokens_never_reach_the_server_log(database_url: str, tmp_path: Path) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_LOG_LEVEL="info").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="logs")
        url = live_url(server, match["match_id"]) + f"?token={player.token}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
        await player.view(match["match_id"])
        await player.client.get(f"/healthz?token={player.token}")
        for odd in ("/v1/players/Bearer", "/healthz?q=bearer", '/healthz?"token":"x'):
            await player.client.get(odd)  # look like secrets only once the line is put together
        await player.close()
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert "/live?token=***" in log, "the socket's URL is logged, masked"
    assert "/healthz?token=***" in log, "an HTTP URL too, in uvicorn's access line"
    assert "Logging error" not in log
    assert player.token not in log


async def test_a_player_renames_itself_and_keeps_its_matches(
    each_backend_site: ServerProcess,
) -> None:
    ada = await Player.create(each_backend_site.url, name="Ada")
    other = await Player.create(each_backend_site.url, name="Bob")
    match = await ada.new_match(seed="rename")
    anonymous = httpx.AsyncClient(base_url=each_backend_site.url)
    profile = f"/v1/players/{ada.id}"

    renamed = await ada.client.patch(profile, json={"name": "Ada Lovelace"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {
        "id": ada.id,
        "name": "Ada Lovelace",
        "kind": "person",
        "rating": {"rating": 1500, "deviation": 350, "provisional": True},  # no rated match yet
    }
    assert (await other.client.get(profile)).json()["name"] == "Ada Lovelace"
    # the token was checked (and kept) before the rename: /v1/me still said "Ada"
    assert (await ada.client.get("/v1/me")).json()["name"] == "Ada Lovelace"
    listing = (await ada.client.get("/v1/matches")).json()["matches"]
    assert [m["match_id"] for m in listing] == [match["match_id"]]

    refusals = [
        (other.client.patch(profile, json={"name": "Mallory"}), 403, "not-you"),
        (anonymous.patch(profile, json={"name": "X"}), 401, None),
        (ada.client.patch(profile, json={"name": ""}), 422, None),
        (ada.client.patch(profile, json={"name": "   "}), 422, "invalid-request"),
        # how the house AIs are shown: a person must not pass for one
        (ada.client.patch(profile, json={"name": "Hard"}), 422, "invalid-request"),
        (ada.client.patch(profile, json={"name": "ai:medium"}), 422, "invalid-request"),
        (ada.client.patch(profile, json={"name": "Computer (easy)"}), 422, "invalid-request"),
        (anonymous.post("/v1/players", json={"name": " baseline "}), 422, "invalid-request"),
        # ...nor by a name that only looks different: a no-break space, no space, a zero-width
        # space, full-width letters; nor hide behind characters that show nothing
        *(
            (ada.client.patch(profile, json={"name": name}), 422, "invalid-request")
            for name in (
                "Computer\u00a0(hard)",
                "Computer(hard)",
                "ai :hard",
                "Hard\u200b",
                "\uff28\uff41\uff52\uff44",
                "AI:\u2060random",
                "\u200b",
                "\u2800",
                "\u3164\u00a0\ufe0f",
                # letters of other scripts drawn as Latin ones
                "h\u0430rd",
                "\u0421omputer (easy)",
                "\u0391\u0399:medium",
            )
        ),
        # what a chat message would lose a name may not hold: it is refused, not changed
        *(
            (client, 422, "invalid-request")
            for client in (
                ada.client.patch(profile, json={"name": "\u202e(drah) retupmoC\u202c"}),
                anonymous.post("/v1/players", json={"name": "\u202e(drah) retupmoC\u202c"}),
                anonymous.post("/v1/players", json={"name": "Eve\u2067"}),
                anonymous.post("/v1/players", json={"name": "a" + "\u0301" * 39}),
                anonymous.post("/v1/players", json={"name": "Ada\u200d"}),
                anonymous.post("/v1/players", json={"name": "Ada\nLovelace"}),
            )
        ),
        # another player's name is not yours to change, whatever the name
        (other.client.patch(profile, json={"name": "Hard"}), 403, "not-you"),
        (other.client.patch(profile, json={"name": "\u200b"}), 403, "not-you"),
        (ada.client.patch(profile, json={"name": "Ada", "admin": True}), 422, None),
        (ada.client.patch("/v1/players/nobody", json={"name": "X"}), 403, "not-you"),
    ]
    for request, status, rule in refusals:
        response = await request
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        if rule:
            assert response.json()["type"].endswith(rule)
    assert (await ada.client.get(profile)).json()["name"] == "Ada Lovelace"
    assert (await ada.client.get("/v1/players/nobody")).status_code == 404
    flipped = await anonymous.post("/v1/players", json={"name": "\u202e(drah) retupmoC\u202c"})
    assert flipped.json()["detail"] == (
        "name: holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control, which reorders"
        " the text around it; send it without"
    )
    lookalike = await anonymous.post("/v1/players", json={"name": "h\u0430rd"})
    for body in (b'{"name": "\\ud800"}', b'{"name": "\\udc00x"}', b'{"name": "\\ud800\\u0041"}'):
        lone = await anonymous.post(
            "/v1/players", content=body, headers={"content-type": "application/json"}
        )
        assert lone.status_code == 400 and lone.json()["rule"] == "malformed_json", lone.text
        assert lone.json()["detail"].startswith("the JSON text is not valid Unicode: \\u"), (
            lone.text
        )
    assert "is how a house AI is shown" in lookalike.json()["detail"]
    # a name is kept as typed: only the check sees it normalised
    for name in (
        "Ada\u00a0Lovelace",
        "Hard Rock",
        "\u2800Zo\u00eb",
        "Zoe\u0308",
        "\u0410\u0434\u0430",
    ):
        renamed = await ada.client.patch(profile, json={"name": name})
        assert renamed.status_code == 200, renamed.text
        assert (await other.client.get(profile)).json()["name"] == name
    for client in (ada, other):
        await client.close()
    await anonymous.aclose()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_unexpected_failure_of_a_socket_action_is_logged(
    server: ServerProcess, tmp_path: Path
) -> None:
    """A 5xx over the socket leaves a traceback in the log, as HTTP's 5xx do."""
    player = await Player.create(server.url)
    match = await player.new_match(seed="ws-fault")
    async with websockets.connect(
        live_url(server, match["match_id"]),
        additional_headers={"Authorization": f"Bearer {player.token}"},
    ) as ws:
        assert (await opened(ws))["type"] == "snapshot"
        fail_every_append(tmp_path / "ginrummy.sqlite3")
        action = as_action(match["view"]["legal"][0])
        await ws.send(json.dumps({"type": "action", "action": action}))
        while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] != "error":
            assert frame["type"] == "ping", frame
        problem = frame["problem"]
        assert (problem["status"], problem["rule"]) == (500, "internal_error"), frame
        await ws.send('{"type": "ping"}')  # a failed action costs its answer, not the socket
        while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] == "ping":
            pass
        assert frame["type"] == "pong", frame
    await player.close()
    server.stop()
    log = server.log_path.read_text()
    assert "unhandled error on a live action" in log and "Traceback" in log, log


async def test_socket_messages_that_break_the_schema_are_422_like_http(
    sqlite_site: ServerProcess,
) -> None:
    """Only text that is not JSON is malformed_json; JSON of the wrong shape is 422."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="ws-schema")
    url = live_url(sqlite_site, match["match_id"]) + f"?token={player.token}"
    async with websockets.connect(url) as ws:
        assert (await opened(ws))["type"] == "snapshot"
        cases = [
            ("{not json", 400, "malformed_json"),
            ("{}", 422, "invalid_request"),
            ("[]", 422, "invalid_request"),
            ('{"type": "resume", "after": "x"}', 422, "invalid_request"),
            # nested past msgspec's depth (in the one field of any shape): unreadable JSON,
            # not a dead reader
            (
                '{"type": "action", "action": ' + "[" * 3000 + "]" * 3000 + "}",
                400,
                "malformed_json",
            ),
            ('{"type": "ping", "junk": 1}', 422, "invalid_request"),  # a field no message has
            (
                '{"type": "action", "action": {"type": "draw_stock"}, "version": "3"}',
                422,
                "invalid_request",
            ),
        ]
        for text, status, rule in cases:
            await ws.send(text)
            while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] == "ping":
                pass
            assert frame["type"] == "error", (text, frame)
            problem = frame["problem"]
            assert (problem["status"], problem["rule"]) == (status, rule), text
        await ws.send('{"type": "ping"}')  # the socket still reads after all of them
        while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] == "ping":
            pass
        assert frame["type"] == "pong", frame
    assert (await player.view(match["match_id"]))["version"] == match["version"]
    await player.close()


async def test_json_nested_too_deep_is_malformed_not_a_server_error(
    sqlite_site: ServerProcess,
) -> None:
    """A few kilobytes of brackets pass the size limit but not the decoder's depth."""
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="deep")
    deep = b'{"a": ' * 1000 + b"1" + b"}" * 1000
    paths = [
        ("POST", "/v1/players"),
        ("POST", "/v1/matches"),
        ("POST", f"/v1/matches/{match['match_id']}/actions"),
        ("PATCH", f"/v1/players/{player.id}"),
    ]
    for method, path in paths:
        for body in (deep, b"[" * 1000 + b"]" * 1000):
            response = await player.client.request(
                method, path, content=body, headers={"Content-Type": "application/json"}
            )
            assert response.status_code == 400, (path, response.text)
            assert response.json()["rule"] == "malformed_json", response.text
    url = live_url(sqlite_site, match["match_id"])
    async with websockets.connect(url) as ws:  # the first message, read for a token
        await ws.send('{"type": "auth", "token": ' + "[" * 3000 + "]" * 3000 + "}")
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["problem"]["rule"] == "unauthorized", frame
    assert timeless(await player.view(match["match_id"])) == timeless(match)
    await player.close()


async def test_an_empty_body_is_a_400_that_says_so(sqlite_site: ServerProcess) -> None:
    player = await Player.create(sqlite_site.url)
    match = await player.new_match(seed="empty")
    paths = ["/v1/players", "/v1/matches", f"/v1/matches/{match['match_id']}/actions"]
    for path in paths:
        response = await player.client.post(path, content=b"")
        assert response.status_code == 400, (path, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        problem = response.json()
        assert problem["rule"] == "malformed_json" and "empty" in problem["detail"], problem
    assert timeless(await player.view(match["match_id"])) == timeless(match)
    await player.close()


def test_the_cli_refuses_an_event_number_below_one_like_any_bad_argument(tmp_path: Path) -> None:
    for at in ("0", "-3", "two"):
        refused = subprocess.run(
            [str(GINRUMMY), "replay", "some-match", "--at", at],
            cwd=tmp_path,
            env={**os.environ, "GINRUMMY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/db"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode == 2, refused.stderr
        assert "Traceback" not in refused.stderr and "--at" in refused.stderr, refused.stderr


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("postgresql+asyncpg://postgres@127.0.0.1:1/ginrummy", "store_unavailable"),  # no one there
        ("postgresql://no_such_role@127.0.0.1:5432/postgres", "store_unavailable"),  # refused
        ("garbage", "bad_database_url"),
        ("postgresql://postgres:secret@[::1:5432/ginrummy", "bad_database_url"),
        ("mysql://root@127.0.0.1/test", "bad_database_url"),
        ("sqlite+aiosqlite:///:memory:", "bad_database_url"),
    ],
)
def test_an_unusable_database_is_one_clear_line_from_every_command(
    tmp_path: Path, url: str, rule: str
) -> None:
    """serve, replay and rebuild-projections say what is wrong in one line, and stop."""
    _one_clear_line_from_every_command(tmp_path, url, rule)


def test_a_newer_servers_database_is_one_clear_line_and_left_alone(tmp_path: Path) -> None:
    """Code rolled back over a database a newer server migrated: refuse, change nothing."""
    path = tmp_path / "newer.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE alembic_version SET version_num = '0099'")
    before = _dump(path)
    assert "0099" in before
    _one_clear_line_from_every_command(tmp_path, url, "schema_too_new")
    assert _dump(path) == before


def _dump(path: Path) -> str:
    with sqlite3.connect(path) as db:
        return "\n".join(db.iterdump())


def _one_clear_line_from_every_command(tmp_path: Path, url: str, rule: str) -> None:
    for command, code in (
        (["serve", "--port", "1"], 3),
        (["replay", "some-match"], 1),
        (["rebuild-projections"], 1),
    ):
        refused = subprocess.run(
            [str(GINRUMMY), *command],
            cwd=tmp_path,
            env={**os.environ, "GINRUMMY_DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert refused.returncode == code, (command, refused.stderr)
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and rule in lines[0], (command, refused.stderr)
        assert "secret" not in refused.stderr


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_tokens_never_reach_the_log_even_at_debug(database_url: str, tmp_path: Path) -> None:
    """At debug the socket libraries log every header and frame; tokens stay masked."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_LOG_LEVEL="debug").start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="debug-logs")
        url = live_url(server, match["match_id"])
        headers = {"Authorization": f"Bearer {player.token}"}
        async with websockets.connect(url, additional_headers=headers) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "auth", "token": player.token}))
            assert json.loads(await ws.recv())["type"] == "snapshot"
        async with websockets.connect(url) as ws:  # long: the library cuts the frame short
            await ws.send('{"type": "auth",' + " " * 200 + json.dumps({"token": player.token})[1:])
            assert json.loads(await ws.recv())["type"] == "snapshot"
        async with websockets.connect(url + f"?token={player.token}") as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
        await player.view(match["match_id"])
        await player.close()
    finally:
        server.stop()
    log = server.log_path.read_text()
    assert "authorization" in log.lower(), "debug logging is on, headers and all"
    assert player.token not in log and player.token[-12:] not in log
    assert "Logging error" not in log


async def test_text_with_a_nul_character_is_a_4xx_on_every_backend(
    each_backend_site: ServerProcess,
) -> None:
    """PostgreSQL cannot hold U+0000 in text; no request may turn that into a 500."""
    player = await Player.create(each_backend_site.url)
    match = await player.new_match(seed="nul")
    for method, path, body in (
        ("POST", "/v1/players", {"name": "a\u0000b"}),
        ("PATCH", f"/v1/players/{player.id}", {"name": "a\u0000b"}),
        ("GET", "/v1/matches/a%00b", None),
        ("GET", "/v1/matches/a%00b/events?after=0", None),
        ("GET", "/v1/players/a%00b", None),
        ("GET", "/v1/players/a%00b/stats", None),
        ("POST", "/v1/matches/a%00b/actions", {"action": {"type": "pass_up_card"}}),
    ):
        response = await player.client.request(method, path, json=body)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        if body is None or "%00" in path:  # an id: the same answer on SQLite as on PostgreSQL
            assert response.status_code == 422, (path, response.text)
            assert response.json()["rule"] == "unstorable_text", (path, response.text)
    renamed = (await player.client.get(f"/v1/players/{player.id}")).json()["name"]
    assert renamed == "tester", "the refused rename changed nothing"
    async with websockets.connect(live_url(each_backend_site, match["match_id"])) as ws:
        await ws.send(json.dumps({"type": "auth", "token": player.token}))
        assert (await opened(ws))["type"] == "snapshot"
        action = {"type": "pass_up_card"}
        await ws.send(
            json.dumps({"type": "action", "action": action, "idempotency_key": "a\u0000"})
        )
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        while frame["type"] == "ping":
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "error" and frame["problem"]["status"] == 422, frame
    async with websockets.connect(live_url(each_backend_site, "a%00b")) as ws:
        await ws.send(json.dumps({"type": "auth", "token": player.token}))
        refusal = json.loads(await ws.recv())
        assert refusal["type"] == "error" and refusal["problem"]["status"] == 422, refusal
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4000 + refusal["problem"]["status"]
    assert (await player.view(match["match_id"]))["version"] == match["version"]
    await player.close()
    assert "Traceback" not in each_backend_site.log_path.read_text()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_libpq_sslmode_in_the_url_works(database_url: str, tmp_path: Path) -> None:
    """Operators paste libpq URLs; asyncpg calls the same setting ``ssl``."""
    server = ServerProcess(database_url + "?sslmode=disable", tmp_path).start()
    try:
        player = await Player.create(server.url)
        match = await player.new_match(seed="sslmode")
        async with websockets.connect(live_url(server, match["match_id"])) as ws:
            await ws.send(json.dumps({"type": "auth", "token": player.token}))
            assert json.loads(await ws.recv())["type"] == "snapshot"
        await player.close()
    finally:
        server.stop()
