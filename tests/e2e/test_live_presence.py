"""A seat's match socket (``live``) says when the opponent it waits for left, from when it
may claim, when it came back, and when a claim is accepted, with the player stream's
frames and by the same rules; a spectator's socket says none of it, and neither says
anything of presence once the match is over. A presence read that fails closes nothing.

Every frame is checked against asyncapi.yaml as it comes, and the secrecy oracle reads
every frame each socket received once the match is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import websockets

from infra.database import asyncpg_dsn
from tests.e2e.harness import Player, ServerProcess, as_action
from tests.e2e.secrecy import states_by_version
from tests.e2e.test_absence import CLAIM, Socket, table_match
from tests.e2e.test_clocks import pass_the_turn
from tests.e2e.test_stream_announcements import named_cards
from tests.e2e.test_stream_read_failures import held_presence_look, terminate

GRACE = {"GINRUMMY_ABSENCE_GRACE_S": "2"}  # presence is looked at every 0.5 s
# Room for the guest to come back within the grace on a loaded machine (after the away
# frame, a GET …/claim and a new socket): looks every 1 s.
WIDE_GRACE = {"GINRUMMY_ABSENCE_GRACE_S": "4"}
# Presence looked at every 30 s (and a leave settled for 3 s): a frame within seconds of a
# socket opening or closing on another process is that process's word, not a look.
SLOW_LOOKS = {"GINRUMMY_ABSENCE_GRACE_S": "120"}
PRESENCE = {"opponent_away", "opponent_back", "claimable"}
Frame = dict[str, Any]


def kind(name: str) -> Any:
    return lambda f: f["type"] == name


async def heard_for(socket: Socket, seconds: float) -> list[Frame]:
    """The frames a socket sends in the next ``seconds`` (each checked as it comes)."""
    before = len(socket.frames)
    with contextlib.suppress(TimeoutError):
        await socket.until(lambda f: False, seconds)
    return socket.frames[before:]


def presence_of(frames: list[Frame]) -> list[Frame]:
    return [f for f in frames if f["type"] in PRESENCE]


async def seated(server: ServerProcess, player: Player, match_id: str) -> Any:
    """The player's live socket on the match (present there), once it has its snapshot."""
    url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
    ws = await websockets.connect(url)
    assert json.loads(await ws.recv())["type"] == "snapshot"
    return ws


def assert_no_cards(frames: list[Frame]) -> None:
    for frame in presence_of(frames):
        assert not named_cards(frame), frame


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_the_seat_socket_says_away_back_and_claimable_and_a_spectator_hears_none(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, **WIDE_GRACE).start()
    host = await Player.create(server.url, "Waiter")
    guest = await Player.create(server.url, "Wanderer")
    try:
        match_id = await table_match(host, guest)
        guest_ws = await seated(server, guest, match_id)
        await pass_the_turn(host, match_id)  # the guest is to act
        version = (await host.view(match_id))["version"]
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with (
            websockets.connect(live) as seat_ws,
            websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as watch_ws,
        ):
            seat = Socket(seat_ws, "live", "receiveFeed")
            spectator = Socket(watch_ws, "watch", "receiveWatch")
            await seat.until(kind("snapshot"))
            await spectator.until(kind("snapshot"))
            # Past the grace, the guest still connected: it keeps the host waiting, but it
            # is there, so nothing is said (four looks at its presence).
            assert not presence_of(await heard_for(seat, 4.5)), seat.frames

            await guest_ws.close()  # it leaves
            away = await seat.until(kind("opponent_away"), 5)
            status = (await host.client.get(f"/v1/matches/{match_id}/claim")).json()
            assert (away["match_id"], away["version"]) == (match_id, version)
            assert away["claim_at_ms"] == status["absence_claim_at_ms"]
            assert away["seen_ms"] == status["opponent_seen_ms"]
            assert 0 < away["claim_at_ms"] - away["now_ms"] <= 4000
            assert status["claimable"] is False
            assert not [f for f in seat.frames if f["type"] == "claimable"]

            guest_ws = await seated(server, guest, match_id)  # it comes back in time
            back = await seat.until(kind("opponent_back"), 5)
            assert (back["match_id"], back["version"]) == (match_id, version)
            assert not presence_of(await heard_for(seat, 4.5)), "present past the grace"
            refused = await host.client.post(f"/v1/matches/{match_id}/claim")
            assert refused.status_code == 409, refused.text

            await guest_ws.close()  # and leaves for good
            again = await seat.until(kind("opponent_away"), 5)
            assert again["claim_at_ms"] > away["claim_at_ms"]
            claimable = await seat.until(kind("claimable"), 8)
            assert (claimable["reason"], claimable["version"]) == ("absence", version)
            assert claimable["now_ms"] >= again["claim_at_ms"]
            await seat_ws.send(json.dumps(CLAIM))  # at once: the server accepts it
            over = await seat.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
            assert over["view"]["settlement"]["resigned"] == 1
            # The match is over: nothing more of presence, though the guest stays away.
            assert not presence_of(await heard_for(seat, 2)), seat.frames[-5:]
            await spectator.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
            await heard_for(spectator, 0.5)
            assert not presence_of(spectator.frames), "a spectator hears no presence"
            kinds = [f["type"] for f in presence_of(seat.frames)]
            assert kinds == ["opponent_away", "opponent_back", "opponent_away", "claimable"]
        events = (await host.events(match_id))["events"]
        states = states_by_version(events)
        assert_no_cards(seat.frames)
        assert seat.seen.assert_no_leaks(states, seat=0) >= 8
        assert spectator.seen.assert_no_leaks(states, seat=None) >= 4
    finally:
        await host.close()
        await guest.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_socket_closing_or_opening_on_another_process_is_told_at_once(
    database_url: str, tmp_path: Path
) -> None:
    """The guest's socket is on the second process, the host's on the first, which looks
    at the guest's presence every 30 s. Its leaving is said once the leave settles (3 s),
    its return within a second or two: the second process's NOTIFY wakes the first. Before,
    both waited for the first process's next look, up to 30 s each."""
    first = ServerProcess(database_url, tmp_path, **SLOW_LOOKS).start()
    second = ServerProcess(database_url, tmp_path, **SLOW_LOOKS).start()
    host = await Player.create(first.url, "Here")
    guest = await Player.create(first.url, "There")
    try:
        match_id = await table_match(host, guest)
        guest_ws = await seated(second, guest, match_id)
        await pass_the_turn(host, match_id)  # the guest, connected on the second, is to act
        live = f"{first.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with websockets.connect(live) as seat_ws:
            seat = Socket(seat_ws, "live", "receiveFeed")
            await seat.until(kind("snapshot"))
            assert not presence_of(await heard_for(seat, 1)), seat.frames  # looked: there

            left = time.monotonic()
            await guest_ws.close()
            await seat.until(kind("opponent_away"), 40)
            took_away = time.monotonic() - left
            returned = time.monotonic()
            guest_ws = await seated(second, guest, match_id)
            await seat.until(kind("opponent_back"), 40)
            took_back = time.monotonic() - returned
            await guest_ws.close()
            said = f"away said {took_away:.1f} s after leaving, back {took_back:.1f} s after"
            assert took_away < 8 and took_back < 4, said
    finally:
        await host.close()
        await guest.close()
        first.stop()
        second.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_failed_presence_read_keeps_the_socket_and_is_read_again(
    database_url: str, tmp_path: Path
) -> None:
    """The socket's look at the opponent's presence waits on a lock this test holds,
    and its PostgreSQL session is terminated: the socket stays open, and when the
    opponent leaves afterwards it says so, and then that a claim is accepted."""
    dsn = asyncpg_dsn(database_url)
    server = ServerProcess(database_url, tmp_path, **GRACE).start()
    host = await Player.create(server.url, "Patient")
    guest = await Player.create(server.url, "Gone")
    presence_lock, watcher = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    try:
        match_id = await table_match(host, guest)
        guest_ws = await seated(server, guest, match_id)
        await pass_the_turn(host, match_id)  # the guest, connected, is to act
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with websockets.connect(live) as seat_ws:
            seat = Socket(seat_ws, "live", "receiveFeed")
            await seat.until(kind("snapshot"))
            stalled, pid = await held_presence_look(presence_lock, watcher, server)
            await terminate(watcher, pid)  # the socket's look
            await stalled.rollback()
            await seat_ws.send(json.dumps({"type": "ping"}))  # the socket is still there
            await seat.until(kind("pong"))
            assert not presence_of(seat.frames), seat.frames  # the guest was there
            await guest_ws.close()  # it leaves: the socket looks again, and says so
            away = await seat.until(kind("opponent_away"), 10)
            claimable = await seat.until(kind("claimable"), 10)
            assert claimable["now_ms"] >= away["claim_at_ms"]
            await seat_ws.send(json.dumps(CLAIM))
            await seat.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
        states = states_by_version((await host.events(match_id))["events"])
        assert seat.seen.assert_no_leaks(states, seat=0) >= 4
    finally:
        for conn in (presence_lock, watcher):
            await conn.close()
        await host.close()
        await guest.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_claim_said_once_is_said_again_after_the_opponent_slips_in_and_out(
    database_url: str, tmp_path: Path
) -> None:
    """Once ``claimable`` was said, the opponent connects and leaves again at once,
    between two looks at its presence (looks are 0.5 s apart, the visit is shorter), so
    no ``opponent_back`` need be said: the new absence is told (``opponent_away``, a
    later ``claim_at_ms``) and, once its grace is over, ``claimable`` again. Before, the
    second ``claimable`` was never said at that version, and the page held its offer."""
    server = ServerProcess(database_url, tmp_path, **GRACE).start()
    host = await Player.create(server.url, "Waiting")
    guest = await Player.create(server.url, "Flitting")
    try:
        match_id = await table_match(host, guest)
        await pass_the_turn(host, match_id)  # the guest, never connected, is to act
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with websockets.connect(live) as seat_ws:
            seat = Socket(seat_ws, "live", "receiveFeed")
            first = await seat.until(kind("opponent_away"), 10)
            await seat.until(kind("claimable"), 10)
            await (await seated(server, guest, match_id)).close()  # in and out
            again = await seat.until(
                lambda f: f["type"] == "opponent_away" and f["claim_at_ms"] > first["claim_at_ms"],
                10,
            )
            claimable = await seat.until(kind("claimable"), 10)
            assert claimable["now_ms"] >= again["claim_at_ms"], claimable
            await seat_ws.send(json.dumps(CLAIM))
            await seat.until(lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over")  # fmt: skip
    finally:
        await host.close()
        await guest.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_no_claim_is_offered_of_a_version_the_match_moved_past_during_the_look(
    database_url: str, tmp_path: Path
) -> None:
    """A look at the absent opponent's presence waits on a lock this test holds until its
    grace is over; meanwhile the opponent (a bot away from any socket) moves over HTTP.
    The look then finds the old version claimable, but the match has moved on, so the
    socket says no ``claimable`` of it (a click on it would be refused): the next frame
    is the move's event. Before, ``claimable`` of the old version came first."""
    dsn = asyncpg_dsn(database_url)
    server = ServerProcess(database_url, tmp_path, **GRACE).start()
    host = await Player.create(server.url, "Watchful")
    guest = await Player.create(server.url, "Offline")
    presence_lock, watcher = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    try:
        match_id = await table_match(host, guest)
        await pass_the_turn(host, match_id)  # the guest, never connected, is to act
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={host.token}"
        async with websockets.connect(live) as seat_ws:
            seat = Socket(seat_ws, "live", "receiveFeed")
            away = await seat.until(kind("opponent_away"), 10)
            stalled, _ = await held_presence_look(presence_lock, watcher, server)
            while time.time() * 1000 < away["claim_at_ms"] + 200:  # it ends past the grace
                await asyncio.sleep(0.05)
            view = (await guest.view(match_id))["view"]
            moved = await guest.act(match_id, as_action(view["legal"][0]), view["version"])
            assert moved.status_code == 200, moved.text
            await stalled.rollback()
            event = await seat.until(lambda f: f["type"] == "event", 10)
            assert event["version"] == away["version"] + 1, event
            assert not [f for f in seat.frames if f["type"] == "claimable"], seat.frames
    finally:
        for conn in (presence_lock, watcher):
            await conn.close()
        await host.close()
        await guest.close()
        server.stop()
