"""Replay: the state folded from stored events equals the live state, at every step."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest
from msgspec.structs import replace

from domain.commands import Discard, DrawDiscard, StartMatch, TakeUpCard
from domain.events import Event, MatchSettled, MatchStarted
from domain.match import apply, evolve
from domain.rules import make_rules
from domain.state import MatchState
from infra.errors import StreamNotFound
from infra.replay import load_match, render, render_replay, state_at
from infra.sql_event_store import SqlEventStore
from tests.domain.builders import dealt_event, deck_for
from tests.infra.helpers import _choose, both_away, stream

MATCHES = 200


@cache
def _played(seed: int) -> tuple[str, list[tuple[MatchState, list[Event]]]]:
    """A random match as the live server would see it: the state after each command."""
    rng = random.Random(seed)
    match_id = f"replay-{seed}"
    state, events = apply(
        None,
        StartMatch(
            match_id=match_id,
            players=("p", "ai:easy"),
            rules=make_rules(rng.choice(["arcadia", "arkadium", "classic"])),
            seed=f"s{seed}",
        ),
    )
    steps = [(state, events)]
    while state.settlement is None:
        state, events = apply(state, _choose(rng, state, rng.choice(state.to_act())))
        steps.append((state, events))
    return match_id, steps


async def test_replay_equals_live_state_for_hundreds_of_random_matches(
    store: SqlEventStore,
) -> None:
    rng = random.Random(99)
    for seed in range(MATCHES):
        match_id, steps = _played(seed)
        if seed < 2:  # as the server appends: one transaction per command
            version = 0
            for _, events in steps:
                version = (await store.append(match_id, version, events)).last_version
        else:  # whole match at once, to keep hundreds of matches quick
            await store.append(match_id, 0, [e for _, events in steps for e in events])
        # One pass over the stored log, compared with the live state after every command.
        live_after = {state.version: state for state, _ in steps}
        replayed: MatchState | None = None
        checked = 0
        for recorded in await load_match(store, match_id):
            replayed = evolve(replayed, recorded.event)
            if replayed.version in live_after:
                assert replayed == live_after[replayed.version]
                checked += 1
        assert checked == len(steps) and replayed == steps[-1][0]
        if seed % 25 == 0:  # and the public entry, at the end and at a random command
            assert await state_at(store, match_id) == steps[-1][0]
            live, _ = rng.choice(steps)
            assert await state_at(store, match_id, live.version) == live


async def _stored(
    store: SqlEventStore, seed: int
) -> tuple[str, list[tuple[MatchState, list[Event]]], list[Event]]:
    """A random match played to its end and appended: its id, steps and events."""
    match_id, steps = _played(seed)
    events = [e for _, batch in steps for e in batch]
    await store.append(match_id, 0, events)
    return match_id, steps, events


async def test_render_replay_numbers_every_event_and_stops_where_asked(
    store: SqlEventStore,
) -> None:
    match_id, steps, events = await _stored(store, 7)
    final = steps[-1][0]
    assert final.settlement is not None

    whole = await render_replay(store, match_id)
    numbers = [
        int(n) for n in re.findall(r"^\s+(\d+)\.|\(event (\d+)\)", whole, re.M) for n in n if n
    ]
    assert numbers == list(range(1, len(events) + 1))
    winner = final.players[final.settlement.winner]
    totals = final.settlement.totals
    assert f"match over: {winner} (seat {final.settlement.winner}) wins" in whole
    assert f"totals {totals[0]}-{totals[1]}" in whole
    assert whole.count("\nHand ") == final.hands_played

    at = 40
    partial = await render_replay(store, match_id, at)
    numbers = [
        int(n) for n in re.findall(r"^\s+(\d+)\.|\(event (\d+)\)", partial, re.M) for n in n if n
    ]
    assert numbers == list(range(1, at + 1))
    live = next(s for s, _ in steps if s.version >= at)
    assert f"Stopped after event {at} of {len(events)}." in partial
    assert live.version != at or f"Phase: {live.phase};" in partial


async def test_render_replay_stops_anywhere_even_before_the_first_deal(
    store: SqlEventStore,
) -> None:
    """Event 1 starts the match and event 2 deals: between them no hand exists yet."""
    match_id, _, events = await _stored(store, 8)
    first = await render_replay(store, match_id, 1)
    assert "Stopped after event 1 of" in first and "before the first deal" in first
    for at in range(2, len(events) + 1, 5):
        assert f"Stopped after event {at} of" in await render_replay(store, match_id, at)


async def test_replay_of_an_unknown_match_is_stream_not_found(store: SqlEventStore) -> None:
    with pytest.raises(StreamNotFound):
        await render_replay(store, stream())


def test_render_names_the_no_progress_wash() -> None:
    """A hand the no-progress rule washed reads as such, not as a stock wash."""
    rules = make_rules("arcadia", pile_draw_limit=3)
    started = MatchStarted(
        match_id="np", players=("p", "ai:easy"), rules=rules, seed_commitment="c", seed="s"
    )
    state = evolve(None, started)
    deal = dealt_event(
        state,
        deck_for("AC 3D 5H 7S 9C JD KH 2S 4D 6C", "QD 8H TS 2D 4H 6S 8C TC QS AH", "KS"),
        0,
    )
    state = evolve(state, deal)
    log: list[Event] = [started, deal]
    for command in (
        TakeUpCard(1),
        Discard(1, "6C"),
        DrawDiscard(0),
        Discard(0, "AH"),
        DrawDiscard(1),
        Discard(1, "KS"),
    ):
        state, events = apply(state, command)
        log.extend(events)
    assert state.phase == "hand_over"
    assert "3 face-up cards taken and nobody knocked" in render(log)


def test_render_says_a_match_abandoned_by_both_is_not_rated() -> None:
    """The operator's text of a match the house AI finished for both players says so;
    any other settlement says nothing of it."""
    _, log = both_away(("ann", "bob"))
    settled = log[-1]
    assert isinstance(settled, MatchSettled) and settled.abandoned
    assert "abandoned: both players were away" in render(log)
    rated = render([*log[:-1], replace(settled, abandoned=False)])
    assert "abandoned" not in rated
