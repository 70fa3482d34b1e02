"""Medium: a solid rule-based player, the benchmark the hard level must beat.

It discards high deadwood first but keeps cards that can still meld (two ways
above all, and ways that are not dead in the pile), takes a face-up card when it
lowers its best deadwood by melding (or, melding nothing, by 7 or more: taking every
card that lowers it, issue 3's literal wording, measured two points a hand weaker),
avoids throwing what the opponent has shown interest in, knocks at once with a high
count and plays on for gin (or the opponent's knock into an undercut) with a low one.
Issue 21 asked for medium as strong as it has ever been: benchmarks/RESULTS-ai.md.
"""

from __future__ import annotations

import random

from domain.ai import knowledge, tactics
from domain.cards import CARD_BIT, CARD_INDEX, CARD_VALUE
from domain.commands import AnySeatCommand
from domain.melds import deadwood_of_mask
from domain.views import PlayerView

# Hold a knock that would leave this little deadwood while the stock has at least
# HOLD_FOR_GIN_STOCK cards (near the end a hold only walks into the wash): so low a
# hand is rarely undercut, and playing on for gin, or for the opponent to knock into an
# undercut, pays more than the few points the knock would win. Builds before issue 21
# held only with 2 or less while 20 cards were left; holding with 5 or less measured
# +1.1 a hand better against the baseline player (holding with up to 8 measured better
# still against it, but that is a player who knocks with 9 and not with 3: it exploits
# a knock-at-once opponent; benchmarks/RESULTS-ai.md).
HOLD_FOR_GIN_STOCK = 6
HOLD_FOR_GIN_DEADWOOD = 5
TAKE_UNMELDED_SAVING = 7  # take a face-up card that melds nothing only if it saves this much
PROMISE_EARLY = 4.0  # a live half-meld's worth in deadwood points while the stock is long
PROMISE_LATE = 2.0  # ...and once it is short
INTEREST_WEIGHT = 5.0  # per card the opponent took or showed that a discard would join
# Never take back a card it threw this hand. Taking any card that saved a point (the
# rule of 2026-11-30), two mediums could swap the same three cards for ever (issue 21);
# the 7-point rule never looped, and the bound holds whatever the take rule: a seat that never retakes its own
# discards throws a different card each pile-only turn, so such a run of turns ends
# within 52 turns whatever the opponent does. ``--set medium.RETAKE_OWN_DISCARD=1``
# plays the old rule, for comparison.
RETAKE_OWN_DISCARD = False


def play(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    ending = tactics.ending_command(view)
    if ending is not None:
        return ending
    if view.phase in ("up_card", "draw"):
        return _draw(view)
    if view.phase == "layoff":
        return tactics.best_layoff(view)
    knock = tactics.best_knock(view)
    if knock is not None:
        left = deadwood_of_mask(tactics.masks(view.hand) & ~CARD_BIT[knock.card])
        if not (view.stock_size >= HOLD_FOR_GIN_STOCK and left <= HOLD_FOR_GIN_DEADWOOD):
            return knock
    return tactics.discard(view, choose_discard(view))


def _draw(view: PlayerView) -> AnySeatCommand:
    top = tactics.top_of_pile(view)
    if top is None or not tactics.can_take_pile(view):
        return tactics.decline_pile(view)
    if not RETAKE_OWN_DISCARD and top in tactics.thrown_by_me(view):
        return tactics.decline_pile(view)
    mask = tactics.masks(view.hand)
    now = deadwood_of_mask(mask)
    after = tactics.best_after_taking(mask, top)
    if after < now and (tactics.in_meld(mask, top) or now - after >= TAKE_UNMELDED_SAVING):
        return tactics.take_pile(view)
    return tactics.decline_pile(view)


def choose_discard(view: PlayerView) -> str:
    """Least deadwood, less the promise of the cards kept, plus the risk of feeding."""
    scores = discard_scores(view, knowledge.read(view))
    return min(scores, key=lambda card: (scores[card], -CARD_VALUE[card], card))


def discard_scores(
    view: PlayerView,
    know: knowledge.Knowledge,
    promise: tuple[float, float] | None = None,
    interest_weight: float | None = None,
) -> dict[str, float]:
    """Each legal discard's score (lower is better), in deadwood points.

    ``promise`` is what a live half-meld is worth while the stock is long, then short
    (medium's own constants unless given).
    """
    if promise is None:
        promise = (PROMISE_EARLY, PROMISE_LATE)
    if interest_weight is None:
        interest_weight = INTEREST_WEIGHT
    mask = know.mine
    interest = know.opponent_took | know.opponent_known
    safe = know.opponent_threw | know.opponent_passed
    dead = know.pile & ~(1 << CARD_INDEX[view.discard_pile[-1]]) if view.discard_pile else 0
    worth = promise[0] if view.stock_size > 16 else promise[1]
    scores: dict[str, float] = {}
    for card in tactics.discardable(view):
        index = CARD_INDEX[card]
        rest = mask & ~(1 << index)
        score: float = deadwood_of_mask(rest)
        score += worth * _live_ways(rest, index, dead)
        score += interest_weight * min(knowledge.near(interest, index), 2)
        score -= 2 * min(knowledge.near(safe, index), 1)
        scores[card] = score
    return scores


def _live_ways(rest: int, index: int, dead: int) -> int:
    """Half-melds the card forms with kept cards, counting only those not killed by the pile."""
    suit, rank = divmod(index, 13)
    ways = 0
    others = [s for s in range(4) if s != suit]
    pair = [s for s in others if rest >> (s * 13 + rank) & 1]
    free = [s for s in others if not (rest >> (s * 13 + rank) & 1 or dead >> (s * 13 + rank) & 1)]
    if pair and (len(pair) >= 2 or free):
        ways += 1
    row = rest >> (suit * 13) & 0x1FFF
    gone = dead >> (suit * 13) & 0x1FFF
    for low in (rank - 2, rank - 1, rank):
        window = [r for r in range(low, low + 3)]
        if window[0] < 0 or window[-1] > 12:
            continue
        held = [r for r in window if r != rank and row >> r & 1]
        missing = [r for r in window if r != rank and not row >> r & 1]
        if held and all(not gone >> r & 1 for r in missing):
            ways += 1
            break
    return ways
