"""The meld search: known answers from seeds/, and equality with a brute-force oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.cards import CARD_VALUE, DECK, RANKS, SUITS, to_mask
from domain.melds import (
    Arrangement,
    arrange,
    best_discard,
    best_layoffs,
    deadwood_of_mask,
    deadwood_points,
    discard_options,
    extend,
    fits,
    legal_layoffs,
)
from tests.domain import brute

KNOWN = json.loads(
    (Path(__file__).parents[2] / "seeds" / "arrange_known_answers.json").read_text()
)["cases"]


def as_sets(melds: Any) -> set[frozenset[str]]:
    return {frozenset(m) for m in melds}


def check_arrangement(hand: list[str], result: Arrangement) -> None:
    """Melds legal and disjoint, melds + deadwood = the hand, points = deadwood's value."""
    placed = [card for meld in result.melds for card in meld] + list(result.deadwood)
    assert sorted(placed) == sorted(hand)
    for meld in result.melds:
        assert brute.is_legal_meld(meld), meld
    assert result.deadwood_points == sum(CARD_VALUE[c] for c in result.deadwood)


# --- known answers ------------------------------------------------------------------


@pytest.mark.parametrize("case", KNOWN, ids=[c["name"] for c in KNOWN])
def test_known_answer(case: dict[str, Any]) -> None:
    result = arrange(case["hand"])
    assert result.deadwood_points == case["deadwood_points"]
    assert deadwood_points(case["hand"]) == case["deadwood_points"]
    check_arrangement(case["hand"], result)
    if case["melds"] is not None:
        assert as_sets(result.melds) == as_sets(case["melds"])
        assert sorted(result.deadwood) == sorted(case["deadwood"])


def test_known_answers_agree_with_the_oracle() -> None:
    """The seed file itself is checked, so a typo in it cannot pass silently."""
    for case in KNOWN:
        assert brute.deadwood(case["hand"]) == case["deadwood_points"], case["name"]


# --- strategies -----------------------------------------------------------------------


def uniform_hands(size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(DECK), min_size=size, max_size=size, unique=True)


@st.composite
def meld_rich_hands(draw: st.DrawFn, size: int) -> list[str]:
    """Two or three planted melds (sets or runs), then random cards up to ``size``."""
    chosen: set[str] = set()
    while len(chosen) < 6:
        if draw(st.booleans()):
            rank = draw(st.sampled_from(RANKS))
            suits = draw(st.permutations(SUITS))[: draw(st.integers(3, 4))]
            meld = {rank + s for s in suits}
        else:
            suit = draw(st.sampled_from(SUITS))
            length = draw(st.integers(3, 5))
            start = draw(st.integers(0, 13 - length))
            meld = {RANKS[r] + suit for r in range(start, start + length)}
        if len(chosen | meld) <= size:
            chosen |= meld
    rest = [c for c in DECK if c not in chosen]
    fill = size - len(chosen)
    extra = draw(st.lists(st.sampled_from(rest), min_size=fill, max_size=fill, unique=True))
    return sorted(chosen) + extra


any_hand = st.one_of(uniform_hands(10), uniform_hands(11), meld_rich_hands(10), meld_rich_hands(11))


# --- properties -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(any_hand)
def test_arrange_equals_brute_force(hand: list[str]) -> None:
    result = arrange(hand)
    assert result.deadwood_points == brute.deadwood(hand)
    check_arrangement(hand, result)


@settings(max_examples=200, deadline=None)
@given(any_hand)
def test_deadwood_only_functions_agree_with_arrange(hand: list[str]) -> None:
    expected = arrange(hand).deadwood_points
    assert deadwood_points(hand) == expected
    assert deadwood_of_mask(to_mask(hand)) == expected


@settings(max_examples=100, deadline=None)
@given(any_hand, st.randoms(use_true_random=False))
def test_arrange_is_deterministic_and_ignores_input_order(hand: list[str], rng: Any) -> None:
    first = arrange(hand)
    assert arrange(hand) == first
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert arrange(shuffled) == first
    assert arrange(tuple(hand)) == first


@settings(max_examples=80, deadline=None)
@given(st.one_of(uniform_hands(11), meld_rich_hands(11)), st.data())
def test_best_discard_equals_brute_force(hand: list[str], data: st.DataObject) -> None:
    exclude = data.draw(st.one_of(st.none(), st.sampled_from(hand)))
    after = {card: brute.deadwood([c for c in hand if c != card]) for card in hand}
    allowed = {card: dw for card, dw in after.items() if card != exclude}
    card, deadwood = best_discard(hand, exclude)
    assert card in allowed
    assert deadwood == after[card] == min(allowed.values())
    assert dict(discard_options(hand, exclude)) == allowed
    assert best_discard(hand, exclude) == (card, deadwood)


def test_best_discard_refuses_an_empty_choice() -> None:
    with pytest.raises(ValueError):
        best_discard(["7H"], exclude="7H")


# --- layoffs --------------------------------------------------------------------------------


def near_meld(card: str, meld: tuple[str, ...]) -> bool:
    """Same rank as a set, or within two ranks of a run in its suit (so chains occur)."""
    if meld[0][0] == meld[1][0]:
        return card[0] == meld[0][0]
    return card[1] == meld[0][1] and min(abs(brute.rank(card) - brute.rank(x)) for x in meld) <= 2


@st.composite
def layoff_positions(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, ...]]]:
    """Knocker melds, and a defender hand seeded with cards near those melds."""
    melds: list[tuple[str, ...]] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            rank = draw(st.sampled_from(RANKS))
            meld = tuple(rank + s for s in draw(st.permutations(SUITS))[: draw(st.integers(3, 4))])
        else:
            suit = draw(st.sampled_from(SUITS))
            length = draw(st.integers(3, 4))
            start = draw(st.integers(0, 13 - length))
            meld = tuple(RANKS[r] + suit for r in range(start, start + length))
        if not used & set(meld):
            melds.append(meld)
            used |= set(meld)
    near = sorted(
        {card for card in DECK if card not in used and any(near_meld(card, m) for m in melds)}
    )
    picked = (
        draw(st.lists(st.sampled_from(near), max_size=min(6, len(near)), unique=True))
        if near
        else []
    )
    rest = [c for c in DECK if c not in used and c not in picked]
    fill = 10 - len(picked)
    extra = draw(st.lists(st.sampled_from(rest), min_size=fill, max_size=fill, unique=True))
    return picked + extra, melds


@settings(max_examples=150, deadline=None)
@given(layoff_positions())
def test_best_layoffs_equals_brute_force(position: tuple[list[str], list[tuple[str, ...]]]) -> None:
    hand, melds = position
    plan = best_layoffs(hand, melds)
    assert plan.arrangement.deadwood_points == brute.layoff_deadwood(hand, melds)
    # The plan can be played in its order, each card fitting the meld as grown so far.
    grown = [tuple(m) for m in melds]
    left = list(hand)
    for card, index in plan.layoffs:
        assert card in left
        assert brute.is_legal_meld((*grown[index], card))
        grown[index] = (*grown[index], card)
        left.remove(card)
    check_arrangement(left, plan.arrangement)
    assert plan.arrangement.deadwood_points == brute.deadwood(left)
    assert best_layoffs(hand, melds) == plan


@settings(max_examples=150, deadline=None)
@given(layoff_positions())
def test_legal_layoffs_and_fits_match_the_meld_definition(
    position: tuple[list[str], list[tuple[str, ...]]],
) -> None:
    hand, melds = position
    expected = {
        (card, i)
        for card in hand
        for i, meld in enumerate(melds)
        if brute.is_legal_meld((*meld, card))
    }
    assert set(legal_layoffs(hand, melds)) == expected
    for card in hand:
        for meld in melds:
            assert fits(card, meld) == brute.is_legal_meld((*meld, card))


def test_layoffs_chain_on_a_run_at_both_ends() -> None:
    run = ("5H", "6H", "7H")
    hand = ["8H", "9H", "4H", "3H", "KC", "KD", "QS", "JC", "2D", "AS"]
    # Only the cards touching the run fit now; 9H and 3H fit once 8H and 4H are laid.
    assert sorted(legal_layoffs(hand, [run])) == [("4H", 0), ("8H", 0)]
    assert not fits("9H", run)
    assert fits("9H", extend(run, "8H"))
    plan = best_layoffs(hand, [run])
    assert {card for card, _ in plan.layoffs} == {"8H", "9H", "4H", "3H"}
    assert plan.layoffs.index(("8H", 0)) < plan.layoffs.index(("9H", 0))
    assert plan.layoffs.index(("4H", 0)) < plan.layoffs.index(("3H", 0))
    # Left: KC KD QS JC 2D AS = 10 + 10 + 10 + 10 + 2 + 1.
    assert plan.arrangement.deadwood_points == 43


def test_fourth_card_fits_a_set_of_three_only() -> None:
    assert fits("7S", ("7C", "7D", "7H"))
    assert not fits("7S", ("7C", "7D", "7H", "7S"))
    assert not fits("8S", ("7C", "7D", "7H"))
    assert not fits("AH", ("JH", "QH", "KH"))  # no wrap past the king
    assert not fits("KS", ("AS", "2S", "3S"))  # nor below the ace


def test_best_layoffs_prefers_own_meld_over_a_worse_layoff() -> None:
    """Laying 8H off would break the defender's own 8s set: keep the set instead."""
    knocker = [("5H", "6H", "7H")]
    hand = ["8H", "8C", "8D", "KC", "KD", "QS", "JC", "2D", "AS", "4C"]
    plan = best_layoffs(hand, knocker)
    assert plan.layoffs == ()
    assert plan.arrangement.deadwood_points == 10 + 10 + 10 + 10 + 2 + 1 + 4


def test_the_shared_suit_tables_hold_each_masks_own_runs_and_deadwood() -> None:
    """The tables are built from each distinct value and shared between masks (for a
    faster start); every mask must still find exactly what it would have built alone."""
    from domain.cards import from_mask
    from domain.melds import _RUNS, _SUIT_DEAD, _SUIT_RUNS, _runs_of_suit

    for suit in range(4):
        for mask in range(1 << 13):
            assert _SUIT_RUNS[suit][mask] == _runs_of_suit(mask, suit)
            assert _SUIT_DEAD[suit][mask] == from_mask((mask & ~_RUNS[mask]) << (13 * suit))


def test_the_suit_tables_hold_what_a_walk_of_each_masks_blocks_finds() -> None:
    """The tables are built a step from a smaller mask (for a faster start): each mask's
    entries must be what walking its blocks of consecutive ranks finds, runs being the
    blocks of three or more and the rest deadwood."""
    from domain.melds import _DW, _RUNS

    for mask in range(1 << 13):
        deadwood = runs = rank = 0
        while rank < 13:
            if not mask >> rank & 1:
                rank += 1
                continue
            start = rank
            while rank < 13 and mask >> rank & 1:
                rank += 1
            if rank - start >= 3:
                runs |= ((1 << rank) - 1) ^ ((1 << start) - 1)
            else:
                deadwood += sum(min(r + 1, 10) for r in range(start, rank))
        assert (_DW[mask], _RUNS[mask]) == (deadwood, runs), bin(mask)
