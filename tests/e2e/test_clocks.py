"""Move clocks on a real server: a late turn is played by the house AI, a claim after
three, absence past the grace period, a timer that survives a kill -9, and two
processes racing to fire one timer."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from domain.events import HandScored, TurnTimedOut
from infra.store import open_store
from tests.e2e.conftest import BACKENDS, server_for
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import follow, join, open_table, pick, play_on
from tests.e2e.test_openapi_conformance import Checker

FAST = {"GINRUMMY_CLOCK_SWEEP_S": "0.1", "GINRUMMY_NEXT_HAND_TIMEOUT_S": "1"}
# No sweep during a test (only a late move itself can find its timeout; the default
# sweeps every 0.5 s), a grace period of 2 s and a stream ping after 1 s of quiet (the
# defaults: 120 s and 15 s). The other tests on it have no clock: the sweep has nothing
# to do for them.
QUIET = {
    "GINRUMMY_CLOCK_SWEEP_S": "600",
    "GINRUMMY_ABSENCE_GRACE_S": "2",
    "GINRUMMY_STREAM_PING_S": "1",
}
ONE_SECOND = {"per_move_ms": 1000}

# The tests share a server of each setting (a start is seconds on a loaded machine, and
# they started 18): each makes players of its own and reads only their matches and
# tables. Tests that kill or race servers, or read a whole store, keep their own. A
# match a test leaves running plays on under its clock, a few events a second.


@pytest.fixture(scope="module")
def fast_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_for("sqlite", tmp_path_factory.mktemp("clocks-fast"), **FAST) as site:
        yield site


@pytest.fixture(scope="module")
def fast_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_for("postgres", tmp_path_factory.mktemp("clocks-fast-pg"), **FAST) as site:
        yield site


@pytest.fixture(scope="module", params=BACKENDS)
def fast_site(request: pytest.FixtureRequest) -> ServerProcess:
    """The FAST server of each backend."""
    site: ServerProcess = request.getfixturevalue(f"fast_{request.param}")
    return site


@pytest.fixture(scope="module")
def quiet_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_for("sqlite", tmp_path_factory.mktemp("clocks-quiet"), **QUIET) as site:
        yield site


async def resign(player: Player, match_id: str) -> None:
    """End a match the test is done with: on a shared server it would play on under its
    clock, the stand-in moving every second, CPU taken from the tests after it."""
    await player.act(match_id, {"type": "resign"})


async def open_tables_of(player: Player) -> list[dict[str, Any]]:
    """The open tables the lobby lists that ``player`` hosts (the server is shared)."""
    tables = (await player.client.get("/v1/tables")).json()["tables"]
    return [t for t in tables if t["host"]["id"] == player.id]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["event"]["type"] for e in events]


async def wait_version_past(player: Player, match_id: str, version: int, limit: float = 10) -> dict[str, Any]:  # fmt: skip
    """The player's view once the match has moved past ``version`` (a timeout fired)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        view = await player.view(match_id)
        if view["version"] > version:
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"match {match_id} stayed at version {version}")


async def timeouts_of(player: Player, match_id: str) -> list[dict[str, Any]]:
    events = (await player.events(match_id))["events"]
    return [e["event"] for e in events if e["event"]["type"] == "turn_timed_out"]


async def pass_the_turn(host: Player, match_id: str) -> None:
    """Play the host (seat 0) until the opponent is to act: absence counts only then."""
    rng = random.Random(3)
    view = (await host.view(match_id))["view"]
    while 0 in view["to_act"]:
        acted = await host.act(match_id, pick(view, rng), view["version"])
        assert acted.status_code == 200, acted.text
        view = acted.json()["view"]
    assert view["to_act"] == [1]


async def watch(url: str, match_id: str, seen: Recorder) -> None:
    """A spectator's socket, recorded until the match is over."""
    async with websockets.connect(f"{url}/v1/matches/{match_id}/watch") as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong"}))
            seen.add(frame["version"], frame)
            if (frame.get("view") or {}).get("phase") == "match_over":
                return


async def test_a_late_turn_is_played_by_the_house_easy_ai(fast_site: ServerProcess) -> None:
    server = fast_site
    player = await Player.create(server.url, "Slow")
    try:
        untimed = await player.new_match()
        assert untimed["view"]["clock"] is None  # against the house: no clock unless asked
        created = await player.client.post("/v1/matches", json={"clock": ONE_SECOND})
        Checker().check(created, "/v1/matches")  # a view with a running clock conforms
        match = created.json()
        match_id, version = match["match_id"], match["version"]
        clock = match["view"]["clock"]
        assert clock["per_move_ms"] == 1000 and clock["running"] == 0
        now_ms = time.time() * 1000
        assert now_ms - 500 < clock["deadline_ms"] <= now_ms + 1000
        assert clock["timeouts_in_a_row"] == [0, 0]
        view = await wait_version_past(player, match_id, version)
        events = (await player.events(match_id))["events"][version:]
        assert events[0]["event"] == {"type": "turn_timed_out", "seat": 0, "between_hands": False}
        assert events[1]["event"]["seat"] == 0  # the stand-in's move, in the open
        assert view["view"]["clock"]["timeouts_in_a_row"][0] >= 1
        assert view["view"]["settlement"] is None
        await resign(player, match_id)
    finally:
        await player.close()


async def test_a_move_after_the_time_ran_out_is_too_late_even_before_a_sweep(
    quiet_site: ServerProcess,
) -> None:
    # no sweeper fires during the test: only the late move itself can find the timeout
    server = quiet_site
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Late")
    try:
        table = await open_table(host, clock=ONE_SECOND)
        joined = await join(guest, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        view = await host.view(match_id)
        (late,) = view["view"]["to_act"]
        player = host if late == 0 else guest
        await asyncio.sleep(1.3)
        view = await player.view(match_id)
        assert view["version"] == 2 and view["view"]["clock"]["deadline_ms"] < time.time() * 1000
        move = {k: v for k, v in view["view"]["legal"][0].items() if k != "seat"}
        acted = await player.act(match_id, move, view["version"])
        assert acted.status_code == 409, acted.text  # the stand-in played that turn first
        events = (await player.events(match_id))["events"]
        assert events[2]["event"] == {
            "type": "turn_timed_out",
            "seat": late,
            "between_hands": False,
        }
        assert types(events).count("turn_timed_out") == 1
        clock = (await player.view(match_id))["view"]["clock"]
        assert clock["timeouts_in_a_row"][late] == 1 and clock["running"] == 1 - late
        # sent with no version, the same move is out of turn: the answer says why
        unversioned = await player.act(match_id, move)
        assert (unversioned.status_code, unversioned.json()["rule"]) == (422, "not_your_turn")
        assert unversioned.json()["detail"] == (
            f"it is not seat {late}'s turn; your time ran out at version 3, and the "
            "stand-in played that turn for you"
        )
    finally:
        await host.close()
        await guest.close()


async def test_a_bad_clock_is_a_clear_problem(quiet_site: ServerProcess) -> None:
    server = quiet_site
    player = await Player.create(server.url, "Host")
    try:
        for clock in ({"per_move_ms": 1000, "bank_ms": 1000}, {}, {"bank_ms": 0}):
            response = await player.client.post(
                "/v1/tables", json={"rules": "arcadia", "clock": clock}
            )
            assert response.status_code == 422, response.text
        response = await player.client.post("/v1/tables", json={"clock": {"per_move_ms": 1000, "bank_ms": 60_000}})  # fmt: skip
        assert response.json()["rule"] == "invalid_clock"
        table = await open_table(player, clock={"bank_ms": 60_000, "increment_ms": 2000})
        assert table["clock"] == {"per_move_ms": None, "bank_ms": 60_000, "increment_ms": 2000}
        assert [t["clock"] for t in await open_tables_of(player)] == [table["clock"]]
    finally:
        await player.close()


async def test_a_clock_under_a_second_is_refused_and_nothing_is_opened(
    quiet_site: ServerProcess,
) -> None:
    """A 1 ms clock was accepted: every turn of both seats timed out, and the host won a
    rated match by claiming timeouts it had as many of (docs/rules.md, "Clocks")."""
    server = quiet_site
    player = await Player.create(server.url, "Host")
    try:
        for clock in ({"per_move_ms": 1}, {"per_move_ms": 999}, {"bank_ms": 999}):
            for path in ("/v1/tables", "/v1/matches"):
                response = await player.client.post(path, json={"rules": "arcadia", "clock": clock})  # fmt: skip
                assert response.status_code == 422, response.text
                assert ">= 1000" in response.json()["detail"], response.text
        assert await open_tables_of(player) == []
        for clock, says in (({}, "neither"), ({"per_move_ms": 1000, "bank_ms": 1000}, "not both")):
            response = await player.client.post("/v1/tables", json={"clock": clock})
            assert response.json()["rule"] == "invalid_clock" and says in response.json()["detail"]
        table = await open_table(player, clock={"per_move_ms": 1000})  # the floor itself
        assert table["clock"]["per_move_ms"] == 1000
    finally:
        await player.close()


async def test_a_claimant_that_timed_out_as_often_cannot_claim(fast_sqlite: ServerProcess) -> None:  # fmt: skip
    """Both seats idle under a 1 s clock: after three timeouts each the host's claim is
    refused, and the match goes on (the stand-in plays both) with nobody's rating moved."""
    server = fast_sqlite
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    try:
        table = await open_table(host, rules="arcadia", clock=ONE_SECOND)
        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        assert joined.json()["match"]["rated"]
        match_id = joined.json()["match"]["match_id"]
        for _ in range(200):  # six turns of a second each, nobody moving
            answer = await host.view(match_id)
            if min(answer["view"]["clock"]["timeouts_in_a_row"]) >= 3:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"still {answer['view']['clock']['timeouts_in_a_row']}")
        for player in (host, guest):
            claim = await player.client.post(f"/v1/matches/{match_id}/claim")
            assert claim.status_code == 409, claim.text
            assert claim.json()["rule"] == "claim_too_early"
            assert "itself timed out" in claim.json()["detail"]
        view = await wait_version_past(host, match_id, (await host.view(match_id))["version"])
        assert view["view"]["settlement"] is None  # the stand-in plays on
        assert "match_claimed" not in types((await host.events(match_id))["events"])
        rating = (await host.client.get(f"/v1/players/{guest.id}/rating")).json()
        assert rating["rating"] == 1500 and rating["games"] == 0
        await resign(host, match_id)
    finally:
        await host.close()
        await guest.close()


async def test_a_claim_after_three_timeouts_in_a_row(fast_postgres: ServerProcess) -> None:
    server = fast_postgres
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Gone")
    try:
        # to 100, the host never knocking: the match must last until the third timeout
        rules = {"preset": "arcadia", "target": 100}
        table = await open_table(host, rules=rules, clock={"per_move_ms": 1500})
        assert table["clock"]["per_move_ms"] == 1500
        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        seen = (Recorder(), Recorder(), Recorder())  # host, guest, a spectator
        following = [
            asyncio.create_task(follow(server.ws_url, host, match_id, seen[0])),
            asyncio.create_task(watch(server.ws_url, match_id, seen[2])),
        ]
        rng = random.Random(5)
        claimed = None
        for _ in range(400):
            answer = await host.view(match_id)
            seen[0].add(answer["version"], answer["view"])
            view = answer["view"]
            gone_in_a_row = view["clock"]["timeouts_in_a_row"][1]
            if gone_in_a_row >= 3:
                claimed = await host.client.post(f"/v1/matches/{match_id}/claim")
                break
            if 0 in view["to_act"]:
                # Played at once: a host that first read and claimed (five requests a
                # turn) ran out of its 1.5 s on a loaded machine, and a claimant that
                # timed out as often is refused (the test above).
                acted = await host.act(match_id, play_on(view, rng), view["version"])
                assert acted.status_code in (200, 409), acted.text  # 409: the clock came first
                if acted.status_code == 200:
                    seen[0].add_action_response(acted.json())
                continue
            gone = await guest.view(match_id)  # reading is not moving: the clock runs on
            seen[1].add(gone["version"], gone["view"])
            early = await host.client.post(f"/v1/matches/{match_id}/claim")
            if early.status_code == 200 and gone_in_a_row == 2:
                claimed = early  # the third timeout fired between the view and the claim
                break
            assert early.status_code == 409 and early.json()["rule"] == "claim_too_early"
            assert (await host.view(match_id))["view"]["settlement"] is None  # nothing changed
            await asyncio.sleep(0.2)  # the guest never moves: its clock runs out
        assert claimed is not None and claimed.status_code == 200, claimed
        Checker().check(claimed, "/v1/matches/{match_id}/claim")  # as the OpenAPI says
        Checker().check(await host.client.get(f"/v1/matches/{match_id}"), "/v1/matches/{match_id}")
        settled = claimed.json()["view"]["settlement"]
        assert settled["resigned"] == 1 and settled["winner"] == 0
        events = (await host.events(match_id))["events"]
        assert types(events)[-3:] == ["match_claimed", "resigned", "match_settled"]
        assert types(events).count("match_claimed") == 1  # the early claims recorded nothing
        assert events[-3]["event"] == {"type": "match_claimed", "seat": 0, "reason": "timeouts"}
        timed_out = [e for e in await timeouts_of(host, match_id) if not e["between_hands"]]
        # the guest's, and maybe the host's on a busy machine: the host's count is its own
        assert len([e for e in timed_out if e["seat"] == 1]) >= 3
        again = await host.client.post(f"/v1/matches/{match_id}/claim")
        assert again.status_code == 422 and again.json()["rule"] == "match_over"
        await asyncio.wait_for(asyncio.gather(*following), 30)
        # no frame or view of the timeouts, the stand-in's moves or the claim leaks a card
        states = states_by_version(events)
        assert seen[0].assert_no_leaks(states, seat=0) > 10
        assert seen[1].assert_no_leaks(states, seat=1) > 10
        assert seen[2].assert_no_leaks(states, seat=None) > 10
        frames = [m for _, m in seen[2].messages if m.get("type") == "event"]
        assert {"turn_timed_out", "match_claimed"} <= {f["event"]["type"] for f in frames}
    finally:
        await host.close()
        await guest.close()


async def test_absence_past_the_grace_period_lets_the_opponent_claim(
    quiet_site: ServerProcess,
) -> None:
    server = quiet_site  # a grace period of 2 s
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Away")
    try:
        table = await open_table(host)
        joined = await join(guest, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        await pass_the_turn(host, match_id)
        url = f"{server.ws_url}/v1/matches/{match_id}/live"
        async with websockets.connect(url) as ws:  # the guest is here, on its socket
            await ws.send(json.dumps({"type": "auth", "token": guest.token}))
            assert json.loads(await ws.recv())["type"] == "snapshot"
            await asyncio.sleep(2.5)
            present = await host.client.post(f"/v1/matches/{match_id}/claim")
            assert present.status_code == 409, present.text
            assert present.json()["rule"] == "claim_too_early"
        # it has gone: within the grace period the claim still fails, after it succeeds
        early = await host.client.post(f"/v1/matches/{match_id}/claim")
        assert early.status_code == 409, early.text
        await asyncio.sleep(2.2)
        late = await host.client.post(f"/v1/matches/{match_id}/claim")
        assert late.status_code == 200, late.text
        assert late.json()["view"]["settlement"]["resigned"] == 1
        events = (await host.events(match_id))["events"]
        assert events[-3]["event"] == {"type": "match_claimed", "seat": 0, "reason": "absence"}
        # the house AI never leaves
        match = await host.new_match()
        house = await host.client.post(f"/v1/matches/{match['match_id']}/claim")
        assert house.status_code == 409 and house.json()["rule"] == "claim_against_house"
    finally:
        await host.close()
        await guest.close()


async def test_the_next_hand_is_dealt_after_the_timeout_between_two_players(
    fast_sqlite: ServerProcess,
) -> None:
    server = fast_sqlite
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Reader")
    try:
        table = await open_table(host, rules={"preset": "arcadia", "target": 500})  # 2+ hands
        joined = await join(guest, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        rng = random.Random(3)
        for _ in range(2000):  # both play the first hand out; nobody says "ready"
            views = [(await player.view(match_id))["view"] for player in (host, guest)]
            if views[0]["phase"] == "hand_over":
                break
            seat = views[0]["to_act"][0]
            player, view = (host, guest)[seat], views[seat]
            answer = await player.act(match_id, pick(view, rng), view["version"])
            assert answer.status_code == 200, answer.text
        view = (await host.view(match_id))["view"]
        assert view["clock"]["next_hand_deadline_ms"] is not None
        assert view["clock"]["per_move_ms"] is None  # no move clock at this table
        ended = view["version"]
        after = await wait_version_past(host, match_id, ended, limit=5)
        assert after["view"]["hand_number"] == 2
        events = (await host.events(match_id))["events"][ended:]
        assert types(events) == ["turn_timed_out", "hand_acknowledged", "turn_timed_out", "dealt"]
        assert {e["event"]["between_hands"] for e in events if e["event"]["type"] == "turn_timed_out"} == {True}  # fmt: skip
        await resign(host, match_id)
    finally:
        await host.close()
        await guest.close()


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_timer_fires_after_the_server_was_killed_mid_turn(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path, **FAST).start()
    player = await Player.create(first.url, "Patient")
    match = await player.new_match(clock={"per_move_ms": 2000})
    match_id, version = match["match_id"], match["version"]
    first.kill()  # kill -9 in the middle of seat 0's turn: no timer in memory survives
    await player.close()
    second = ServerProcess(database_url, tmp_path, **FAST).start()
    try:
        player = Player(player.client.__class__(base_url=second.url, timeout=30), player.token, player.id)  # fmt: skip
        player.client.headers["Authorization"] = f"Bearer {player.token}"
        await wait_version_past(player, match_id, version, limit=15)
        timed_out = await timeouts_of(player, match_id)
        assert timed_out[0] == {"type": "turn_timed_out", "seat": 0, "between_hands": False}
    finally:
        await player.close()
        second.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_two_processes_racing_to_fire_one_timer_record_one_outcome(
    database_url: str, tmp_path: Path
) -> None:
    """Both processes sweep the same deadlines every 20 ms. One outcome per timer: no
    turn times out twice, and no timeout is recorded before its turn's second is up
    (a loser that recorded its timer on the next turn would show as one too early).
    The log is read from the store once both are stopped: a third server would sweep
    the clocks itself (and did, adding timeouts to what was checked)."""
    race = {**FAST, "GINRUMMY_CLOCK_SWEEP_S": "0.02"}
    first = ServerProcess(database_url, tmp_path, **race).start()
    second = ServerProcess(database_url, tmp_path, **race).start()
    player = await Player.create(first.url, "Asleep")
    try:
        began: dict[str, float] = {}  # each match's clock starts once it is created
        for _ in range(6):
            before = time.monotonic()
            began[(await player.new_match(clock=ONE_SECOND))["match_id"]] = before
        await asyncio.sleep(3.6)  # three deadlines each, both processes sweeping
        first.stop()
        second.stop()
        ended = time.monotonic()
        store = await open_store(database_url, migrate=False)
        try:
            logs = {match_id: await store.read_stream(match_id) for match_id in began}
        finally:
            await store.close()
        for match_id, log in logs.items():
            events = [recorded.event for recorded in log]
            fired = [i for i, e in enumerate(events) if isinstance(e, TurnTimedOut)]
            # each turn lasts its second before it times out, so a match alive for n
            # seconds has at most n timeouts
            most = int(ended - began[match_id])
            assert 1 <= len(fired) <= most, (match_id, len(fired), most)
            for start, end in itertools.pairwise(fired):
                turn = events[start + 1 : end]
                # each timeout is followed by the stand-in's moves and the AI's reply:
                # never by a second timeout of the same turn
                assert {getattr(e, "seat", None) for e in turn} >= {0, 1}, turn
            for i in fired:
                if events[i].between_hands:  # timed from the hand's end, not checked here
                    continue
                # the seat's turn began with the event before (the human never moves):
                # its timeout is recorded a whole second after it, never sooner
                waited = log[i].recorded_at - log[i - 1].recorded_at
                assert waited.total_seconds() >= 0.999, (match_id, i, waited, events[i - 1])
            # and the last timeout got its stand-in move: the sleeper's own event, or the
            # hand's score when the stand-in finished the sleeper's layoffs (no event of its own)
            after = events[fired[-1] + 1]
            stood_in = getattr(after, "seat", None) == 0 or isinstance(after, HandScored)
            assert stood_in, events[fired[-1] - 3 :]
    finally:
        await player.close()
        first.stop()
        second.stop()


async def test_a_bot_on_its_player_stream_is_present_until_it_hangs_up(
    quiet_site: ServerProcess,
) -> None:
    server = quiet_site  # a grace period of 2 s, a stream ping after 1 s of quiet
    host = await Player.create(server.url, "Host")
    bot = await Player.create(server.url, "Streamer")
    try:
        table = await open_table(host)
        joined = await join(bot, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        await pass_the_turn(host, match_id)
        for _ in range(3):  # hang up as a bot that restarts does, a few times
            async with bot.client.stream("GET", "/v1/me/stream") as stream:
                assert json.loads(await asyncio.wait_for(anext(stream.aiter_lines()), 10))
            await asyncio.sleep(0.3)
        async with bot.client.stream("GET", "/v1/me/stream") as stream:
            lines = stream.aiter_lines()
            assert json.loads(await asyncio.wait_for(anext(lines), 10))["type"]
            # a ping after a second of quiet (GINRUMMY_STREAM_PING_S), not the default 15 s
            while json.loads(await asyncio.wait_for(anext(lines), 3))["type"] != "ping":
                pass  # what is open now (the match, its turn) comes first
            await asyncio.sleep(2.5)
            present = await host.client.post(f"/v1/matches/{match_id}/claim")
            assert present.status_code == 409, present.text  # it is on its stream
        # The server notices a plain-HTTP stream has gone when its next ping (after a
        # second of quiet here) finds no reader; from then on the bot is away, and the
        # grace period runs.
        for _ in range(300):  # asked every 0.1 s, not every second
            await asyncio.sleep(0.1)
            away = await host.client.post(f"/v1/matches/{match_id}/claim")
            if away.status_code != 409:
                break
        assert away.status_code == 200, away.text
        assert away.json()["view"]["settlement"]["resigned"] == 1
        # A client hanging up is no server error: once each hang-up logged a traceback
        # ("aclose(): asynchronous generator is already running").
        log = server.log_path.read_text()
        assert "Traceback" not in log and "Exception in ASGI" not in log, log
    finally:
        await host.close()
        await bot.close()


async def test_every_frame_after_a_timeout_carries_the_clock(fast_site: ServerProcess) -> None:
    """Found by QA: the frames of a timeout and the stand-in's move (two appends, which
    a socket reads at once) had ``view.clock`` null, to both seats and the spectator,
    as if the match had no clock; only the newest version's view had it. Each frame's
    view now shows the clock as it stood after that frame's event."""
    server = fast_site
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    try:
        table = await open_table(host, clock=ONE_SECOND)
        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        seen = (Recorder(), Recorder(), Recorder())  # host, guest, a spectator
        sockets = [
            asyncio.create_task(follow(server.ws_url, host, match_id, seen[0])),
            asyncio.create_task(follow(server.ws_url, guest, match_id, seen[1])),
            asyncio.create_task(watch(server.ws_url, match_id, seen[2])),
        ]
        # Nobody moves: the stand-in plays every turn as each second runs out, until
        # version 12, or the match's end before it (to 25, a first knock can end it: a
        # CI run's stand-in took the up-card and knocked for 53, settled at version 10).
        deadline = time.monotonic() + 20
        while (answer := await host.view(match_id))["version"] <= 12:
            if answer["view"]["phase"] == "match_over":
                break
            assert time.monotonic() < deadline, f"match {match_id} stayed at {answer['version']}"
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # the sockets' last frames
        for task in sockets:
            task.cancel()
        await asyncio.gather(*sockets, return_exceptions=True)
        for who, recorded in zip(("host", "guest", "spectator"), seen, strict=True):
            frames = [m for _, m in recorded.messages if m.get("view") is not None]
            events = [m["event"]["type"] for m in frames if m["type"] == "event"]
            assert "turn_timed_out" in events, (who, events)
            unclocked = [m["version"] for m in frames if m["view"]["clock"] is None]
            assert unclocked == [], (who, unclocked)
            clocks = [m["view"]["clock"] for m in frames]
            assert all(clock["per_move_ms"] == 1000 for clock in clocks)
        # the clock a frame shows is the one at its version: the timed-out seat's count
        for _, frame in seen[2].messages:
            if frame.get("type") == "event" and frame["event"]["type"] == "turn_timed_out":
                seat = frame["event"]["seat"]
                assert frame["view"]["clock"]["timeouts_in_a_row"][seat] >= 1, frame
        if answer["view"]["phase"] != "match_over":
            await resign(host, match_id)
    finally:
        await host.close()
        await guest.close()
