"""The hidden-information oracle: which cards may seat 0 know at each version?

Built from the complete log (fetched once the match is over), independently of the
server's redaction code: a seat may know its own cards, every card shown face up
(the up-card, discards, cards taken from the pile, a knock's melds and deadwood,
layoffs) and, once a hand has ended, that whole deck. Every string in a message that
names any other card is a leak. Reports of ended hands (``last_result``,
``settlement``, ``hand_scored``/``hand_washed`` events) reveal a previous deck by
design, so they are checked for what they are, not scanned.
"""

from __future__ import annotations

import json
from typing import Any

from domain.cards import DECK
from domain.events import decode_event
from domain.match import evolve
from domain.state import MatchState

CARDS = frozenset(DECK)
END_OF_HAND = {"hand_scored", "hand_washed", "match_settled"}


def states_by_version(complete_events: list[dict[str, Any]]) -> dict[int, MatchState]:
    states: dict[int, MatchState] = {}
    state: MatchState | None = None
    for item in complete_events:
        state = evolve(state, decode_event(json.dumps(item["event"])))
        states[item["version"]] = state
    return states


def knowable(state: MatchState, seat: int | None) -> frozenset[str]:
    """What ``seat`` may know (``None``: a spectator, who holds no hand at all)."""
    hand = state.hand
    if hand is None or state.phase in ("hand_over", "match_over"):
        return CARDS
    known = set(hand.pile) | {hand.up_card}
    if seat is not None:
        known |= set(hand.hands[seat])
    for move in hand.moves:
        if move.card is not None and (move.seat == seat or move.action != "draw_stock"):
            known.add(move.card)
    for other in (0, 1):
        if other != seat:
            known |= set(hand.known[other])
    if hand.knock is not None:
        known |= set(hand.knock.deadwood)
        if hand.knock.discard:
            known.add(hand.knock.discard)
        for meld in hand.knock.melds:
            known |= set(meld)
    for card, _ in hand.layoffs:
        known.add(card)
    return frozenset(known)


def _strings(value: Any, skip: frozenset[str]) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item, skip)]
    if isinstance(value, dict):
        if value.get("type") in END_OF_HAND:
            return []
        return [s for key, item in value.items() if key not in skip for s in _strings(item, skip)]
    return []


SKIP = frozenset({"last_result", "settlement"})


def named(message: Any) -> set[str]:
    """Cards named in ``message``, but for the reports of ended hands."""
    return {s for s in _strings(message, SKIP) if s in CARDS}


def leaks(message: Any, state: MatchState, seat: int | None) -> set[str]:
    """Cards named in ``message`` that ``seat`` may not know in ``state``."""
    return named(message) - knowable(state, seat)


def check_secrets_blank(message: Any) -> None:
    """Deck, salt and seed never appear while they are secret."""
    if isinstance(message, dict):
        kind = message.get("type")
        if kind == "dealt":
            assert message.get("deck") is None and message.get("salt") is None, message
        if kind == "match_started":
            assert message.get("seed") is None, message
            assert message.get("watch_code") is None, message
        for key, item in message.items():
            if key not in SKIP:
                check_secrets_blank(item)
    elif isinstance(message, list):
        for item in message:
            check_secrets_blank(item)


class Recorder:
    """Everything one seat received, each with the version it claims to be at."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, Any]] = []

    def add(self, version: int, message: Any) -> None:
        self.messages.append((version, message))

    def add_action_response(self, body: dict[str, Any]) -> None:
        self.add(body["version"], body["view"])
        for item in body.get("events", []):
            self.add(item["version"], item["event"])

    def assert_no_leaks(self, states: dict[int, MatchState], seat: int | None = 0) -> int:
        for version, message in self.messages:
            check_secrets_blank(message)
            leaked = leaks(message, states[version], seat)
            assert not leaked, f"version {version} leaked {sorted(leaked)}: {message}"
        return len(self.messages)
