"""Every view is blind to the cards it may not show: deal them again, get the same bytes.

``tests/domain/ai/test_hidden_cards.py`` checks this for the seat to act, as the AI
sees it. A view is also read by the seat that waits (the knocker while the defender
lays off, above all: the defender's cards are still hidden from it) and by spectators,
and its exact bytes are what an answer's size and any cache or validator are made of,
so here each view of every random position is encoded and compared byte for byte.
"""

from __future__ import annotations

import random

import msgspec
from msgspec.structs import replace

from domain.cards import sort_cards
from domain.state import MatchState
from domain.views import player_view, spectator_view
from tests.domain.ai.positions import random_positions

IN_PLAY = ("up_card", "draw", "discard", "layoff")


def dealt_again(state: MatchState, hidden_hands: tuple[int, ...], rng: random.Random) -> MatchState:
    """``state`` with the stock and the unshown cards of ``hidden_hands`` dealt again.

    A hand keeps the cards it took face up (``known``) and, once it has knocked, all of
    them: those are shown to everyone.
    """
    hand = state.hand
    assert hand is not None
    hands = list(hand.hands)
    pool = list(hand.stock)
    shown: dict[int, list[str]] = {}
    for seat in hidden_hands:
        knocked = hand.knock is not None and hand.knock.seat == seat
        shown[seat] = [c for c in hands[seat] if knocked or c in hand.known[seat]]
        pool += [c for c in hands[seat] if c not in shown[seat]]
    rng.shuffle(pool)
    for seat in hidden_hands:
        count = len(hands[seat]) - len(shown[seat])
        hands[seat], pool = sort_cards((*shown[seat], *pool[:count])), pool[count:]
    return replace(state, hand=replace(hand, hands=tuple(hands), stock=tuple(pool)))


def test_no_view_changes_when_the_cards_it_may_not_show_are_dealt_again() -> None:
    rng = random.Random(11)
    encode = msgspec.json.encode
    checked = moved = 0
    layoff_knocker = 0
    planned = 0
    for index, (state, _) in enumerate(random_positions(seed=29, count=1500)):
        if state.phase not in IN_PLAY:
            continue
        # Half with hints off: the defender is offered the best layoffs all the same.
        state = replace(state, hints=index % 2 == 0)
        for seat in (0, 1):
            shown = player_view(state, seat)
            hand = state.hand
            assert hand is not None
            defending = state.phase == "layoff" and hand.turn == seat
            # Only the defending seat's view carries a plan: never the knocker's.
            assert (shown.suggested_layoffs is not None) is defending, (state.hints, seat)
            planned += defending and not state.hints
            view = encode(shown)
            other = dealt_again(state, (1 - seat,), rng)
            assert encode(player_view(other, seat)) == view, (state.phase, seat)
            moved += other.hand != state.hand
            checked += 1
            layoff_knocker += hand.knock is not None and hand.knock.seat == seat
        watched = dealt_again(state, (0, 1), rng)
        assert encode(spectator_view(watched)) == encode(spectator_view(state)), state.phase
        checked += 1
    assert checked > 1500 and moved > checked // 2
    assert layoff_knocker > 20, "the knocker's view while the defender lays off was checked"
    assert planned > 10, "a defender's plan in a match without hints was checked"
