"""Build match states from hands chosen by the test, so expected numbers come from the rules.

A test names the two hands, the up-card and the top of the stock; ``deck_for`` lays
them out in the deal order of ``domain.deck.deal`` (non-dealer gets deck[0], deck[2],
... deck[18]; the dealer deck[1] ... deck[19]; deck[20] is the up-card; deck[21:] is
the stock, top first) and fills the rest of the stock in a fixed order. ``dealt``
folds a ``Dealt`` event with that deck into a state, exactly as the engine's own
``NextHand`` would, so everything after it goes through ``decide``.

This module is imported by other test packages (``tests/domain/ai``): keep it stable.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from domain.cards import DECK, Card, parse_cards
from domain.commands import (
    AnyCommand,
    AnySeatCommand,
    BigGin,
    Discard,
    Gin,
    Knock,
    LayOff,
    StartMatch,
)
from domain.deck import deck_commitment, seed_commitment
from domain.events import Dealt, Event, MatchStarted
from domain.match import apply, evolve, legal_commands
from domain.melds import best_discard
from domain.rules import Rules, knock_limit_for, make_rules
from domain.state import MatchState

TEST_SEED = "test-seed"
TEST_SALT = "test-salt"


def cards(text: str) -> tuple[Card, ...]:
    """``"AC 2C 3C"`` -> ``("AC", "2C", "3C")``, validated (no typos in a test hand)."""
    return parse_cards(text.split())


def deck_for(
    non_dealer: str | Sequence[Card],
    dealer: str | Sequence[Card],
    up_card: Card,
    stock_top: str | Sequence[Card] = (),
) -> tuple[Card, ...]:
    """A 52-card deck that deals exactly these hands, this up-card and this stock top."""
    first = cards(non_dealer) if isinstance(non_dealer, str) else tuple(non_dealer)
    second = cards(dealer) if isinstance(dealer, str) else tuple(dealer)
    top = cards(stock_top) if isinstance(stock_top, str) else tuple(stock_top)
    if len(first) != 10 or len(second) != 10:
        raise ValueError("each hand needs exactly ten cards")
    chosen = (*first, *second, up_card, *top)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"a card is used twice in {chosen}")
    rest = tuple(card for card in DECK if card not in chosen)
    deck: list[Card] = []
    for a, b in zip(first, second, strict=True):
        deck += [a, b]
    return (*deck, up_card, *top, *rest)


def started(rules: Rules | str = "arcadia", seed: str = TEST_SEED) -> MatchState:
    """A match that has started but has no hand dealt yet."""
    rule_set = make_rules(rules) if isinstance(rules, str) else rules
    return evolve(
        None,
        MatchStarted(
            match_id="test-match",
            players=("north", "south"),
            rules=rule_set,
            seed_commitment=seed_commitment(seed),
            seed=seed,
        ),
    )


def dealt_event(state: MatchState, deck: Sequence[Card], dealer: int) -> Dealt:
    """The Dealt event the engine would record for this deck as the next hand."""
    number = state.hand.number + 1 if state.hand is not None else 1
    full = tuple(deck)
    return Dealt(
        hand_number=number,
        dealer=dealer,
        up_card=full[20],
        knock_limit=knock_limit_for(state.rules, full[20]),
        commitment=deck_commitment(full, TEST_SALT),
        deck=full,
        salt=TEST_SALT,
    )


def dealt(state: MatchState, deck: Sequence[Card], dealer: int) -> MatchState:
    """The state with the next hand dealt from ``deck`` by ``dealer``."""
    return evolve(state, dealt_event(state, deck, dealer))


def new_hand(
    rules: Rules | str = "arcadia",
    *,
    dealer: int = 0,
    non_dealer_hand: str,
    dealer_hand: str,
    up_card: Card,
    stock_top: str = "",
) -> MatchState:
    """A fresh match whose first hand is exactly the one described."""
    deck = deck_for(non_dealer_hand, dealer_hand, up_card, stock_top)
    return dealt(started(rules), deck, dealer)


def play(state: MatchState, *commands: AnySeatCommand) -> tuple[MatchState, list[Event]]:
    """Apply commands in order through ``decide``; all events they caused, in order."""
    log: list[Event] = []
    for command in commands:
        state, events = apply(state, command)
        log.extend(events)
    return state, log


_ENDINGS = (Knock, Gin, BigGin, LayOff)


def random_command(
    state: MatchState, rng: random.Random, prefer_knock: float = 0.0
) -> AnySeatCommand:
    """A uniformly random legal command of a seat that may act.

    With probability ``prefer_knock`` the seat plays toward ending the hand: a knock,
    gin, big gin or layoff when one is legal, else the discard leaving the least
    deadwood; so hands end by knocking far more often than by a wash.
    """
    seat = rng.choice(state.to_act())
    legal = legal_commands(state, seat)
    if prefer_knock and rng.random() < prefer_knock:
        endings = [command for command in legal if isinstance(command, _ENDINGS)]
        if endings:
            return rng.choice(endings)
        hand = state.hand
        if hand is not None and hand.phase == "discard":
            return Discard(seat, best_discard(hand.hands[seat], hand.taken)[0])
    return rng.choice(legal)


def random_match(
    seed: int,
    rules: Rules | str = "arcadia",
    max_events: int = 100_000,
    prefer_knock: float = 0.0,
) -> Iterator[tuple[MatchState, list[Event]]]:
    """A whole match played by random legal commands (see ``random_command``).

    Yields the state after each command with the events it caused (the first yield is
    the start: MatchStarted and the first Dealt).
    """
    rng = random.Random(seed)
    rule_set = make_rules(rules) if isinstance(rules, str) else rules
    start: AnyCommand = StartMatch(
        match_id=f"random-{seed}", players=("north", "south"), rules=rule_set, seed=str(seed)
    )
    state, events = apply(None, start)
    yield state, events
    count = len(events)
    while state.settlement is None and count < max_events:
        state, events = apply(state, random_command(state, rng, prefer_knock))
        count += len(events)
        yield state, events
