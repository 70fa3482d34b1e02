"""The knocker's layout: the choice among least-deadwood layouts, checked and defaulted.

The issue's hand (issue 21, item 6): the knocker keeps AH 2C 2D 5D AS 2S 3S 3H 4H 5H.
Laid as (3H 4H 5H)(AS 2S 3S) the defender lays off 6H and 4S and undercuts for 27;
laid as (2C 2D 2S)(3H 4H 5H), also 10 deadwood, 4S has nowhere to go and the knocker
wins by 2.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from domain import errors
from domain.cards import DECK, sort_cards
from domain.commands import (
    Discard,
    DrawStock,
    FinishLayoffs,
    Gin,
    Knock,
    LayOff,
    PassUpCard,
    TakeUpCard,
)
from domain.events import HandScored, Knocked, decode_event
from domain.knock_layout import (
    KnockerKnowledge,
    check_layout,
    default_layout,
    lowest_layouts,
)
from domain.match import apply, decide, fold, legal_commands
from domain.melds import arrange, best_layoffs, deadwood_points, is_meld
from domain.state import MatchState
from domain.views import player_view
from tests.domain import brute
from tests.domain.builders import cards, new_hand, play, random_match

KNOCKER = "AH 2C 2D 5D AS 2S 3S 3H 4H 5H"  # seat 1, the non-dealer
DEFENDER = "6H 4S 7C 8C 9C JD QD KD 3D 5C"  # seat 0, the dealer: 18 deadwood
OTHER_DEFENDER = "7S 8S 6S TC JC QC 6D 7D KH QH"  # holds neither 6H nor 4S
OLD = (("3H", "4H", "5H"), ("AS", "2S", "3S"))
BLOCKING = (("2C", "2D", "2S"), ("3H", "4H", "5H"))
RECORDED = Path(__file__).parents[2] / "seeds" / "knock_layout_recorded_log.json"


def _about_to_knock(defender: str = DEFENDER) -> MatchState:
    """Both pass the up-card (9S), the knocker draws KS and may knock discarding it."""
    state = new_hand(
        dealer=0, non_dealer_hand=KNOCKER, dealer_hand=defender, up_card="9S", stock_top="KS"
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1))
    return state


def _knocked(events: list[object]) -> Knocked:
    return next(e for e in events if isinstance(e, Knocked))


def test_the_issues_hand_has_two_lowest_layouts_and_the_old_pick_comes_first() -> None:
    layouts = lowest_layouts(cards(KNOCKER))
    assert [layout.melds for layout in layouts] == [OLD, BLOCKING]
    assert layouts[0] == arrange(cards(KNOCKER))
    assert {layout.deadwood_points for layout in layouts} == {10}
    assert layouts[1].deadwood == ("5D", "AH", "AS", "3S")


def test_the_default_blocks_the_4s_and_the_knocker_wins_by_2() -> None:
    state = _about_to_knock()
    state, events = apply(state, Knock(1, "KS"))
    assert _knocked(events).melds == BLOCKING
    plan = best_layoffs(state.hand.hands[0], state.hand.knock_melds)  # type: ignore[union-attr]
    assert [card for card, _ in plan.layoffs] == ["6H"]
    state, events = play(state, *(LayOff(0, c, i) for c, i in plan.layoffs), FinishLayoffs(0))
    scored = events[-1]
    assert isinstance(scored, HandScored)
    assert (scored.outcome, scored.winner, scored.points) == ("knock", 1, 2)


def test_a_knocker_may_lay_the_other_layout_and_is_undercut_for_27() -> None:
    state = _about_to_knock()
    state, events = apply(state, Knock(1, "KS", layout=(("5H", "3H", "4H"), ("3S", "AS", "2S"))))
    assert _knocked(events).melds == OLD  # each meld in rank order, melds as arrange orders them
    assert _knocked(events).deadwood == ("2C", "2D", "5D", "AH")
    state, events = play(state, LayOff(0, "6H", 0), LayOff(0, "4S", 1), FinishLayoffs(0))
    scored = events[-1]
    assert isinstance(scored, HandScored)
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 27)


def test_the_view_offers_the_layouts_default_first_as_decide_lays_them() -> None:
    state = _about_to_knock()
    view = player_view(state, 1)
    (option,) = [o for o in view.knock_layouts if o.discard == "KS"]
    assert [layout.melds for layout in option.layouts] == [BLOCKING, OLD]
    assert _knocked(decide(state, Knock(1, "KS"))).melds == option.layouts[0].melds
    knocks = {c.card for c in view.legal if isinstance(c, Knock)}
    assert {o.discard for o in view.knock_layouts} == knocks
    assert player_view(state, 0).knock_layouts == ()  # the defender is not the one to act
    for other in view.knock_layouts:
        assert {card for layout in other.layouts for meld in layout.melds for card in meld} <= set(
            view.hand
        )


@pytest.mark.parametrize("defender", [DEFENDER, OTHER_DEFENDER])
def test_the_default_reads_only_what_the_knocker_knows(defender: str) -> None:
    """Same knocker, same public history, two defenders' hands: the same layout."""
    state = _about_to_knock(defender)
    assert _knocked(decide(state, Knock(1, "KS"))).melds == BLOCKING


def test_a_card_seen_taken_by_the_defender_is_a_certain_layoff() -> None:
    """(3C 3D 3S) or (2S 3S 4S), both 7 deadwood. The set exposes only 3H, so it is the
    default, unless the defender took 3H from the pile: then the run, whose 5S, 6S...
    and AS are only possible, leaves fewer live layoffs."""
    knocker = "3C 3D 3S 2S 4S 9H TH JH QH AC"
    defender = "KC KD 7C 8D 5C 6D TS JS 8C 2D"
    set_first = (("3C", "3D", "3S"), ("9H", "TH", "JH", "QH"))
    run = (("9H", "TH", "JH", "QH"), ("2S", "3S", "4S"))
    assert {layout.melds for layout in lowest_layouts(cards(knocker))} == {set_first, run}

    passed = new_hand(
        dealer=0, non_dealer_hand=knocker, dealer_hand=defender, up_card="3H", stock_top="KS"
    )
    passed, _ = play(passed, PassUpCard(1), PassUpCard(0), DrawStock(1))
    assert _knocked(decide(passed, Knock(1, "KS"))).melds == set_first

    taken = new_hand(
        dealer=0, non_dealer_hand=knocker, dealer_hand=defender, up_card="3H", stock_top="KS"
    )
    taken, _ = play(taken, PassUpCard(1), TakeUpCard(0), Discard(0, "KC"), DrawStock(1))
    assert taken.hand is not None and taken.hand.known[0] == ("3H",)
    assert _knocked(decide(taken, Knock(1, "KS"))).melds == run


BAD_LAYOUTS = {
    "a card not kept (the discard)": ((("KS", "3H", "4H", "5H"),), errors.InvalidLayout, "KS"),
    "a card not held at all": ((("6H", "3H", "4H", "5H"),), errors.InvalidLayout, "6H"),
    "a card twice": ((("3H", "4H", "5H"), ("3H", "3S", "2S")), errors.InvalidLayout, "twice"),
    "not a meld": ((("3H", "4H", "5D"),), errors.InvalidLayout, "not a set or a run"),
    "an empty meld": (((),), errors.InvalidLayout, "not a set or a run"),
    "not a card": ((("3H", "4H", "XX"),), errors.InvalidLayout, "not a card"),
    "more deadwood than the least": (
        (("3H", "4H", "5H"),),
        errors.LayoutNotLeastDeadwood,
        "leaves 16 deadwood; these cards can leave 10",
    ),
}


@pytest.mark.parametrize("name", list(BAD_LAYOUTS))
def test_a_bad_layout_is_refused_with_its_rule_and_records_nothing(name: str) -> None:
    layout, error, words = BAD_LAYOUTS[name]
    state = _about_to_knock()
    before = msgspec.json.encode(state)
    with pytest.raises(error, match=words) as caught:
        decide(state, Knock(1, "KS", layout=layout))
    assert caught.value.rule in ("invalid_layout", "layout_not_least_deadwood")
    assert caught.value.rule == error.rule
    assert msgspec.json.encode(state) == before


def test_more_deadwood_within_the_knock_limit_is_still_refused() -> None:
    """The rule book: the knocker shows the least-deadwood arrangement, never a worse one.
    Leaving 3S and 2S out of a meld gives 5 + 10 = 15 > 10, so take a hand where the worse
    layout stays under the limit: (AS 2S 3S) dropped for 6 more deadwood, 4 + 6 = 10."""
    knocker = "AS 2S 3S 4C 5C 6C 7D 8D 9D 4H"
    state = new_hand(
        dealer=0,
        non_dealer_hand=knocker,
        dealer_hand="KC KD 7C 8H 5H 6D TS JS 8C 2D",
        up_card="9S",
        stock_top="KS",
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1))
    with pytest.raises(
        errors.LayoutNotLeastDeadwood, match="leaves 10 deadwood; these cards can leave 4"
    ):
        decide(state, Knock(1, "KS", layout=(("4C", "5C", "6C"), ("7D", "8D", "9D"))))


def test_gin_takes_a_layout_too() -> None:
    knocker = "AC 2C 3C 4C 5C 6C 8D 9D TD JD"
    state = new_hand(
        dealer=0, non_dealer_hand=knocker, dealer_hand=OTHER_DEFENDER, up_card="9S", stock_top="KS"
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1))
    layout = (("AC", "2C", "3C"), ("4C", "5C", "6C"), ("8D", "9D", "TD", "JD"))
    events = decide(state, Gin(1, "KS", layout=layout))
    assert _knocked(events).melds == layout and _knocked(events).kind == "gin"
    with pytest.raises(errors.InvalidLayout):
        decide(state, Gin(1, "KS", layout=(("AC", "2C", "3C", "4C", "5C", "6C", "8D"),)))


def test_a_recorded_log_replays_to_its_recorded_layout() -> None:
    """A log the engine recorded before layouts existed (the old pick, an undercut for 27)
    folds to the same states: ``Knocked`` carries the melds, nothing is re-decided."""
    events = [decode_event(json.dumps(item)) for item in json.loads(RECORDED.read_text())]
    knock_at = next(i for i, e in enumerate(events) if isinstance(e, Knocked))
    before_knock = fold(events[:knock_at])
    after = fold(events)
    assert after.hand is not None and after.hand.knock is not None
    assert after.hand.knock.melds == OLD
    scored = after.last_result
    assert isinstance(scored, HandScored)
    assert (scored.outcome, scored.points, scored.layoffs) == (
        "undercut",
        27,
        (("6H", 0), ("4S", 1)),
    )
    assert after.scores == (27, 0)
    # The engine today would lay the other layout from the same position: the log, not
    # the engine, decides what a replay shows.
    assert _knocked(decide(before_knock, Knock(1, "KS"))).melds == BLOCKING
    state = fold(events[: knock_at + 1])
    assert state.hand is not None and state.hand.knock_melds == OLD


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=10, max_size=10, unique=True))
def test_every_lowest_layout_is_legal_and_least(hand: list[str]) -> None:
    least = deadwood_points(hand)
    layouts = lowest_layouts(hand)
    assert layouts[0] == arrange(hand)
    assert len({layout.melds for layout in layouts}) == len(layouts)
    for layout in layouts:
        assert all(is_meld(meld) for meld in layout.melds)
        assert layout.deadwood_points == least
        used = [card for meld in layout.melds for card in meld] + list(layout.deadwood)
        assert sorted(used) == sorted(hand)
        assert check_layout(hand, layout.melds) == layout
    knowledge = KnockerKnowledge(dead=0, certain=0, hidden=10)
    assert default_layout(layouts, knowledge) in layouts


def test_reshuffling_what_the_knocker_cannot_see_never_changes_the_default() -> None:
    """At every knock of 40 random matches: deal the defender's hidden cards and the stock
    anew (its face-up takes stay), and the engine lays the same melds."""
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        for state, _ in random_match(seed, prefer_knock=0.9, max_events=600):
            hand = state.hand
            if hand is None or hand.phase != "discard" or state.settlement is not None:
                continue
            knocker = hand.turn
            knocks = [c for c in legal_commands(state, knocker) if isinstance(c, Knock)]
            if not knocks:
                continue
            defender = 1 - knocker
            known = hand.known[defender]
            pool = [c for c in (*hand.hands[defender], *hand.stock) if c not in known]
            rng.shuffle(pool)
            hidden = len(hand.hands[defender]) - len(known)
            hands = list(hand.hands)
            hands[defender] = sort_cards((*known, *pool[:hidden]))
            shuffled = replace(hand, hands=(hands[0], hands[1]), stock=tuple(pool[hidden:]))
            other = replace(state, hand=shuffled)
            assert other.hand is not None and other.hand.hands[defender] != hand.hands[defender]
            for knock in knocks:
                laid = _knocked(decide(state, knock)).melds
                assert _knocked(decide(other, knock)).melds == laid
                checked += 1
    assert checked >= 20, f"only {checked} knocks reached"


def _every_least_split(hand: list[str]) -> set[frozenset[frozenset[str]]]:
    """Naively: every way to cover the cards with disjoint melds (from the independent
    oracle's meld list) at the least deadwood, less those with a run split end to end."""
    melds = brute.all_melds(hand)
    least = brute.deadwood(hand)
    found: set[frozenset[frozenset[str]]] = set()

    def walk(left: frozenset[str], chosen: tuple[frozenset[str], ...], points: int) -> None:
        if points > least:
            return
        if not left:
            found.add(frozenset(chosen))
            return
        card = min(left)
        walk(left - {card}, chosen, points + brute.value(card))
        for meld in melds:
            if card in meld and meld <= left:
                walk(left - meld, (*chosen, meld), points)

    walk(frozenset(hand), (), 0)

    def split(layout: frozenset[frozenset[str]]) -> bool:
        runs = [m for m in layout if len({c[0] for c in m}) > 1]
        return any(
            a[0][1] == b[0][1] and brute.rank(max(a, key=brute.rank)) + 1 == min(map(brute.rank, b))
            for a in map(sorted, runs)
            for b in map(sorted, runs)
            if a != b
        )

    return {layout for layout in found if not split(layout)}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=10, max_size=10, unique=True))
def test_the_layouts_listed_are_every_least_deadwood_split(hand: list[str]) -> None:
    listed = {frozenset(frozenset(m) for m in layout.melds) for layout in lowest_layouts(hand)}
    assert listed == _every_least_split(hand)


def test_the_layouts_of_hands_dense_in_melds_are_all_found() -> None:
    """Hands with four-card sets crossing runs, where the choices multiply."""
    for text in (
        "4C 4D 4H 4S 5H 6H 7H 2S 3S AS",
        "AC AD AH AS 2H 3H 4H 5H 6H 7C",
        KNOCKER,
    ):
        hand = list(cards(text))
        listed = {frozenset(frozenset(m) for m in layout.melds) for layout in lowest_layouts(hand)}
        assert listed == _every_least_split(hand)
        assert len(listed) >= 2
