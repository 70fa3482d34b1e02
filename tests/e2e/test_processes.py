"""Several processes and crashes: fan-out through the store, kill -9, a stalled AI turn."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import websockets
from sqlalchemy.engine import make_url

from domain.commands import AnySeatCommand
from domain.match import apply, fold
from domain.state import MatchState
from domain.views import player_view
from infra.store import open_store
from server.action_keys import request_hash
from server.schemas import ActionRequest
from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import (
    GINRUMMY,
    Player,
    ServerProcess,
    as_action,
    drop_database,
    timeless,
)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_socket_on_one_process_sees_moves_made_through_another(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    try:
        player = await Player.create(first.url)
        match = await player.new_match(seed="two-processes")
        match_id = match["match_id"]
        async with websockets.connect(
            f"{second.ws_url}/v1/matches/{match_id}/live?token={player.token}"
        ) as ws:
            snapshot = json.loads(await ws.recv())
            assert snapshot["version"] == match["version"]
            view, version = match["view"], match["version"]
            for _ in range(6):
                response = await player.act(match_id, as_action(view["legal"][0]), version)
                assert response.status_code == 200, response.text
                body = response.json()
                received = []
                while len(received) < len(body["events"]):
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == "event":
                        received.append(frame)
                assert [f["version"] for f in received] == [e["version"] for e in body["events"]]
                assert [f["event"] for f in received] == [e["event"] for e in body["events"]]
                assert received[-1]["view"] == body["view"]
                view, version = body["view"], body["version"]
                if not view["legal"]:
                    break
        await player.close()
    finally:
        first.stop()
        second.stop()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_kill_minus_nine_mid_match_and_a_restart_continues_it(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path).start()
    player = await Player.create(server.url)
    match = await player.new_match(seed="crash")
    match_id = match["match_id"]
    view, version = match["view"], match["version"]
    for _ in range(5):
        body = (await player.act(match_id, as_action(view["legal"][0]), version)).json()
        view, version = body["view"], body["version"]
    server.kill()
    await player.close()

    restarted = ServerProcess(database_url, tmp_path)
    restarted.port = server.port
    restarted.start()
    try:
        player.client = type(player.client)(
            base_url=restarted.url, headers={"Authorization": f"Bearer {player.token}"}, timeout=30
        )
        after = await player.view(match_id)
        assert after["version"] == version and after["view"] == view
        for _ in range(400):
            if after["view"]["phase"] == "match_over":
                break
            response = await player.act(
                match_id, as_action(after["view"]["legal"][-1]), after["version"]
            )
            assert response.status_code == 200, response.text
            after = response.json()
        assert after["view"]["settlement"] is not None
        await player.close()
    finally:
        restarted.stop()


def hands_over_to_the_ai(state: MatchState) -> AnySeatCommand:
    """A legal move of seat 0 after which the AI must act."""
    return next(
        command
        for command in player_view(state, 0).legal
        if fold(apply(state, command)[1], state).to_act() == (1,)
    )


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_an_ai_turn_left_unplayed_by_a_crash_is_played_on_the_next_request(
    server: ServerProcess, database_url: str
) -> None:
    """Append the human's move behind the server's back, as if it died before the AI's."""
    player = await Player.create(server.url)
    match = await player.new_match(seed="stall")
    match_id = match["match_id"]
    store = await open_store(database_url, migrate=False)
    try:
        log = await store.read_stream(match_id)
        state = fold(r.event for r in log)
        events = apply(state, hands_over_to_the_ai(state))[1]
        await store.append(match_id, state.version, events)
        stalled = fold(events, state)
    finally:
        await store.close()
    resumed = await player.view(match_id)
    assert resumed["version"] > stalled.version
    assert 0 in resumed["view"]["to_act"]
    await player.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_player_stream_lets_the_house_ai_catch_up_after_a_crash(
    server: ServerProcess, database_url: str
) -> None:
    """A bot acts only on ``your_turn``: its stream must play the AI's unplayed turn."""
    player = await Player.create(server.url)
    match = await player.new_match(seed="stall-stream")
    match_id = match["match_id"]
    store = await open_store(database_url, migrate=False)
    try:
        state = fold(r.event for r in await store.read_stream(match_id))
        events = apply(state, hands_over_to_the_ai(state))[1]
        await store.append(match_id, state.version, events)
        stalled = fold(events, state)
    finally:
        await store.close()
    turns: list[dict[str, Any]] = []

    async def read_stream() -> None:
        async with player.client.stream("GET", "/v1/me/stream") as stream:
            async for line in stream.aiter_lines():
                frame = json.loads(line) if line else {}
                if frame.get("type") == "your_turn":
                    turns.append(frame)
                    return

    await asyncio.wait_for(read_stream(), 20)
    assert turns[0]["match_id"] == match_id and turns[0]["version"] > stalled.version
    assert 0 in (await player.view(match_id))["view"]["to_act"]
    await player.close()


async def log_keyed_move_and_restart(
    server: ServerProcess,
    database_url: str,
    player: Player,
    match_id: str,
    key: str,
    choose: Callable[[MatchState], AnySeatCommand],
) -> tuple[MatchState, dict[str, Any]]:
    """Append the player's keyed move to the log as the server would, behind its back,
    then restart the server, as if it died right after that append; a new process
    knows the move only from the log. Returns the state before the move and the move
    as the client's action."""
    store = await open_store(database_url, migrate=False)
    try:
        state = fold(r.event for r in await store.read_stream(match_id))
        command = choose(state)
        action = as_action(msgspec.to_builtins(command))
        request = msgspec.convert({"action": action, "version": state.version}, ActionRequest)
        await store.append(
            match_id,
            state.version,
            apply(state, command)[1],
            command_id=f"key:{player.id}:{key}",
            command_hash=request_hash(match_id, request),
        )
    finally:
        await store.close()
    server.kill()
    server.start()
    return state, action


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_retry_after_a_crash_before_the_ai_replied_gets_the_whole_answer(
    server: ServerProcess, database_url: str
) -> None:
    """The keyed move is in the log, the AI's reply is not: the retry must play it."""
    player = await Player.create(server.url)
    match_id, key = (await player.new_match(seed="stall"))["match_id"], "cut-off"
    state, action = await log_keyed_move_and_restart(
        server, database_url, player, match_id, key, hands_over_to_the_ai
    )
    answers = [await player.act(match_id, action, state.version, key=key) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200], answers[0].text
    first = answers[0].json()
    assert first["events"][0]["version"] == state.version + 1
    assert any(e["event"].get("seat") == 1 for e in first["events"]), "the AI's reply is in it"
    assert 0 in first["view"]["to_act"]
    assert timeless(answers[1].json()) == timeless(first)
    assert (await player.view(match_id))["version"] == first["version"]
    await player.close()


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_key_whose_command_is_logged_with_another_body_is_refused(
    server: ServerProcess, database_url: str
) -> None:
    """The log holds the key's command but no binding does: another body with that key
    is a reuse, and the logged request still answers."""
    player = await Player.create(server.url)
    match_id, key = (await player.new_match(seed="stall"))["match_id"], "logged"
    state, action = await log_keyed_move_and_restart(
        server, database_url, player, match_id, key, lambda state: player_view(state, 0).legal[0]
    )
    other = player_view(state, 0).legal[1]
    before = await player.view(match_id)
    reused = await player.act(match_id, as_action(msgspec.to_builtins(other)), key=key)
    assert reused.status_code == 422 and reused.json()["rule"] == "idempotency_key_reused"
    assert timeless(await player.view(match_id)) == timeless(before)
    same = await player.act(match_id, action, state.version, key=key)
    assert same.status_code == 200, same.text
    assert same.json()["events"][0]["version"] == state.version + 1
    await player.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_lost_database_is_a_503_problem_not_a_crash(
    server: ServerProcess, database_url: str
) -> None:
    player = await Player.create(server.url)
    match = await player.new_match(seed="outage")
    await drop_database(database_url)  # kills the server's connections, and the data
    ready = await player.client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["rule"] == "store_unavailable"
    other = await player.client.post("/v1/players", json={"name": "late"})
    # asyncpg reports a dropped database as InvalidCatalogNameError: retryable, so a 503
    assert other.status_code == 503, other.text
    assert other.json()["rule"] == "store_unavailable"
    assert other.headers["content-type"].startswith("application/problem+json")
    assert (await player.client.get("/healthz")).status_code == 200, "alive, just not ready"
    del match
    await player.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_actions_alternating_between_two_processes_never_conflict_wrongly(
    database_url: str, tmp_path: Path
) -> None:
    """Each process's cache goes stale after every move made through the other one."""
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    try:
        player = await Player.create(first.url)
        match = await player.new_match(seed="alternate", rules={"preset": "classic", "target": 80})
        view, version = match["view"], match["version"]
        urls = [first.url, second.url]
        moves = 0
        while view["phase"] != "match_over":
            player.client.base_url = urls[moves % 2]
            response = await player.act(match["match_id"], as_action(view["legal"][0]), version)
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["events"][0]["version"] == version + 1
            view, version = body["view"], body["version"]
            moves += 1
        for url in urls:
            player.client.base_url = url
            assert (await player.view(match["match_id"]))["version"] == version
        assert moves > 10
        await player.close()
    finally:
        first.stop()
        second.stop()


# A setting out of its range stops `ginrummy serve` before it touches the store, with one
# line naming the variable and what it must be: once, a port was taken modulo 65536, a
# zero sweep spun a core, and a log level uvicorn does not know was a traceback.
BAD_STARTS = [
    (
        {"GINRUMMY_LOG_LEVEL": "warn"},
        [],
        "GINRUMMY_LOG_LEVEL='warn' must be one of critical, error, warning, info, debug, trace",
    ),
    (
        {"GINRUMMY_LOG_LEVEL": "verbose"},
        [],
        "GINRUMMY_LOG_LEVEL='verbose' must be one of critical, error, warning, info, debug, trace",
    ),
    ({"GINRUMMY_PORT": "83636"}, [], "GINRUMMY_PORT='83636' must be 1–65535"),
    ({}, ["--port", "83636"], "ginrummy serve: error: argument --port: '83636' must be 1–65535"),
    ({"GINRUMMY_TABLE_SWEEP_S": "0"}, [], "GINRUMMY_TABLE_SWEEP_S='0' must be more than 0 seconds"),
    (
        {"GINRUMMY_STATIC_DIR": "/nonexistent"},
        [],
        "GINRUMMY_STATIC_DIR='/nonexistent' must be a directory holding index.html"
        " (or empty: the bundled page)",
    ),
]


@pytest.mark.parametrize(("env", "args", "said"), BAD_STARTS)
def test_a_setting_out_of_range_stops_serve_at_once_with_one_line(
    tmp_path: Path, env: dict[str, str], args: list[str], said: str
) -> None:
    database = tmp_path / "ginrummy.sqlite3"
    started = time.monotonic()
    done = subprocess.run(
        [str(GINRUMMY), "serve", *args],
        env={**os.environ, "GINRUMMY_DATABASE_URL": f"sqlite:///{database}", **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.monotonic() - started < 30
    assert done.returncode == (2 if args else 1), done.stderr  # 2: argparse's usage error
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("usage: ")]
    assert lines == [said], done.stderr
    assert not database.exists(), "refused before the store is opened"


async def test_serve_warns_of_an_unknown_variable_and_names_its_store(tmp_path: Path) -> None:
    database = tmp_path / "ginrummy.sqlite3"
    server = ServerProcess(
        f"sqlite:///{database}",
        tmp_path,
        GINRUMMY_LOG_LEVEL="info",
        GINRUMMY_DATABSE_URL="postgresql://alice:s3cret@db.internal/games",
    ).start()
    server.stop()
    log = server.log_path.read_text()
    assert server.proc is not None
    warned = f"WARNING {server.proc.pid} ginrummy.config: GINRUMMY_DATABSE_URL is not a"
    assert (
        f"{warned} setting of this server and is ignored; did you mean GINRUMMY_DATABASE_URL?"
    ) in log, log
    said = f"INFO {server.proc.pid} ginrummy.config: event store: the SQLite file"
    assert f"{said} {database.resolve()}\n" in log, log
    assert "s3cret" not in log and "alice" not in log


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_the_store_line_names_postgresql_without_user_or_password(
    database_url: str, tmp_path: Path
) -> None:
    url = make_url(database_url)
    if url.password is None:  # this machine's PostgreSQL trusts local connections
        url = url.set(password="not-the-password-3e1f")
    password = str(url.password)
    # postgres:// as many providers print it, which the store reads as PostgreSQL too
    spelled = url.set(drivername="postgres").render_as_string(hide_password=False)
    server = ServerProcess(spelled, tmp_path, GINRUMMY_LOG_LEVEL="info").start()
    server.stop()
    log = server.log_path.read_text()
    said = f"the PostgreSQL database {url.database} on {url.host}:{url.port or 5432}"
    assert server.proc is not None
    assert f"INFO {server.proc.pid} ginrummy.config: event store: {said}\n" in log, log
    assert password not in log and f"{url.username}@" not in log, log


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_opens_sent_at_once_to_two_processes_cannot_pass_the_cap_together(
    database_url: str, tmp_path: Path
) -> None:
    """A host may have three tables open. Twelve opens at once, half to each process: the
    host's lock is PostgreSQL's, so the processes take turns counting and recording, and
    no process counts the tables while another is recording one (it did: each process
    held a lock of its own, and the burst could pass the cap by a table per process)."""
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    host = await Player.create(first.url, "Host")
    elsewhere = httpx.AsyncClient(base_url=second.url, headers=host.client.headers, timeout=30)
    try:
        for round in range(3):
            answers = await asyncio.gather(
                *(
                    client.post("/v1/tables", json={"rules": {"preset": "classic", "target": 30}})
                    for _ in range(6)
                    for client in (host.client, elsewhere)
                )
            )
            opened = [a.json()["table_id"] for a in answers if a.status_code == 201]
            refused = [a.json()["type"] for a in answers if a.status_code != 201]
            assert len(opened) == 3, (round, [a.text for a in answers])
            assert set(refused) == {"/problems/too-many-open-tables"}, refused
            for table_id in opened:  # room for the next round
                cancelled = await host.client.post(f"/v1/tables/{table_id}/cancel")
                assert cancelled.status_code == 200, cancelled.text
    finally:
        await elsewhere.aclose()
        await host.close()
        first.stop()
        second.stop()
