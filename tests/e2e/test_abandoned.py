"""A rated match abandoned by both players, on a real server: not rated, and it says so.

Playing one out through the server would take a hundred one-second turns (the move clock's
floor is ``MIN_CLOCK_MS``, and no setting lowers it), so the match is decided by the domain
as the server's timer would decide it (``decide_timeout`` at each deadline, every turn of
both seats) and written to the server's own database; the server then reads it as any
match: its seats' and a spectator's views, the socket frames, the event log, the ratings.
"""

from __future__ import annotations

import pytest
import websockets

from domain.clock import ClockState, TimeOut, advance, deadline, decide_timeout
from domain.commands import StartMatch
from domain.events import Event, MatchSettled
from domain.match import apply, evolve
from domain.rules import PRESETS, Clock
from domain.seeds import ClientSeed
from infra.store import open_store
from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.test_absence import Socket
from tests.e2e.test_openapi_conformance import Checker

NEXT_HAND_MS = 30_000


def both_away(match_id: str, players: tuple[str, str], start_ms: int) -> list[Event]:
    """The log of a rated match whose every turn timed out: the house AI played both seats."""
    state, events = apply(
        None,
        StartMatch(
            match_id=match_id,
            players=players,
            rules=PRESETS["arcadia"],
            seed=f"server-seed-{match_id}",
            client_seeds=(
                ClientSeed("a", players[0], start_ms),
                ClientSeed("b", players[1], start_ms),
            ),
            seed_committed_ms=start_ms,
            hints=False,
            rated=True,
            clock=Clock(per_move_ms=1000),
        ),
    )
    clock: ClockState | None = None
    for event in events:
        clock = advance(clock, state, event, start_ms)
    while state.settlement is None:
        assert clock is not None
        due = deadline(state, clock, NEXT_HAND_MS)
        assert due is not None
        for event in (made := decide_timeout(state, clock, TimeOut(due.at_ms, NEXT_HAND_MS))):
            state = evolve(state, event)
            clock = advance(clock, state, event, due.at_ms)
        events.extend(made)
    return events


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_match_abandoned_by_both_players_is_not_rated_and_says_so(
    server: ServerProcess,
) -> None:
    ann = await Player.create(server.url, "Ann")
    bob = await Player.create(server.url, "Bob")
    try:
        match_id = "abandoned-by-both"
        events = both_away(match_id, (ann.id, bob.id), 1_700_000_000_000)
        settled = events[-1]
        assert isinstance(settled, MatchSettled) and settled.abandoned
        store = await open_store(server.database_url, migrate=False)
        try:
            await store.append(match_id, 0, events)
        finally:
            await store.close()

        check = Checker()
        for player, seat in ((ann, 0), (bob, 1)):
            answer = await player.client.get(f"/v1/matches/{match_id}")
            check.check(answer, "/v1/matches/{match_id}")
            body = answer.json()
            assert (body["seat"], body["rated"]) == (seat, True)
            assert body["view"]["settlement"]["abandoned"] is True
            rating = await player.client.get(f"/v1/players/{player.id}/rating")
            check.check(rating, "/v1/players/{player_id}/rating")
            record = rating.json()
            assert record["history"] == [] and round(record["rating"]) == 1500, record
        watched = await ann.client.get(f"/v1/matches/{match_id}/spectator")
        check.check(watched, "/v1/matches/{match_id}/spectator")
        assert watched.json()["view"]["settlement"]["abandoned"] is True
        log = await ann.events(match_id)
        assert log["events"][-1]["event"]["type"] == "match_settled"
        assert log["events"][-1]["event"]["abandoned"] is True

        # the socket frames say it too, and conform to asyncapi.yaml
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={ann.token}"
        async with websockets.connect(live) as ws:
            frame = await Socket(ws, "live", "receiveFeed").until(lambda f: f["type"] == "snapshot")
        assert frame["view"]["settlement"]["abandoned"] is True
        async with websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as ws:
            frame = await Socket(ws, "watch", "receiveWatch").until(
                lambda f: f["type"] == "snapshot"
            )
        assert frame["view"]["settlement"]["abandoned"] is True
    finally:
        await ann.close()
        await bob.close()
