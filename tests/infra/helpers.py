"""Small builders shared by the infra tests."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from domain.clock import ClockState, TimeOut, advance, deadline, decide_timeout
from domain.commands import AnySeatCommand, BigGin, Discard, Gin, Knock, StartMatch
from domain.events import Event, UpCardPassed
from domain.match import apply, evolve, legal_commands
from domain.melds import best_discard
from domain.rules import PRESETS, Clock, make_rules
from domain.seeds import ClientSeed
from domain.state import MatchState
from domain.table import TableOpened
from infra.projections.lobby import TABLE_STREAM_PREFIX
from infra.sql_event_store import SqlEventStore


@contextmanager
def statements(store: SqlEventStore, table: str) -> Iterator[list[str]]:
    """The statements naming ``table`` that the store's engine runs inside the block
    (SQLite's BEGIN and the like are not counted)."""
    seen: list[str] = []

    def note(*args: Any) -> None:
        if table in args[2]:
            seen.append(args[2])

    event.listen(store.engine.sync_engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", note)


def stream() -> str:
    """A stream id no other test uses."""
    return f"m-{uuid.uuid4().hex[:12]}"


def batch(n: int = 1, seat: int = 0) -> list[Event]:
    """``n`` small events; the store does not judge game legality, only order and identity."""
    return [UpCardPassed(seat=seat) for _ in range(n)]


def random_match(
    seed: int,
    match_id: str | None = None,
    players: tuple[str, str] = ("p1", "ai:easy"),
    practice: bool = False,
):
    """A whole random legal match as (final state, list of per-command event batches).

    A fair deal (client seeds) unless ``practice``: then one chosen seed deals it."""
    rng = random.Random(seed)
    seeds = (ClientSeed(f"c{seed}", players[0], 1), ClientSeed(f"d{seed}", players[1], 1))
    state, events = apply(
        None,
        StartMatch(
            match_id=match_id or stream(),
            players=players,
            rules=make_rules(rng.choice(["arcadia", "arkadium", "classic"])),
            seed=str(seed),
            client_seeds=None if practice else seeds,
            seed_committed_ms=None if practice else 0,
        ),
    )
    batches = [events]
    while state.settlement is None:
        seat = rng.choice(state.to_act())
        state, events = apply(state, _choose(rng, state, seat))
        batches.append(events)
    return state, batches


def _choose(rng: random.Random, state: MatchState, seat: int) -> AnySeatCommand:
    """Mostly sensible, sometimes random: knock when possible, usually discard well.

    Purely random play rarely knocks and washes hand after hand (10 000+ events a
    match); this keeps matches to a few hundred events while covering every event type.
    """
    legal = legal_commands(state, seat)
    finishing = [c for c in legal if isinstance(c, (Knock, Gin, BigGin))]
    if finishing and rng.random() < 0.8:
        return rng.choice(finishing)
    discarding = state.hand is not None and any(isinstance(c, Discard) for c in legal)
    if discarding and state.hand is not None and rng.random() < 0.8:
        card, _ = best_discard(state.hand.hands[seat], exclude=state.hand.taken)
        return Discard(seat, card)
    return rng.choice(legal)


async def append_batches(store, match_id: str, batches, start: int = 0) -> int:
    """Append per-command batches to a stream from version ``start``; returns the version."""
    version = start
    for events in batches:
        result = await store.append(match_id, version, events)
        version = result.last_version
    return version


OPENED_MS = 1_000_000


async def open_table(store: SqlEventStore, clock: Clock | None) -> str:
    """A public table opened at OPENED_MS for a minute, as the table service records one."""
    table_id = uuid.uuid4().hex
    opened = TableOpened(
        table_id=table_id,
        host="host",
        rules=make_rules("classic"),
        private=False,
        opened_ms=OPENED_MS,
        expires_ms=OPENED_MS + 60_000,
        clock=clock,
    )
    await store.append(TABLE_STREAM_PREFIX + table_id, 0, [opened])
    return table_id


def arcadia_start(
    players: tuple[str, str],
    rated: bool = True,
    clock: Clock | None = None,
    match_id: str | None = None,
    at_ms: int = 0,
) -> StartMatch:
    """An arcadia match of ``players`` started at ``at_ms``, dealt from its id (a stream
    of its own unless ``match_id`` is given)."""
    match_id = match_id or stream()
    return StartMatch(
        match_id=match_id,
        players=players,
        rules=PRESETS["arcadia"],
        seed=match_id,
        client_seeds=(
            ClientSeed("a", players[0], at_ms + 1),
            ClientSeed("b", players[1], at_ms + 1),
        ),
        seed_committed_ms=at_ms,
        hints=False,
        rated=rated,
        clock=clock,
    )


def both_away(
    players: tuple[str, str], match_id: str | None = None, start_ms: int = 0
) -> tuple[str, list[Event]]:
    """A rated match under a move clock that neither player touches: every turn times
    out, the house AI plays both seats to the end, and the settlement is abandoned. The
    log the server's timer would write (the end-to-end tests store it as it is)."""
    start = arcadia_start(players, clock=Clock(per_move_ms=1000), match_id=match_id, at_ms=start_ms)
    match_id = start.match_id
    state, events = apply(None, start)
    clock: ClockState | None = None
    for recorded in events:
        clock = advance(clock, state, recorded, start_ms)
    while state.settlement is None:
        assert clock is not None
        due = deadline(state, clock, 30_000)
        assert due is not None
        made = decide_timeout(state, clock, TimeOut(due.at_ms, 30_000))
        for recorded in made:
            state = evolve(state, recorded)
            clock = advance(clock, state, recorded, due.at_ms)
        events.extend(made)
    return match_id, events


def ids(*names: str) -> list[str]:
    """Fresh match and player ids: a PostgreSQL test database outlives one test."""
    return [f"{name}-{uuid.uuid4().hex[:8]}" for name in names]
