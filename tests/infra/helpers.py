"""Small builders shared by the infra tests."""

from __future__ import annotations

import random
import uuid

from domain.commands import StartMatch
from domain.events import Event, UpCardPassed
from domain.match import apply, legal_commands
from domain.rules import make_rules


def stream() -> str:
    """A stream id no other test uses."""
    return f"m-{uuid.uuid4().hex[:12]}"


def batch(n: int = 1, seat: int = 0) -> list[Event]:
    """``n`` small events; the store does not judge game legality, only order and identity."""
    return [UpCardPassed(seat=seat) for _ in range(n)]


def random_match(
    seed: int, match_id: str | None = None, players: tuple[str, str] = ("p1", "ai:easy")
):
    """A whole random legal match as (final state, list of per-command event batches)."""
    rng = random.Random(seed)
    state, events = apply(
        None,
        StartMatch(
            match_id=match_id or stream(),
            players=players,
            rules=make_rules(rng.choice(["arcadia", "arkadium", "classic"])),
            seed=str(seed),
        ),
    )
    batches = [events]
    while state.settlement is None:
        seat = rng.choice(state.to_act())
        state, events = apply(state, rng.choice(legal_commands(state, seat)))
        batches.append(events)
    return state, batches
