"""Guesses consistent with the opponent's history (``domain.ai.history``), checked on real hands.

The hands are played out by the house AIs, so the truth (the opponent's real hand and
stock draws, the deal) is known to the test, never to the guesser.
"""

from __future__ import annotations

import functools
import random

from benchmarks.tournament import hand_state, play_hand
from domain.ai import history, knowledge
from domain.ai.clock import Clock
from domain.ai.history import DRAW, PASS, TAKE, THROW, Step
from domain.cards import CARD_BIT, to_mask
from domain.commands import AnySeatCommand
from domain.state import MatchState
from domain.views import PlayerView

Position = tuple[PlayerView, MatchState]


def _index(card: str) -> int:
    return CARD_BIT[card].bit_length() - 1


def _positions(seed: str, deals: int, opponent: str) -> list[Position]:
    """Seat 0's discard decisions (hard) against ``opponent``, with the game state."""
    out: list[Position] = []

    def watch(state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if view.seat == 0 and view.phase == "discard":
            out.append((view, state))

    for deal in range(deals):
        levels = ("hard", opponent)
        play_hand(hand_state(f"{seed}:{deal}", deal % 2, levels, "arcadia"), levels, seed, watch)
    return out


def _real_story(view: PlayerView, state: MatchState) -> tuple[int, tuple[int, ...], list[int]]:
    """The opponent's real hand now, the choice of each of its stock draws, and the real
    hand it held just before each of its steps (replayed forwards from the deal)."""
    assert state.hand is not None
    opp = 1 - view.seat
    moves = state.hand.moves[: len(view.moves)]
    dealt = _dealt(state, opp)
    before: list[int] = []
    drawn: list[int] = []
    hand = dealt
    for number, move in enumerate(moves):
        if move.seat != opp:
            continue
        card = 1 << _index(move.card) if move.card else 0
        if move.action == "pass_up_card":
            before.append(hand)
        elif move.action in ("take_up_card", "draw_discard"):
            before.append(hand)
            hand |= card
        elif move.action == "draw_stock":
            forced = number == 2 and moves[1].action == "pass_up_card"
            if _pile_before(moves, number) and not forced:
                before.append(hand)  # the pass of the pile's top card
            before.append(hand)
            drawn.append(_index(move.card))
            hand |= card
        elif move.action in ("discard", "knock"):
            before.append(hand)
            hand &= ~card
    assert hand == to_mask(state.hand.hands[opp])
    steps = history.steps(view)
    draws: list[int] = []
    k = 0
    for step, held in zip(steps, before, strict=True):
        if step.kind == DRAW:
            after = held | 1 << drawn[k]
            draws.append(knowledge.bits(after & ~step.picked).index(drawn[k]))
            k += 1
    return hand, tuple(draws), before


def _dealt(state: MatchState, seat: int) -> int:
    """A seat's ten dealt cards: its hand now, replayed backwards through its moves."""
    assert state.hand is not None
    hand = to_mask(state.hand.hands[seat])
    for move in reversed(state.hand.moves):
        if move.seat != seat or move.card is None:
            continue
        if move.action in ("take_up_card", "draw_discard", "draw_stock"):
            hand &= ~CARD_BIT[move.card]
        elif move.action in ("discard", "knock"):
            hand |= CARD_BIT[move.card]
    return hand


def _pile_before(moves: tuple[object, ...], number: int) -> bool:
    """Whether the pile had a card on it when move ``number`` was made."""
    size = 0
    for move in moves[:number]:
        action = getattr(move, "action")  # noqa: B009
        if action == "pass_up_card" and size == 0:
            size = 1
        elif action == "take_up_card":
            size = 0
        elif action == "draw_discard":
            size -= 1
        elif action in ("discard", "knock"):
            size += 1
    return size > 0


@functools.cache
def positions() -> list[Position]:
    """The positions the tests share, played out once, when a test first asks: at import
    they were played in every pytest process that collects this file, not only the one
    that runs it (each xdist worker collects the whole suite)."""
    return _positions("test-history-baseline", 6, "baseline") + _positions(
        "test-history-medium", 6, "medium"
    )


def test_the_real_story_replays_the_hand_held_before_every_step() -> None:
    assert len(positions()) > 40
    for view, state in positions():
        hand, draws, before = _real_story(view, state)
        steps = history.steps(view)
        assert history.draw_choices(steps) == [
            11 - s.picked.bit_count() for s in steps if s.kind == DRAW
        ]
        assert history.hands_then(steps, hand, draws) == before


def test_every_sampled_story_is_consistent_with_what_the_seat_saw() -> None:
    """Each sampled hand holds the opponent's known cards and hides only unseen ones; each
    hand of its story held the card thrown and lacked the card taken at that step, and
    neither its dealt hand nor a stock draw is a card the seat had seen by then."""
    for view, state in positions()[::3]:
        assert state.hand is not None
        know = knowledge.read(view)
        steps = history.steps(view)
        stories = history.stories(steps, know, random.Random(7), 16, Clock(None))
        assert len(stories) == 16
        mine = _dealt(state, view.seat)
        up_card = CARD_BIT[state.hand.moves[0].card or ""] if state.hand.moves else 0
        for hand, draws in stories:
            assert hand.bit_count() == view.opponent_card_count
            assert hand & know.opponent_known == know.opponent_known
            assert not hand & ~know.opponent_known & ~know.unseen
            before = history.hands_then(steps, hand, draws)
            dealt = before[0] if before else hand
            assert dealt.bit_count() == 10
            assert not dealt & (mine | up_card)
            seen = mine | up_card
            k = 0
            at = 0
            for number, move in enumerate(state.hand.moves[: len(view.moves)]):
                if move.seat == view.seat:
                    if move.card is not None:
                        seen |= CARD_BIT[move.card]
                    continue
                # the opponent's steps for this move, in order
                while at < len(steps):
                    step = steps[at]
                    held = before[at]
                    after = before[at + 1] if at + 1 < len(steps) else hand
                    if step.kind == THROW:
                        assert held >> step.card & 1 and not after >> step.card & 1
                        seen |= 1 << step.card
                    elif step.kind == TAKE:
                        assert not held >> step.card & 1 and after >> step.card & 1
                    elif step.kind == DRAW:
                        new = after & ~held
                        assert new.bit_count() == 1 and not new & seen, (number, k)
                        k += 1
                    else:
                        assert step.kind == PASS and not held >> step.card & 1
                    at += 1
                    if step.kind in (THROW, TAKE, DRAW) or move.action == "pass_up_card":
                        break
            assert at == len(steps) and k == len(draws)


def test_a_decision_weighs_the_story_against_the_hand_held_then() -> None:
    """It let 5H pass, then drew and threw 5C: with 5C 5D held when 5H passed, the pass is
    unlikely; with the 5C drawn only after it, the same hand now explains the pass."""
    five_c, five_d, five_h = _index("5C"), _index("5D"), _index("5H")
    rest = [_index(c) for c in ("2S", "9S", "KS", "2D", "9D", "KD", "JC", "8H", "QH")]
    now = sum(1 << i for i in rest) | 1 << five_d
    steps = (Step(PASS, five_h), Step(DRAW, -1), Step(THROW, five_c))
    options = knowledge.bits(now | 1 << five_c)
    drew_5c = (options.index(five_c),)
    drew_2s = (options.index(_index("2S")),)
    assert history.hands_then(steps, now, drew_5c)[0] == now
    assert history.weight(steps, now, drew_5c, 10) == 1.0
    assert history.weight(steps, now, drew_2s, 10) == history.PASSED
    # a face-up 5H taken: to a meld (5D 5C), to a half-meld (4H), or to nothing
    taken = (Step(TAKE, five_h),)
    alone = now & ~(1 << five_d) | 1 << _index("AC")
    assert history.weight(taken, now | 1 << five_c | 1 << five_h, (), 10) == 1.0
    assert history.weight(taken, alone | 1 << _index("4H") | 1 << five_h, (), 10) == 1.0
    assert history.weight(taken, alone | 1 << five_h, (), 10) == history.TOOK


def test_melds_with_is_partners() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        mask = sum(1 << i for i in rng.sample(range(52), rng.randint(0, 12)))
        index = rng.randrange(52)
        assert history.melds_with(mask, index) == (knowledge.partners(mask, index) > 0)


def test_guesses_depend_on_the_seed_alone() -> None:
    view, _ = positions()[len(positions()) // 2]
    know = knowledge.read(view)
    steps = history.steps(view)
    first = history.guesses(steps, know, random.Random(3), 32, Clock(None))
    again = history.guesses(steps, know, random.Random(3), 32, Clock(None))
    assert first == again and len(first) == 32
