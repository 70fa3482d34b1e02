"""A match socket's older event frames show the clock as it stood, without a deadline.

Found by QA: every replayed frame (``?after=``, a ``resume``) and every frame of a batch
sent live (the house AI's reply to a move) had ``view.clock`` as it stood at its event,
with a ``deadline_ms`` still ahead for a turn that had ended; a client that set its
timer from each frame's deadline counted down a turn that was over. Only the newest
event's frame (the last of a batch) has deadlines now; an older one's clock keeps the
rest (banks, timeouts, the stand-in's moves), as a null clock looked like no clock.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import play_on

PER_MOVE = {"per_move_ms": 60_000}


async def events_until(ws: Any, version: int) -> list[dict[str, Any]]:
    """The socket's event frames up to and including the one for ``version`` (the seats,
    pings and any other frames between them are read past)."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["version"] < version:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == "ping":
            await ws.send(json.dumps({"type": "pong"}))
        elif frame["type"] == "event":
            got.append(frame)
    assert got[-1]["version"] == version, got[-1]
    return got


def assert_newest_alone_has_the_deadline(frames: list[dict[str, Any]], what: str) -> None:
    """One batch of event frames: each view has the clock; the last one's has the running
    deadline, every earlier one's none."""
    clocks = [f["view"]["clock"] for f in frames]
    assert all(c is not None and c["per_move_ms"] == 60_000 for c in clocks), (what, clocks)
    with_deadline = [f["version"] for f in frames if f["view"]["clock"]["deadline_ms"] is not None]
    assert with_deadline == [frames[-1]["version"]], (what, with_deadline)
    newest = frames[-1]
    clock = newest["view"]["clock"]
    assert clock["running"] == 0 and clock["deadline_ms"] > newest["now_ms"], (what, newest)


async def our_turn(player: Player, match_id: str) -> dict[str, Any]:
    """The player's view once it has a move: a timed match's AI replies in an append of its
    own, which an action's answer need not include."""
    for _ in range(100):
        view = await player.view(match_id)
        if view["view"]["legal"]:
            return view
        await asyncio.sleep(0.1)
    raise AssertionError(f"no move for the player in 10 s: {view}")


async def play(player: Player, match_id: str, moves: int) -> None:
    """``moves`` of the player's turns (a draw and a discard are two) over HTTP."""
    rng = random.Random(7)
    for _ in range(moves):
        view = (await our_turn(player, match_id))["view"]
        acted = await player.act(match_id, play_on(view, rng), view["version"])
        assert acted.status_code == 200, acted.text
    await our_turn(player, match_id)  # and the AI's reply to the last


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_only_the_newest_event_frame_of_a_batch_has_a_deadline(
    server: ServerProcess,
) -> None:
    player = await Player.create(server.url, "Clocked")
    try:
        match = await player.new_match(clock=PER_MOVE, seed="clock-frames")  # the same deal and AI
        match_id = match["match_id"]
        await play(player, match_id, 6)
        latest = (await player.view(match_id))["version"]
        assert latest > 8, latest  # a batch of several events to replay
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}&after=2"
        code = match["watch_code"]  # a seeded match is watched with its code
        watch = f"{server.ws_url}/v1/matches/{match_id}/watch?after=2&watch_code={code}"
        async with websockets.connect(live) as seat, websockets.connect(watch) as spectator:
            for who, ws in (("seat", seat), ("spectator", spectator)):
                replayed = await events_until(ws, latest)
                assert [f["version"] for f in replayed] == list(range(3, latest + 1)), who
                assert_newest_alone_has_the_deadline(replayed, f"{who}: ?after=2")

                await ws.send(json.dumps({"type": "resume", "after": 4}))
                resumed = await events_until(ws, latest)
                assert [f["version"] for f in resumed] == list(range(5, latest + 1)), who
                assert_newest_alone_has_the_deadline(resumed, f"{who}: resume after 4")

            # Live: the AI's reply to a discard (its draw and its discard, one append)
            # goes out as one batch; the player's own discard may come alone or with it.
            rng = random.Random(11)
            for _ in range(40):
                state = await our_turn(player, match_id)
                view = state["view"]
                move = play_on(view, rng)
                acted = await player.act(match_id, move, view["version"])
                assert acted.status_code == 200, acted.text
                events = acted.json()["events"]
                newest = events[-1]["version"]
                got = {who: await events_until(ws, newest) for who, ws in (("seat", seat), ("spectator", spectator))}  # fmt: skip
                reply = events[1:]
                if move["type"] != "discard" or len(reply) < 2:
                    continue
                if any(e["event"].get("seat") != 1 for e in reply):
                    continue  # the hand ended: not the AI's reply alone
                versions = [e["version"] for e in reply]
                for who, frames in got.items():
                    batch = [f for f in frames if f["version"] in versions]
                    assert [f["version"] for f in batch] == versions, who
                    assert_newest_alone_has_the_deadline(batch, f"{who}: the AI's reply")
                break
            else:
                raise AssertionError("the AI never replied to a discard with two moves")
    finally:
        await player.close()
