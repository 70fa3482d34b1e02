"""Hard's shortcuts for "what can a hand reach after one more card" give the brute-force answers."""

from __future__ import annotations

import random

from domain.ai import hard, knowledge, opponent, tactics
from domain.ai.clock import Clock
from domain.ai.knowledge import Knowledge
from domain.ai.opponent import Guess
from domain.cards import CARD_INDEX, CARD_VALUE
from domain.melds import deadwood_of_mask
from domain.views import player_view
from tests.domain.ai.positions import random_positions


def _brute_best_after(mask: int, index: int) -> int:
    full = mask | 1 << index
    return min(deadwood_of_mask(full & ~(1 << i)) for i in range(52) if mask >> i & 1)


def _random_hand(rng: random.Random) -> tuple[int, int]:
    cards = rng.sample(range(52), 11)
    return sum(1 << c for c in cards[:10]), cards[10]


def test_best_after_matches_brute_force_and_is_exact_up_to_the_limit() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        mask, index = _random_hand(rng)
        expected = _brute_best_after(mask, index)
        assert hard._best_after(mask, index) == expected
        limit = rng.choice([0, 5, 10, 20])
        bounded = hard._best_after(mask, index, limit)
        if expected <= limit:
            assert bounded == expected
        else:
            assert bounded > limit


def _meld_rich_hand(rng: random.Random) -> tuple[int, int]:
    """A run of five, five random cards, and one more card: often close to a knock."""
    suit = rng.randrange(4)
    start = rng.randrange(8)
    run = [suit * 13 + r for r in range(start, start + 5)]
    rest = rng.sample([c for c in range(52) if c not in run], 6)
    return sum(1 << c for c in run + rest[:5]), rest[5]


def test_can_knock_after_matches_brute_force_on_meld_rich_hands() -> None:
    rng = random.Random(4)
    reachable = 0
    for _ in range(2000):
        mask, index = _meld_rich_hand(rng)
        for limit in (0, 5, 10):
            expected = _brute_best_after(mask, index) <= limit
            assert hard._can_knock_after(mask, index, limit) == expected
            reachable += expected
    assert reachable > 100  # the hands do reach a knock often enough to test both answers


def test_knock_chance_is_the_share_of_stock_cards_that_bring_a_knock() -> None:
    # One guess with a random hand: the chance is exactly the share of the cards it
    # may draw from the stock after which it can knock.
    rng = random.Random(5)
    positive = 0
    for _ in range(50):
        hand, _ = _meld_rich_hand(rng)
        mine_cards = [c for c in rng.sample(range(52), 30) if not hand >> c & 1][:10]
        mine = sum(1 << c for c in mine_cards)
        unseen = ((1 << 52) - 1) & ~mine
        know = Knowledge(
            mine=mine,
            pile=0,
            opponent_known=0,
            unseen=unseen,
            hidden_count=10,
            stock_size=31,
            opponent_threw=0,
            opponent_passed=0,
            opponent_took=0,
            knock_limit=10,
        )
        stock = [c for c in range(52) if unseen >> c & 1 and not hand >> c & 1]
        expected = sum(1 for c in stock if _brute_best_after(hand, c) <= 10) / len(stock)
        got = hard.knock_chance(know, [Guess(hand, 1.0)], 10, Clock(None))
        assert abs(got - expected) < 1e-9
        positive += expected > 0
    assert positive > 10


def test_the_hold_price_reports_the_same_knock_chance_as_knock_chance() -> None:
    # The discard after a hold reuses the hold's knock chance instead of working it
    # out again, so the two must agree on every position where a knock is possible.
    compared = 0
    for state, seat in random_positions(seed=8, count=4000):
        view = player_view(state, seat)
        if view.phase != "discard" or not tactics.knocks(view):
            continue
        know = knowledge.read(view)
        hands = opponent.guesses(know, random.Random(1), 8, Clock(None))
        knock = min(tactics.knocks(view), key=lambda k: CARD_VALUE[k.card])
        rest = know.mine & ~(1 << CARD_INDEX[knock.card])
        _, chance = hard.hold_value(know, hands, rest, 0.0, view, Clock(None))
        assert chance == hard.knock_chance(know, hands, view.knock_limit, Clock(None))
        compared += 1
    assert compared > 20
