"""Guesses at the opponent's hand that are consistent with its whole history (issue 21).

``opponent.guesses`` judges each guess against the opponent's CURRENT guessed hand: a
card it let pass three turns ago is checked against ten cards it may not have held then.
Here each guess is a full story of the hand: the hidden cards it holds now, and which of
its cards came from each of its stock draws. Walking the opponent's public moves
backwards turns that story into the hand it held at every past decision: before a
discard it held the discarded card too; before a face-up pick it lacked the picked
card; before a stock draw it lacked the drawn card, which is one of the cards it held
just after that draw whose origin is not otherwise known (not a face-up pick still
held). Every such story is consistent with the history by construction, and a uniform
choice of the hidden cards and of each draw is the deal's own prior (every story with
the same public history has the same number of draw choices).

Each past decision then weighs the story softly, against the hand held at that moment:
a card it let pass that would have completed a meld (``PASSED``), a face-up card it took
that joined nothing (``TOOK``), a discard that broke a meld (``THREW``); optionally how
far its discard was from the least-deadwood one (``SLACK`` per point) and a turn where
it could have knocked and did not (``COULD_KNOCK``). Soft factors, not certainties: the
hard level must also read medium players and people, who do not follow one rule.

The stories are sampled by a short Metropolis chain per group of guesses (swap one
hidden card for an unseen one, or re-draw one stock draw's card), bounded by a count of
steps, so the result depends on the seed alone (issue 21, item 5); the clock only cuts
a chain short as the last resort.

Not used by any level: measured offline in session 19 (benchmarks/RESULTS-ai.md), its
meld predictions were no better than hard v2's with 32 guesses and only a little better
with 256 (AUC 0.786 against 0.773), short of the bar for trying it in play.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from domain.ai.clock import Clock
from domain.ai.knowledge import Knowledge, bits
from domain.ai.opponent import Guess
from domain.ai.tactics import least_throwing_one
from domain.cards import CARD_BIT
from domain.melds import deadwood_of_mask
from domain.views import PlayerView

PASSED = 0.4  # likelihood factor: it let pass a card that completed a meld with its hand then
TOOK = 0.3  # it took a face-up card that joined nothing (no meld, no half-meld) in its hand then
THREW = 0.3  # it threw a card that melded with the cards it kept
# ...judged as: the card completes a meld with the kept cards (False), or it was melded in
# every least-deadwood arrangement of the hand it threw from (True: what a player that
# throws deadwood, such as baseline, never does)
THREW_BROKE = False
SLACK = 0.0  # per point by which its discard left more deadwood than its best one (0: off)
COULD_KNOCK = 1.0  # it could have knocked and discarded instead (1: off; baseline would be ~0)
CHAINS = 4  # Metropolis chains per decision; the guesses are split among them
BURN = 40  # steps of a chain before its first guess
THIN = 6  # steps between two guesses of a chain

PASS, TAKE, DRAW, THROW = range(4)


@dataclass(frozen=True, slots=True)
class Step:
    """One public decision of the opponent, in the order it was made."""

    kind: int  # PASS, TAKE, DRAW (from the stock) or THROW
    card: int  # bit index of the card passed, taken or thrown; -1 for a stock draw
    picked: int = 0  # DRAW: cards it held then that it is known to have taken face up


def steps(view: PlayerView) -> tuple[Step, ...]:
    """The opponent's decisions this hand, from the seat's view (as ``knowledge.read`` reads them)."""
    me = view.seat
    pile: list[str] = []
    out: list[Step] = []
    picked = 0  # face-up picks the opponent still holds
    for number, move in enumerate(view.moves):
        theirs = move.seat != me
        card = move.card
        if move.action == "pass_up_card":
            if card is not None and not pile:
                pile.append(card)
            if theirs and card is not None:
                out.append(Step(PASS, CARD_BIT[card].bit_length() - 1))
        elif move.action in ("take_up_card", "draw_discard"):
            if theirs and card is not None:
                out.append(Step(TAKE, CARD_BIT[card].bit_length() - 1))
                picked |= CARD_BIT[card]
            if move.action == "take_up_card":
                pile.clear()
            elif pile:
                pile.pop()
        elif move.action == "draw_stock":
            if theirs:
                forced = number == 2 and view.moves[1].action == "pass_up_card"
                if pile and not forced:
                    out.append(Step(PASS, CARD_BIT[pile[-1]].bit_length() - 1))
                out.append(Step(DRAW, -1, picked))
        elif move.action in ("discard", "knock") and card is not None:
            pile.append(card)
            if theirs:
                out.append(Step(THROW, CARD_BIT[card].bit_length() - 1))
                picked &= ~CARD_BIT[card]
    return tuple(out)


def _tables() -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    same_rank, runs, close = [], [], []
    for index in range(52):
        suit, rank = divmod(index, 13)
        same_rank.append(sum(1 << (s * 13 + rank) for s in range(4) if s != suit))
        pairs = []
        for a, b in ((-2, -1), (-1, 1), (1, 2)):
            if 0 <= rank + a < 13 and 0 <= rank + b < 13:
                pairs.append(1 << (suit * 13 + rank + a) | 1 << (suit * 13 + rank + b))
        runs.append(tuple(pairs))
        near = same_rank[-1]
        for r in (rank - 2, rank - 1, rank + 1, rank + 2):
            if 0 <= r < 13:
                near |= 1 << (suit * 13 + r)
        close.append(near)
    return same_rank, runs, close


_SAME_RANK, _RUN_PAIRS, _CLOSE = _tables()
_VALUE = [min(index % 13 + 1, 10) for index in range(52)]


def melds_with(mask: int, index: int) -> bool:
    """Whether card ``index`` completes a meld with cards of ``mask`` (``partners > 0``)."""
    if (mask & _SAME_RANK[index]).bit_count() >= 2:
        return True
    return any(mask & pair == pair for pair in _RUN_PAIRS[index])


def hands_then(history: tuple[Step, ...], hand: int, draws: tuple[int, ...]) -> list[int]:
    """The opponent's hand just before each step, given its hand now and its stock draws.

    ``draws[k]`` chooses the card of the ``k``-th stock draw among the cards it held just
    after that draw whose origin is not otherwise known (taken modulo their number).
    """
    out = [0] * len(history)
    k = len(draws)
    for at in range(len(history) - 1, -1, -1):
        step = history[at]
        if step.kind == THROW:
            hand |= 1 << step.card
        elif step.kind == TAKE:
            hand &= ~(1 << step.card)
        elif step.kind == DRAW:
            k -= 1
            options = bits(hand & ~step.picked)
            hand &= ~(1 << options[draws[k] % len(options)])
        out[at] = hand
    return out


def draw_choices(history: tuple[Step, ...]) -> list[int]:
    """How many cards each stock draw may have been (the same for every story)."""
    # it holds ten cards before each draw, eleven after it
    return [11 - step.picked.bit_count() for step in history if step.kind == DRAW]


def weight(history: tuple[Step, ...], hand: int, draws: tuple[int, ...], knock_limit: int) -> float:
    """How well the story (``hand`` now, ``draws``) explains the opponent's decisions."""
    w = 1.0
    k = len(draws)
    for at in range(len(history) - 1, -1, -1):
        step = history[at]
        kind = step.kind
        if kind == THROW:
            card = step.card
            before = hand | 1 << card
            if THREW_BROKE:
                if deadwood_of_mask(hand) > deadwood_of_mask(before) - _VALUE[card]:
                    w *= THREW
            elif melds_with(hand, card):
                w *= THREW
            if SLACK or COULD_KNOCK != 1.0:
                kept = deadwood_of_mask(hand)
                best = least_throwing_one(before, before)
                if SLACK and kept > best:
                    w *= math.exp(-SLACK * (kept - best))
                if COULD_KNOCK != 1.0 and best <= knock_limit:
                    w *= COULD_KNOCK
            hand = before
        elif kind == TAKE:
            card = step.card
            hand &= ~(1 << card)
            if not melds_with(hand, card) and not hand & _CLOSE[card]:
                w *= TOOK
        elif kind == DRAW:
            k -= 1
            options = hand & ~step.picked
            n = options.bit_count()
            skip = draws[k] % n
            for _ in range(skip):
                options &= options - 1
            hand &= ~(options & -options)
        elif melds_with(hand, step.card):
            w *= PASSED
    return w


def guesses(
    history: tuple[Step, ...], know: Knowledge, rng: random.Random, count: int, clock: Clock
) -> list[Guess]:
    """``count`` guesses of the opponent's whole hand, each of weight 1 (fewer if the clock
    runs out; never none), drawn by Metropolis chains over stories consistent with ``history``."""
    return [Guess(hand, 1.0) for hand, _ in stories(history, know, rng, count, clock)]


def stories(
    history: tuple[Step, ...], know: Knowledge, rng: random.Random, count: int, clock: Clock
) -> list[tuple[int, tuple[int, ...]]]:
    """The sampled stories behind ``guesses``: the hand now and the choice of each stock draw."""
    pool = bits(know.unseen)
    hidden = min(know.hidden_count, len(pool))
    choices = draw_choices(history)
    limit = know.knock_limit
    out: list[tuple[int, tuple[int, ...]]] = []
    chains = max(1, min(CHAINS, count))
    for chain in range(chains):
        wanted = count * (chain + 1) // chains - count * chain // chains
        picked = rng.sample(pool, hidden)
        held = know.opponent_known
        for index in picked:
            held |= 1 << index
        draws = tuple(rng.randrange(n) for n in choices)
        w = weight(history, held, draws, limit)
        step = 0
        while wanted:
            if out and clock.expired():
                return out
            step += 1
            if choices and (not hidden or rng.random() < 0.5):
                k = rng.randrange(len(choices))
                new_draws = (*draws[:k], rng.randrange(choices[k]), *draws[k + 1 :])
                new_held = held
            elif hidden and len(pool) > hidden:
                drop = 1 << rng.choice(bits(held & ~know.opponent_known))
                add = 1 << rng.choice(bits(know.unseen & ~held))
                new_held, new_draws = held & ~drop | add, draws
            else:
                new_held, new_draws = held, draws
            new_w = weight(history, new_held, new_draws, limit)
            if new_w >= w or rng.random() * w < new_w:
                held, draws, w = new_held, new_draws, new_w
            if step >= BURN and (step - BURN) % THIN == 0:
                out.append((held, draws))
                wanted -= 1
    return out
