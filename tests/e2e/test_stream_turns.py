"""Two players play a whole match from their player streams alone: each ``your_turn``
carries the match as that seat sees it, and neither reads the match over HTTP to move.

One plays over NDJSON, the other over the WebSocket. Every frame is checked against
asyncapi.yaml as it comes; each turn's match equals what ``GET /v1/matches/{id}`` answers
that seat at the same version; and once the match is over, every view a stream carried is
checked by the independent oracle (``secrecy.py``) against the complete log: the
opponent's hidden cards never appear on a stream."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import Recorder, knowable, named, states_by_version
from tests.e2e.tables import join, open_table, pick
from tests.e2e.test_stream_announcements import Heard, listening, over_ndjson, over_websocket

CLOCK = {"per_move_ms": 60_000}
RULES = {"preset": "arcadia", "target": 25}


def timeless(match: dict[str, Any]) -> dict[str, Any]:
    """A match without what the turn's frame leaves to GET (who sits where, how many
    watch) and without ``now_ms``, the server's time as each answered."""
    return {k: v for k, v in match.items() if k not in ("now_ms", "seats", "spectators")}


async def play_from_stream(
    player: Player, heard: Heard, seen: Recorder, rng: random.Random, compared: list[int]
) -> dict[str, Any]:
    """Act on each ``your_turn`` with its own view until ``match_finished``; every fourth
    turn, also read the match over HTTP to compare (never to decide the move)."""
    done = 0
    turns = 0
    while True:
        while done == len(heard.frames):
            await asyncio.sleep(0.01)
        frame = heard.frames[done]
        done += 1
        if frame["type"] == "match_finished":
            return frame
        if frame["type"] != "your_turn":
            continue
        match = frame["match"]
        assert (match["match_id"], match["version"]) == (frame["match_id"], frame["version"])
        seen.add(frame["version"], frame)
        turns += 1
        if turns % 4 == 1:
            answer = await player.view(frame["match_id"])
            if answer["version"] == frame["version"]:  # both may act between hands
                assert timeless(answer) == timeless(match)
                compared.append(frame["version"])
        if not match["view"]["legal"]:
            continue
        action = pick(match["view"], rng)
        reply = await player.act(frame["match_id"], action, frame["version"])
        assert reply.status_code in (200, 409), reply.text  # 409: the other seat moved first


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_two_players_play_a_match_from_their_streams_alone(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Streamer")
    guest = await Player.create(server.url, "Socketeer")
    heard = (Heard(), Heard())
    seen = (Recorder(), Recorder())
    compared: list[int] = []
    try:
        async with listening(
            over_ndjson(server.url, host.token, heard[0]),
            over_websocket(server.ws_url, guest.token, heard[1]),
        ):
            await asyncio.sleep(0.5)  # both streams open: each is present, and hears the start
            table = await open_table(host, rules=RULES, clock=CLOCK)
            joined = await join(guest, table["table_id"])
            assert joined.status_code == 200, joined.text
            match_id = joined.json()["match"]["match_id"]
            finished = await asyncio.wait_for(
                asyncio.gather(
                    *(
                        play_from_stream(p, heard[s], seen[s], random.Random(s), compared)
                        for s, p in enumerate((host, guest))
                    )
                ),
                120,
            )
            assert {f["match_id"] for f in finished} == {match_id}
        log = (await host.events(match_id))["events"]
        states = states_by_version(log)
        made_by = {item["version"]: item["event"] for item in log}
        turns = [f for h in heard for f in h.frames if f["type"] == "your_turn"]
        # Every turn was announced to its seat while it lasted: each version at which one
        # seat alone came to act, not being to act just before (between hands both may
        # act, and one already told of its turn there is not told again when the other
        # acknowledges first), was announced at a version of that same unbroken turn. A
        # random match may end in a handful of turns, so no count. Only a version the log
        # rested at is a turn: one inside an append (``at_rest``) waited for nobody.
        announced = {(f["match"]["seat"], f["version"]) for f in turns}
        waited = {
            (state.to_act()[0], version)
            for version, state in states.items()
            if (state.hand or state.settlement)
            and len(state.to_act()) == 1
            and version < max(states)
            and at_rest(made_by, version)
            and not (
                (states[version - 1].hand or states[version - 1].settlement)
                and state.to_act()[0] in states[version - 1].to_act()
            )
        }

        def stretch(seat: int, version: int) -> range:
            """The versions of that turn: the seat is to act at each, without a break (a
            stream woken late reads the newest, and announces the turn there)."""

            def acts(at: int) -> bool:
                state = states.get(at)
                return (
                    state is not None
                    and bool(state.hand or state.settlement)
                    and (seat in state.to_act())
                )

            first = last = version
            while acts(first - 1):
                first -= 1
            while acts(last + 1):
                last += 1
            return range(first, last + 1)

        unannounced = sorted(
            (seat, version)
            for seat, version in waited
            if not any((seat, at) in announced for at in stretch(seat, version))
        )
        assert waited and not unannounced, around(unannounced, states, turns, made_by)
        clocks = [f["match"]["view"]["clock"] for f in turns]
        assert all(c is not None and c["per_move_ms"] == 60_000 for c in clocks)
        assert all(isinstance(f["match"]["now_ms"], int) for f in turns)
        assert compared, "no turn was compared with GET"
        for s in (0, 1):
            mine = [f for f in heard[s].frames if f["type"] == "your_turn"]
            assert seen[s].assert_no_leaks(states, seat=s) == len(mine) > 0  # each checked
            assert {f["match"]["seat"] for f in mine} == {s}
            assert not opponents_hidden_cards(mine, states, s)
    finally:
        await host.close()
        await guest.close()


def at_rest(made_by: dict[int, dict[str, Any]], version: int) -> bool:
    """Whether the log rested at ``version``: the state there waited for a seat. Some
    commands append two events at once, and the state between them waits for no one: a
    gin (or big gin) is scored with its knock, and a discard that ends a hand unscored
    (the stock too small, or the no-progress limit reached) is washed with it."""
    made, after = made_by[version], made_by.get(version + 1)
    gin = made["type"] == "knocked" and made["kind"] != "knock"
    return not gin and not (after is not None and after["type"] == "hand_washed")


def around(
    unannounced: list[tuple[int, int]],
    states: dict[int, Any],
    turns: list[dict[str, Any]],
    made_by: dict[int, dict[str, Any]],
) -> str:
    """What a failure needs to be understood: each unannounced turn, the versions near
    it (phase, seats to act, the event that made it) and the turns its seat was told."""
    lines = [repr(unannounced)]
    for seat, version in unannounced:
        told = sorted(f["version"] for f in turns if f["match"]["seat"] == seat)
        lines.append(f"seat {seat} was told at {[v for v in told if abs(v - version) < 12]}")
        for at in range(version - 5, version + 4):
            if (state := states.get(at)) is not None:
                made = made_by[at]["type"]
                lines.append(f"  {at}: {made} -> {state.phase}, to act {state.to_act()}")
    return "\n".join(lines)


def opponents_hidden_cards(
    turns: list[dict[str, Any]], states: dict[int, Any], seat: int
) -> list[tuple[int, str]]:
    """The opponent's cards, held and not shown (taken from the pile, laid down after a
    knock), that a turn's frame names; a report of an ended hand shows that hand's deck
    by design, as the oracle knows."""
    found = []
    for frame in turns:
        state = states[frame["version"]]
        if state.hand is None or state.phase in ("hand_over", "match_over"):
            continue
        hidden = set(state.hand.hands[1 - seat]) - knowable(state, seat)
        found += [(frame["version"], card) for card in sorted(hidden & named(frame))]
    return found
