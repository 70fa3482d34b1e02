"""A random legal match always ends settled and its log rebuilds the same state."""

import random

from domain.commands import StartMatch
from domain.match import apply, fold, legal_commands
from domain.rules import make_rules


def test_random_match_settles_and_replays() -> None:
    rng = random.Random(7)
    state, log = apply(
        None, StartMatch(match_id="m", players=("a", "b"), rules=make_rules(), seed="7")
    )
    log = list(log)
    while state.settlement is None:
        seat = rng.choice(state.to_act())
        state, events = apply(state, rng.choice(legal_commands(state, seat)))
        log.extend(events)
    assert max(state.scores) >= 100
    assert fold(log) == state
