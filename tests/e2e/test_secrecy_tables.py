"""The independent leak check over many random person-vs-person matches.

Two seats and a spectator follow each match on their own sockets while both seats play
random legal moves over HTTP; once the match is over, every message each of the three
received is checked against the complete log by the oracle in ``secrecy.py``, which
knows nothing of the server's redaction code.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, as_action, wait_for
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import follow, join, open_table, pick


async def spectate(url: str, seen: Recorder) -> None:
    async with websockets.connect(url) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong"}))
            seen.add(frame["version"], frame)
            if (frame.get("view") or {}).get("phase") == "match_over":
                return


def layoff_views(*recorders: Recorder) -> list[dict[str, Any]]:
    """The views (as answered, or in a frame) of a defence that the recorders received."""
    views = []
    for recorder in recorders:
        for _, message in recorder.messages:
            if isinstance(message, dict) and isinstance(message.get("view"), dict):
                message = message["view"]
            if isinstance(message, dict) and message.get("phase") == "layoff":
                views.append(message)
    return views


async def play_randomly(
    seats: tuple[Player, Player], match_id: str, rng: random.Random, seen: tuple[Recorder, Recorder]
) -> dict[str, Any]:
    """Both seats act whenever their view lets them (in random order between hands)."""
    to_act = [0, 1]
    for _ in range(5_000):
        seat = rng.choice(to_act)
        answer = await seats[seat].view(match_id)
        seen[seat].add(answer["version"], answer["view"])
        view = answer["view"]
        if view["phase"] == "match_over":
            return view
        if not view["legal"]:
            to_act = [1 - seat]
            continue
        # Most moves toward ending the hand, the rest random, so hands end by knocks as
        # well as washes and a match ends in reasonable time.
        action = pick(view, rng) if rng.random() < 0.8 else as_action(rng.choice(view["legal"]))
        reply = await seats[seat].act(match_id, action, answer["version"])
        assert reply.status_code == 200, reply.text
        body = reply.json()
        seen[seat].add_action_response(body)
        to_act = body["view"]["to_act"] or [0, 1]
        if body["version"] % 9 == 0:
            page = await seats[seat].events(match_id)
            if not page["complete"]:
                for item in page["events"]:
                    seen[seat].add(item["version"], item["event"])
    raise AssertionError("the match did not finish")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_random_matches_between_two_people_leak_nothing_to_anyone(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    checked = 0
    offered = {True: 0, False: 0}  # layoff-phase views: the defender's, the knocker's
    try:
        for game in range(6):
            rules = {"preset": ("arcadia", "arkadium", "classic")[game % 3], "target": 20}
            table = await open_table(host, rules=rules, private=game % 2 == 1)
            joined = await join(guest, table["table_id"], invite_code=table["invite_code"])
            match_id = joined.json()["match"]["match_id"]
            http_seen = (Recorder(), Recorder())
            ws_seen = (Recorder(), Recorder())
            watched = Recorder()
            code = f"?watch_code={table['watch_code']}" if table["watch_code"] else ""
            tasks = [
                asyncio.create_task(follow(server.ws_url, p, match_id, ws_seen[seat]))
                for seat, p in enumerate((host, guest))
            ]
            tasks.append(
                asyncio.create_task(
                    spectate(f"{server.ws_url}/v1/matches/{match_id}/watch{code}", watched)
                )
            )
            await wait_for(lambda w=ws_seen, s=watched: all(r.messages for r in (*w, s)))
            await play_randomly((host, guest), match_id, random.Random(game), http_seen)
            await asyncio.wait_for(asyncio.gather(*tasks), 30)
            states = states_by_version((await host.events(match_id))["events"])
            for seat in (0, 1):
                checked += http_seen[seat].assert_no_leaks(states, seat)
                checked += ws_seen[seat].assert_no_leaks(states, seat)
            checked += watched.assert_no_leaks(states, seat=None)
            for seat in (0, 1):
                for view in layoff_views(http_seen[seat], ws_seen[seat]):
                    # No hints here: the defender is offered the best layoffs, and only
                    # the defender (the oracle above finds its cards in no other message).
                    defending = seat in view["to_act"]
                    assert (view["suggested_layoffs"] is not None) is defending, view
                    offered[defending] += 1
            assert all("suggested_layoffs" not in v for v in layoff_views(watched))
        assert checked > 1000
        assert offered[True] and offered[False], offered
    finally:
        await host.close()
        await guest.close()


def without_ending(view: dict[str, Any], rng: random.Random, take: bool) -> dict[str, Any]:
    """A move that never knocks: a face-up card whenever ``take`` allows one, else the
    stock; the plain discard of what ``pick`` would knock with."""
    legal = view["legal"]
    takes = [c for c in legal if c["type"] in ("take_up_card", "draw_discard")]
    if take and takes:
        return as_action(takes[0])
    plain = [c for c in legal if c["type"] in ("pass_up_card", "draw_stock", "next_hand")]
    if plain:
        return as_action(plain[0])
    action = pick(view, rng)
    if action["type"] in ("knock", "gin"):
        return {"type": "discard", "card": action["card"]}
    return action


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_washed_hands_and_a_resignation_mid_hand_leak_nothing_to_anyone(
    server: ServerProcess,
) -> None:
    """The no-progress rule washes a hand (both hands and its deck shown, by design) and
    the same dealer deals again; then a seat resigns in the middle of a hand, which
    settles the match and reveals its seed. Until each of those, every message to each
    seat and to a spectator shows only what it may know."""
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    players = (host, guest)
    rules = {"preset": "classic", "target": 500, "pile_draw_limit": 1}
    joined = await join(guest, (await open_table(host, rules=rules))["table_id"])
    match_id = joined.json()["match"]["match_id"]
    seen = (Recorder(), Recorder())
    ws_seen = (Recorder(), Recorder())
    watched = Recorder()
    tasks = [
        asyncio.create_task(follow(server.ws_url, p, match_id, ws_seen[seat]))
        for seat, p in enumerate(players)
    ]
    url = f"{server.ws_url}/v1/matches/{match_id}/watch"
    tasks.append(asyncio.create_task(spectate(url, watched)))
    await wait_for(lambda: all(r.messages for r in (*ws_seen, watched)))
    rng = random.Random(4)
    washes = moves_after = 0
    for _ in range(200):  # three washes, then a few moves into the next hand
        if moves_after >= 6:
            break
        for seat, player in enumerate(players):
            answer = await player.view(match_id)
            seen[seat].add(answer["version"], answer["view"])
            if not answer["view"]["legal"]:
                continue
            action = without_ending(answer["view"], rng, take=washes < 3)
            reply = await player.act(match_id, action, answer["version"])
            assert reply.status_code == 200, reply.text
            seen[seat].add_action_response(reply.json())
            washes += sum(e["event"]["type"] == "hand_washed" for e in reply.json()["events"])
            moves_after += washes >= 3 and answer["view"]["phase"] != "hand_over"
    assert washes >= 3 and moves_after >= 6, (washes, moves_after)
    resigned = await guest.act(match_id, {"type": "resign"})
    assert resigned.status_code == 200, resigned.text
    seen[1].add_action_response(resigned.json())
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    states = states_by_version((await host.events(match_id))["events"])
    assert states[max(states)].phase == "match_over"
    for seat in (0, 1):
        assert seen[seat].assert_no_leaks(states, seat) > 10
        assert ws_seen[seat].assert_no_leaks(states, seat) > 10
    assert watched.assert_no_leaks(states, seat=None) > 10
    await host.close()
    await guest.close()
