"""Hard: plays from what a strong human tracks, over weighted guesses of the opponent's hand.

From its view alone it knows the dead cards (the pile, its own hand) and what the
opponent took, threw and let pass; from that it draws weighted guesses of the
opponent's hand (``opponent``). On top of the rule-based judgement of which cards
to keep (``medium``), it prices each discard by how much it would save the opponent
over those guesses (and values keeping half-melds less as the opponent's chance to
knock next turn grows), never throws a card that melds with cards the opponent is known
to hold while a discard as cheap is safe, knocks only when the knock's expected
points over the guesses (an undercut costs the bonus) are positive and beat
holding on (where the opponent may knock into an undercut, or gin), and as
defender lays off whatever leaves it the least deadwood.

Playing candidate moves out to the end of the hand (Monte Carlo over the guesses)
was tried and measured worse at a budget that fits 150 ms: with 32 play-outs per
move the noise outweighed the signal (see benchmarks/RESULTS-ai.md).
A meld chance learned offline from real hands (``feed_model``) ranks the discards that
feed better than the guesses do, but priced into the feed term it played no better
(session 18), so ``FEED_MODEL`` and ``FEED_REWEIGHT`` are off; fitted on the near-tied
choice itself it feeds less but plays no better either (session 20), so ``CHOICE_PRICE``
is off. A worth learned from play-outs of the best few discards (``discard_fit``, session
44) looked better offline, but in play it was within noise and on new deals its picks
gained nothing (session 45), so ``ROLLOUT_FIT`` is off.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from functools import lru_cache

from domain.ai import (
    discard_fit,
    feed_model,
    knowledge,
    match_odds,
    medium,
    opponent,
    showdown,
    tactics,
)
from domain.ai.clock import Clock
from domain.ai.knowledge import Knowledge, bits, partners
from domain.ai.match_odds import Worth
from domain.ai.opponent import Guess
from domain.cards import CARD_INDEX, CARD_VALUE, DECK
from domain.commands import AnySeatCommand, Discard, Knock
from domain.match import WASH_AT
from domain.melds import deadwood_of_mask
from domain.views import PlayerView

GUESSES = 32  # weighted guesses of the opponent's hand per decision
FEED_WEIGHT = 1.0  # deadwood points per point a discard would save the opponent
FEED_MELDS_ONLY = True  # count only saves where the card completes a meld (measured better)
KNOCK_MIN_EV = 0.0  # knock when its expected points over the guesses beat this
KNOCK_OPTIONS = 2  # knock discards compared (least deadwood first)
TAKE_DROP = 7  # take a face-up card that melds nothing only if it saves this much
PROMISE_EARLY = 6.0  # a live half-meld's worth in deadwood points while the stock is long
PROMISE_LATE = 4.0  # ...and once it is short
INTEREST_WEIGHT = 2.0  # per card the opponent took that a discard would join
HOLD_COST = 0.0  # points a knock loses per turn held (tuned: 0, 1, 3, 6 measured; 0 best)
HOLD_GIN_WEIGHT = 1.0  # weight of our own chance to gin on the next draw when holding
HOLD_THROWS_KNOCK_CARD = True  # holding a knock keeps the hand the hold was priced on
DANGER_WEIGHT = 2.0  # promise shrinks by this times the opponent's chance to knock next turn
FORBIDDEN = 1000.0  # score added to a discard that hands over a known meld
SCORE_AWARE = False  # knock-or-hold priced in match-win chance (match_odds); off: not better
# The feed term's chance that a discard completes a meld in the opponent's hand: 0 takes
# the guesses' weighted share (hard v2), 1 the chance learned offline from real hands
# (feed_model; issue 21, session 18), in between a blend. What a meld saves still comes
# from the guesses that meld with the card. Off: no better in paired runs (RESULTS-ai.md).
FEED_MODEL = 0.0
FEED_FALLBACK = 10.0  # a meld's saving when no guess of this decision melds with any card
# Or keep the guesses and reweigh them for the feed term by the learned chances that
# their hidden cards are held: weight times the product over those cards of (chance /
# base rate) to this power; 0 is off (hard v2).
FEED_REWEIGHT = 0.0
# Among the discards whose score is within CHOICE_CONTENTION of the best (the near-tied
# choice), add CHOICE_PRICE times the learned meld chance (feed_model) and choose among
# those only; 0 is off (hard v2). Fitted on the choice itself by a conditional logit
# (benchmarks/choice_model.py; issue 21, session 20: the fit gave 3.28 at contention 4).
# Off: it feeds less (offline and in play) but no better in paired runs (RESULTS-ai.md).
CHOICE_PRICE = 0.0
CHOICE_CONTENTION = 4.0
# Re-rank the best few discards by the worth learned from play-outs (``discard_fit``).
ROLLOUT_FIT = False


def play(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    ending = tactics.ending_command(view)
    if ending is not None:
        return ending
    if view.phase == "layoff":
        return tactics.best_layoff(view)
    know = knowledge.read(view)
    if view.phase in ("up_card", "draw"):
        return _draw(view, know)
    clock = Clock(budget_ms)
    hands = opponent.guesses(know, rng, GUESSES, clock)
    knock, chance = _knock(view, know, hands, clock)
    if isinstance(knock, Knock):
        return knock
    scored = quick_scores(view, know, hands, clock, chance)
    if knock is not None:
        # holding: keep the hand the hold was priced on, unless that card feeds a known meld
        held = CARD_INDEX[knock]
        if all(score < FORBIDDEN for score, index in scored if index == held):
            return Discard(view.seat, knock)
    return Discard(view.seat, DECK[scored[0][1]])


def _draw(view: PlayerView, know: Knowledge) -> AnySeatCommand:
    """Take the face-up card when it lands in a meld, or saves a lot, and lowers deadwood."""
    top = tactics.top_of_pile(view)
    if top is None or not tactics.can_take_pile(view):
        return tactics.decline_pile(view)
    mask = know.mine
    now = deadwood_of_mask(mask)
    after = tactics.best_after_taking(mask, top)
    if after < now and (tactics.in_meld(mask, top) or now - after >= TAKE_DROP):
        return tactics.take_pile(view)
    return tactics.decline_pile(view)


def _best_after(mask: int, index: int, limit: int = tactics.NO_LIMIT, stop_at: int = -1) -> int:
    """Least deadwood after adding card ``index`` and throwing some other card.

    Only exact up to ``limit``: a hand that cannot get that low returns some value
    above it; and the search ends at the first throw that leaves ``stop_at`` or less
    (for yes-or-no questions). A card that connects with nothing can sit in no meld,
    so the answer is its value plus the hand's best with one card thrown (worked out
    once per hand); and throwing one card lowers deadwood by at most ten, which rules
    most draws out with a single arrangement.
    """
    if not knowledge.near(mask, index):
        return min(index % 13 + 1, 10) + _best_without_one(mask)
    full = mask | 1 << index
    if limit < tactics.NO_LIMIT:
        floor = deadwood_of_mask(full) - 10
        if floor > limit:
            return floor
    return tactics.least_throwing_one(full, mask, stop_at)


def _can_knock_after(mask: int, index: int, limit: int) -> bool:
    """Whether adding card ``index`` and throwing another can leave ``limit`` or less."""
    return _best_after(mask, index, limit, stop_at=limit) <= limit


@lru_cache(maxsize=1 << 16)
def _best_without_one(mask: int) -> int:
    """Least deadwood of the hand with one of its cards thrown."""
    return tactics.least_throwing_one(mask, mask)


def feed(hands: list[Guess], index: int) -> float:
    """Expected deadwood the opponent saves by taking card ``index`` from the pile."""
    total = sum(g.weight for g in hands) or 1.0
    fed = 0.0
    for g in hands:
        if FEED_MELDS_ONLY and not partners(g.hand, index):
            continue
        saved = deadwood_of_mask(g.hand) - _best_after(g.hand, index)
        if saved > 0:
            fed += g.weight * saved
    return fed / total


def reweighted(hands: list[Guess], table: feed_model.Table, know: Knowledge) -> list[Guess]:
    """The guesses reweighed by how well their hidden cards fit the learned held chances."""
    rate = table.base_rate or 1.0
    logs = [math.log(max(p, 1e-3) / rate) for p in table.held]
    out = []
    for g in hands:
        ratio = sum(logs[i] for i in bits(g.hand & know.unseen))
        out.append(Guess(g.hand, g.weight * math.exp(FEED_REWEIGHT * ratio)))
    return out


def modelled_feeds(
    view: PlayerView, know: Knowledge, hands: list[Guess], feeds: dict[int, float]
) -> dict[int, float]:
    """``feeds`` (the guesses' expected saving of each discard) with the guesses' chance
    of a meld replaced, by ``FEED_MODEL``, with the learned chance of ``feed_model``.

    The guesses' saving is their meld share times what a meld saves in the guesses
    that meld; a card no guess melds with is priced at the mean saving of a meld over
    this decision's other cards (``FEED_FALLBACK`` when there is none).
    """
    table = feed_model.table(view, know)
    shares = [feed_model.meld_share(hands, i) for i in feeds]
    chances = []
    for index, share in zip(feeds, shares, strict=True):
        learned = feed_model.chance(feed_model.features(table, index, share))
        chances.append((1 - FEED_MODEL) * share + FEED_MODEL * learned)
    return dict(zip(feeds, feed_at_chance(list(feeds.values()), shares, chances), strict=True))


def feed_at_chance(
    feeds: Sequence[float], shares: Sequence[float], chances: Sequence[float]
) -> list[float]:
    """Each discard's feed (the guesses' expected saving) with the guesses' meld chance
    (``shares``) replaced by ``chances``: what a meld saves stays the guesses' (a card no
    guess melds with: the mean over the others, ``FEED_FALLBACK`` when there is none)."""
    savings = [f / s for f, s in zip(feeds, shares, strict=True) if s > 0]
    fallback = sum(savings) / len(savings) if savings else FEED_FALLBACK
    return [
        f * c / s if s > 0 else c * fallback for f, s, c in zip(feeds, shares, chances, strict=True)
    ]


def quick_scores(
    view: PlayerView,
    know: Knowledge,
    hands: list[Guess],
    clock: Clock,
    chance: float | None = None,
) -> list[tuple[float, int]]:
    """Every legal discard scored (lower is better), best first, as (score, card index).

    Medium's judgement of the cards kept (its live half-melds worth less the likelier
    the opponent is to knock next turn, when the deadwood held is what counts), plus
    what the card would save the opponent; a card that melds with cards the opponent
    is known to hold is ruled out whenever another discard leaves no more deadwood.
    ``chance`` is the opponent's knock chance when the hold decision already worked it out.
    """
    mask = know.mine
    if DANGER_WEIGHT and chance is None:
        chance = knock_chance(know, hands, view.knock_limit, clock)
    base = keep_scores(view, know, chance or 0.0)
    options = [CARD_INDEX[c] for c in tactics.discardable(view)]
    left = {i: deadwood_of_mask(mask & ~(1 << i)) for i in options}
    feeds_known = {i for i in options if partners(know.opponent_known, i)}
    safe_left = min((left[i] for i in options if i not in feeds_known), default=None)
    feeds: dict[int, float] = {}
    if FEED_WEIGHT:
        priced = reweighted(hands, feed_model.table(view, know), know) if FEED_REWEIGHT else hands
        for index in options:
            if clock.expired():  # the cards left unpriced, as v2 did
                break
            feeds[index] = feed(priced, index)
        if feeds and FEED_MODEL:
            feeds = modelled_feeds(view, know, priced, feeds)
    scored = []
    for index in options:
        score = base[DECK[index]]
        if index in feeds:
            score += FEED_WEIGHT * feeds[index]
        if index in feeds_known and safe_left is not None and safe_left <= left[index]:
            score += FORBIDDEN
        scored.append((score, -CARD_VALUE[DECK[index]], index))
    scored.sort()
    if CHOICE_PRICE and len(scored) > 1:
        scored = _choice_priced(view, know, hands, scored)
    if ROLLOUT_FIT and discard_fit.WEIGHTS and len(scored) > 1:
        rows = {
            index: candidate_row(view, know, hands, chance or 0.0, score, base, index)
            for score, _, index in scored[: discard_fit.TOP]
            if score < FORBIDDEN
        }
        if len(rows) > 1:
            ranked = sorted(scored[: len(rows)], key=lambda s: -discard_fit.worth(rows[s[2]]))
            scored = ranked + scored[len(rows) :]
    return [(score, index) for score, _, index in scored]


def keep_scores(view: PlayerView, know: Knowledge, chance: float) -> dict[str, float]:
    """Medium's judgement of each discard, its half-meld promise shrunk by the opponent's
    knock ``chance`` (``DANGER_WEIGHT``): the base of hard's score."""
    shrink = max(0.0, 1.0 - DANGER_WEIGHT * chance)
    promise = (PROMISE_EARLY * shrink, PROMISE_LATE * shrink)
    return medium.discard_scores(view, know, promise, INTEREST_WEIGHT)


def candidate_row(
    view: PlayerView,
    know: Knowledge,
    hands: list[Guess],
    chance: float,
    score: float,
    base: dict[str, float],
    index: int,
) -> list[float]:
    """The features ``discard_fit`` learned from, for discarding card ``index``."""
    card = DECK[index]
    return discard_fit.row(
        score,
        base[card],
        feed(hands, index),
        feed_model.meld_share(hands, index),
        CARD_VALUE[card],
        deadwood_of_mask(know.mine & ~(1 << index)),
        view.stock_size,
        chance,
        bool(partners(know.opponent_known, index)),
    )


def _choice_priced(
    view: PlayerView,
    know: Knowledge,
    hands: list[Guess],
    scored: list[tuple[float, int, int]],
) -> list[tuple[float, int, int]]:
    """``scored`` (sorted) with the near-tied discards repriced by the learned meld chance
    and ranked first; the rest keep their scores and order after them."""
    least = scored[0][0]
    near = [s for s in scored if s[0] <= least + CHOICE_CONTENTION]
    if len(near) < 2:
        return scored
    table = feed_model.table(view, know)
    priced = []
    for score, value, index in near:
        p = feed_model.chance(
            feed_model.features(table, index, feed_model.meld_share(hands, index))
        )
        priced.append((score + CHOICE_PRICE * p, value, index))
    priced.sort()
    return priced + scored[len(near) :]


def _stock_draws(
    know: Knowledge, hands: list[Guess], clock: Clock
) -> Iterator[tuple[Guess, list[int], float]]:
    """Each guess (until the clock runs out), the stock cards it leaves, and each one's weight.

    The weight of a draw is the guess's weight shared evenly over those cards.
    """
    for number, g in enumerate(hands):
        if number and clock.expired():
            return
        stock = bits(know.unseen & ~g.hand)
        yield g, stock, g.weight / len(stock) if stock else 0.0


def knock_chance(know: Knowledge, hands: list[Guess], limit: int, clock: Clock) -> float:
    """The chance the opponent can knock after its next stock draw, over the guesses."""
    total = knocks = 0.0
    for g, stock, share in _stock_draws(know, hands, clock):
        total += g.weight
        knocks += share * sum(1 for index in stock if _can_knock_after(g.hand, index, limit))
    return knocks / (total or 1.0)


def _points(points: int) -> float:
    return float(points)


def knock_value(
    rest: int, hands: list[Guess], undercut_bonus: int, clock: Clock, worth: Worth = _points
) -> float:
    """Expected points of knocking with ``rest`` over the guessed opponent hands
    (or, with ``worth``, the expected worth of those points)."""
    total = value = 0.0
    for g in hands:
        if total and clock.expired():
            break
        total += g.weight
        value += g.weight * worth(showdown.points(rest, g.hand, undercut_bonus))
    return value / (total or 1.0)


def _knock(
    view: PlayerView, know: Knowledge, hands: list[Guess], clock: Clock
) -> tuple[Knock | str | None, float | None]:
    """The knock with the best expected points, if those beat ``KNOCK_MIN_EV``.

    When holding is worth more, the card to throw instead (if ``HOLD_THROWS_KNOCK_CARD``).
    Also the opponent's knock chance when pricing the hold worked it out (else None).
    """
    mine = know.mine
    options = sorted(
        tactics.knocks(view),
        key=lambda k: (
            deadwood_of_mask(mine & ~(1 << CARD_INDEX[k.card])),
            -CARD_VALUE[k.card],
            k.card,
        ),
    )[:KNOCK_OPTIONS]
    worth = (match_odds.worth(view) if SCORE_AWARE else None) or _points
    best: tuple[float, Knock] | None = None
    for option in options:
        value = knock_value(
            mine & ~(1 << CARD_INDEX[option.card]), hands, view.rules.undercut_bonus, clock, worth
        )
        if best is None or value > best[0]:
            best = (value, option)
    if best is None or best[0] <= KNOCK_MIN_EV:
        return None, None
    rest = mine & ~(1 << CARD_INDEX[best[1].card])
    hold, chance = hold_value(know, hands, rest, best[0], view, clock, worth)
    if hold > best[0]:
        return (best[1].card if HOLD_THROWS_KNOCK_CARD else None), chance
    return best[1], chance


def hold_value(
    know: Knowledge,
    hands: list[Guess],
    rest: int,
    knock_now: float,
    view: PlayerView,
    clock: Clock,
    worth: Worth = _points,
) -> tuple[float, float]:
    """Expected points of not knocking this turn over the guessed opponent hands, and
    the opponent's chance to knock after its next draw (as ``knock_chance`` finds it).

    On its next turn the opponent knocks (chance ``q``, from each guess and each card
    it may draw) into our hand ``rest`` (the knock's hand, kept by throwing the knock card): an undercut for us if we
    hold as little as it knocks with, a loss if more, the gin bonus against us if it
    gins. Otherwise the knock is still there a turn later, worth ``HOLD_COST`` less
    as the opponent improves, and we may draw to gin ourselves (``HOLD_GIN_WEIGHT``).
    Near the end of the stock there is no later: a discard that leaves ``WASH_AT``
    cards washes the hand at once (worth 0), and one card more gives the opponent
    the last turn (its stock draw and discard wash the hand). With ``worth`` every
    outcome is priced in its worth (``knock_now`` too), not its points.
    """
    if view.stock_size <= WASH_AT:
        return 0.0, 0.0
    last_turn = view.stock_size - 1 <= WASH_AT
    limit = view.knock_limit
    rules = view.rules
    mine_left = deadwood_of_mask(rest)
    ginners = 0
    if HOLD_GIN_WEIGHT and not last_turn:
        for index in bits(know.unseen):
            if _best_after(rest, index, 0) == 0:
                ginners |= 1 << index
    total = knocks = value = gin_value = 0.0
    for g, stock, share in _stock_draws(know, hands, clock):
        total += g.weight
        if ginners:
            ours = sum(1 for index in stock if ginners >> index & 1)
            gin = rules.gin_bonus + deadwood_of_mask(g.hand)
            gin_value += share * ours * (worth(gin) - knock_now)
        knocking = 0
        for index in stock:
            theirs = _best_after(g.hand, index, limit)
            if theirs > limit:
                continue
            knocking += 1
            if theirs == 0:
                value += share * worth(-(rules.gin_bonus + mine_left))
            elif mine_left <= theirs:
                value += share * worth(rules.undercut_bonus + theirs - mine_left)
            else:
                value += share * worth(theirs - mine_left)
        knocks += share * knocking
    total = total or 1.0
    q = knocks / total
    later = 0.0 if last_turn else knock_now - HOLD_COST + HOLD_GIN_WEIGHT * gin_value / total
    return value / total + (1 - q) * later, q
