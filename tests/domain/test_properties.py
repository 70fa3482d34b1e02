"""Properties of whole random matches: replay, card conservation, and hidden information.

Matches are played by random legal commands (``builders.random_command``) under every
preset, with a lowered target so each example stays small. The knowledge a seat may
have is tracked here, independently of ``domain.views``, from the full event log.
"""

from __future__ import annotations

import random
import re

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import DECK, Card
from domain.commands import StartMatch
from domain.events import (
    Dealt,
    Discarded,
    Drew,
    Event,
    HandScored,
    HandWashed,
    Knocked,
    LaidOff,
    MatchSettled,
    MatchStarted,
    UpCardTaken,
    decode_event,
    encode_event,
)
from domain.match import apply, evolve, fold
from domain.rules import make_rules
from domain.state import MatchState
from domain.views import player_view, redact
from tests.domain import brute
from tests.domain.builders import random_command

CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')

matches = st.tuples(
    st.integers(0, 2**32),
    st.sampled_from(["arcadia", "arkadium", "classic"]),
    st.sampled_from([0.0, 0.4, 0.8, 1.0]),
)


def secret(seed: int) -> str:
    return f"secret-seed-{seed}"


def play_match(seed: int, preset: str, prefer_knock: float) -> list[Event]:
    """The event log of one random match (target 40; at most 4000 events)."""
    rng = random.Random(seed)
    start = StartMatch(
        match_id=f"m{seed}",
        players=("north", "south"),
        rules=make_rules(preset, target=40),
        seed=secret(seed),
    )
    state, log = apply(None, start)
    while state.settlement is None and len(log) < 4000:
        state, events = apply(state, random_command(state, rng, prefer_knock))
        log.extend(events)
    return log


def card_tokens(data: bytes) -> set[Card]:
    return set(CARD_TOKEN.findall(data.decode()))


class Knowledge:
    """What each seat (and a spectator, ``None``) may know about the current hand."""

    def __init__(self) -> None:
        self.known: dict[int | None, set[Card]] = {0: set(), 1: set(), None: set()}

    def public(self, *cards: Card | None) -> None:
        for known in self.known.values():
            known.update(c for c in cards if c is not None)

    def learn(self, event: Event) -> None:
        if isinstance(event, Dealt):
            assert event.deck is not None
            non_dealer, dealer = event.deck[0:20:2], event.deck[1:20:2]
            own = {event.dealer: dealer, 1 - event.dealer: non_dealer}
            self.known = {0: set(own[0]), 1: set(own[1]), None: set()}
            self.public(event.up_card)
        elif isinstance(event, (UpCardTaken, Discarded, LaidOff)):
            self.public(event.card)
        elif isinstance(event, Drew):
            if event.source == "discard":
                self.public(event.card)
            else:
                assert event.card is not None
                self.known[event.seat].add(event.card)
        elif isinstance(event, Knocked):
            self.public(event.discard, *event.deadwood, *(c for m in event.melds for c in m))
        elif isinstance(event, (HandScored, HandWashed)):
            self.public(*event.deck)


# --- replay ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(matches)
def test_replaying_the_log_reproduces_the_state(match: tuple[int, str, float]) -> None:
    seed, preset, prefer_knock = match
    rng = random.Random(seed)
    start = StartMatch(
        match_id="m", players=("n", "s"), rules=make_rules(preset, target=40), seed=secret(seed)
    )
    state, log = apply(None, start)
    replayed = fold(decode_event(encode_event(e)) for e in log)
    assert replayed == state
    while state.settlement is None and len(log) < 4000:
        state, events = apply(state, random_command(state, rng, prefer_knock))
        log.extend(events)
        for event in events:
            wire = encode_event(event)
            assert decode_event(wire) == event
            replayed = evolve(replayed, decode_event(wire))
        assert replayed == state
        assert state.version == len(log)
    assert fold(log) == state
    assert msgspec.json.encode(fold(log)) == msgspec.json.encode(state)


# --- card conservation ---------------------------------------------------------------------


def check_conservation(state: MatchState) -> None:
    hand = state.hand
    assert hand is not None
    laid = [card for card, _ in hand.layoffs]
    everywhere = [*hand.hands[0], *hand.hands[1], *hand.stock, *hand.pile, *laid]
    assert sorted(everywhere) == sorted(DECK)
    if hand.knock is not None:
        knocker = hand.hands[hand.knock.seat]
        shown = {c for meld in hand.knock_melds for c in meld} | set(hand.knock.deadwood)
        assert shown <= set(knocker) | set(laid)
    sizes = sorted(len(h) for h in hand.hands)
    if hand.phase in ("up_card", "draw"):
        assert sizes == [10, 10]
    if hand.phase == "discard":
        assert len(hand.hands[hand.turn]) == 11 and len(hand.hands[1 - hand.turn]) == 10


@settings(max_examples=25, deadline=None)
@given(matches)
def test_every_card_is_in_exactly_one_place_after_every_event(
    match: tuple[int, str, float],
) -> None:
    state: MatchState | None = None
    for event in play_match(*match):
        state = evolve(state, event)
        if state.hand is not None:
            check_conservation(state)


# --- hidden information ---------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(matches)
def test_a_player_view_holds_only_cards_the_seat_may_know(match: tuple[int, str, float]) -> None:
    seed = match[0]
    knowledge = Knowledge()
    state: MatchState | None = None
    for event in play_match(*match):
        state = evolve(state, event)
        knowledge.learn(event)
        if state.hand is None:
            continue
        for seat in (0, 1):
            view = player_view(state, seat)
            assert view.hand == state.hand.hands[seat]
            assert view.opponent_card_count == len(state.hand.hands[1 - seat])
            assert view.stock_size == len(state.hand.stock)
            body = msgspec.to_builtins(view)
            previous = body.pop("last_result")
            if previous is not None:  # a finished hand, wholly public
                assert previous["hand_number"] <= state.hand.number
            if previous is not None and previous["hand_number"] == state.hand.number:
                body["last_result"] = previous
            wire = msgspec.json.encode(body)
            leaked = card_tokens(wire) - knowledge.known[seat]
            assert not leaked, f"seat {seat} sees {leaked} after {event}"
            if state.settlement is None:
                assert secret(seed).encode() not in msgspec.json.encode(view)
            if state.phase not in ("hand_over", "match_over"):
                assert state.hand.salt.encode() not in wire


@settings(max_examples=20, deadline=None)
@given(matches)
def test_redacted_events_hide_the_opponents_cards_and_the_deck(
    match: tuple[int, str, float],
) -> None:
    seed = match[0]
    knowledge = Knowledge()
    for event in play_match(*match):
        knowledge.learn(event)
        for seat in (0, 1, None):
            shown = redact(event, seat)
            wire = encode_event(shown)
            assert decode_event(wire) == shown
            leaked = card_tokens(wire) - knowledge.known[seat]
            assert not leaked, f"{seat} sees {leaked} in {shown}"
            if not isinstance(event, MatchSettled):
                assert secret(seed).encode() not in wire
            if isinstance(event, MatchStarted):
                assert shown.seed is None  # type: ignore[attr-defined]
            if isinstance(event, Dealt):
                assert isinstance(shown, Dealt)
                assert shown.deck is None and shown.salt is None
                expected = None if seat is None else set(knowledge.known[seat]) - {event.up_card}
                assert (set(shown.hand) if shown.hand is not None else None) == expected
            if isinstance(event, Drew) and event.source == "stock":
                assert isinstance(shown, Drew)
                assert (shown.card is not None) == (seat == event.seat)


# --- scoring, recomputed from the rules table ---------------------------------------------

TABLE = {  # docs/rules.md presets: gin, undercut, big gin, box, match, shutout bonus
    "arcadia": (25, 25, None, 25, 100, None),
    "arkadium": (20, 10, None, 20, 100, 200),
    "classic": (25, 25, 31, 25, 0, None),
}


@settings(max_examples=25, deadline=None)
@given(matches)
def test_every_score_and_settlement_follows_the_rules_table(
    match: tuple[int, str, float],
) -> None:
    _, preset, _ = match
    gin, undercut, big_gin, box, match_bonus, shutout = TABLE[preset]
    state: MatchState | None = None
    scores, boxes, dealer = [0, 0], [0, 0], None
    for event in play_match(*match):
        before = state
        state = evolve(state, event)
        if isinstance(event, Dealt):
            last = before.last_result if before is not None else None
            if isinstance(last, HandScored):
                assert event.dealer == 1 - last.winner  # the loser deals
            elif isinstance(last, HandWashed):
                assert event.dealer == dealer  # a wash: the same dealer again
            dealer = event.dealer
        if isinstance(event, HandScored):
            assert before is not None and before.hand is not None
            knocker, defender = event.knocker, 1 - event.knocker
            laid = [card for card, _ in before.hand.layoffs]
            defender_left = [c for c in before.hand.hands[defender] if c not in laid]
            k = brute.deadwood(before.hand.hands[knocker])  # 10 cards, or 11 for big gin
            d = brute.deadwood(defender_left)
            assert (event.knocker_deadwood, event.defender_deadwood) == (k, d)
            if event.outcome in ("gin", "big_gin"):
                assert k == 0 and not laid
                bonus = gin if event.outcome == "gin" else big_gin
                assert bonus is not None
                expected = (knocker, bonus + d)
            elif k < d:
                expected = (knocker, d - k)
            else:
                expected = (defender, k - d + undercut)
            assert (event.winner, event.points) == expected
            scores[event.winner] += event.points
            boxes[event.winner] += 1
            assert event.scores == tuple(scores) and event.boxes == tuple(boxes)
        if isinstance(event, MatchSettled):
            assert max(scores) >= 40 > min(scores)
            reached = scores.index(max(scores))
            totals = [scores[0] + box * boxes[0], scores[1] + box * boxes[1]]
            if preset == "classic":
                winner = reached if totals[0] == totals[1] else totals.index(max(totals))
            else:
                winner = reached
            bonus = shutout if shutout is not None and boxes[1 - winner] == 0 else match_bonus
            totals[winner] += bonus
            assert event.winner == winner
            assert event.totals == tuple(totals)
            assert event.box_points == (box * boxes[0], box * boxes[1])
