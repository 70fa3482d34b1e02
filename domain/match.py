"""The match as a decider: ``decide`` turns a command into events, ``evolve`` folds them.

``decide`` never changes anything: it validates against the current state and
returns the events that the command causes (a discard that leaves two stock cards
also washes the hand; a gin also scores it and may settle the match). ``evolve`` is
the only way state changes, so a match rebuilt from its events is the same match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import reduce
from typing import Any

from msgspec.structs import replace

from domain import commands as c
from domain import errors
from domain.cards import CARD_BIT, Card, parse_card, sort_cards, to_mask
from domain.deck import (
    deal,
    deal_salt,
    deck_commitment,
    first_dealer,
    seed_commitment,
    shuffled_deck,
)
from domain.events import (
    Dealt,
    Discarded,
    Drew,
    Event,
    HandAcknowledged,
    HandScored,
    HandWashed,
    Knocked,
    LaidOff,
    MatchClaimed,
    MatchSettled,
    MatchStarted,
    Resigned,
    TurnTimedOut,
    UpCardPassed,
    UpCardTaken,
    WashReason,
)
from domain.knock_layout import check_layout, knock_layouts
from domain.melds import arrange, arrange_mask, deadwood_of_mask, extend, fits
from domain.rating_policy import rating_id
from domain.rules import is_standard, knock_limit_for, validate, validate_clock
from domain.scoring import match_over, score_hand, settle
from domain.seeds import ClientSeed, check_client_seed
from domain.state import HandState, MatchState, Move

WASH_AT = 2  # a discard that leaves this many stock cards, with no knock, washes the hand
# The no-progress rule washes the hand at the discard after the rules' ``pile_draw_limit``-th
# face-up card was taken: the seat that made that draw may still knock or go gin with it.


# --- decide ------------------------------------------------------------------------


def decide(state: MatchState | None, command: c.AnyCommand) -> list[Event]:
    """The events a command causes, or a DomainError naming the rule it breaks."""
    if isinstance(command, c.StartMatch):
        return _start(state, command)
    if state is None:
        raise errors.MatchNotStarted("the match has not started")
    if state.settlement is not None:
        raise errors.MatchOver("the match is over")
    if command.seat not in (0, 1):
        raise errors.IllegalCommand(f"seat must be 0 or 1, got {command.seat!r}")
    if isinstance(command, c.Resign):
        return _resign(state, command)
    hand = state.hand
    assert hand is not None
    if (
        isinstance(command, (c.LayOff, c.FinishLayoffs))
        and hand.knock
        and hand.knock.kind != "knock"
    ):
        raise errors.NoLayoffsAgainstGin("no layoffs against gin")
    if command.seat not in state.to_act():
        if isinstance(command, c.NextHand) and command.seat in hand.acknowledged:
            raise errors.NotYourTurn(
                f"seat {command.seat} is ready for the next hand already; the other seat is not"
            )
        raise errors.NotYourTurn(f"it is not seat {command.seat}'s turn")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise errors.IllegalCommand(f"unknown command {type(command).__name__}")
    return handler(state, hand, command)


def _start(state: MatchState | None, cmd: c.StartMatch) -> list[Event]:
    if state is not None:
        raise errors.MatchAlreadyStarted("the match has already started")
    validate(cmd.rules)
    if cmd.clock is not None:
        validate_clock(cmd.clock)
    if len(cmd.players) != 2 or not all(isinstance(p, str) and p for p in cmd.players):
        raise errors.IllegalCommand("a match needs two named players")
    if not cmd.match_id:
        raise errors.IllegalCommand("a match needs an id")
    if cmd.client_seeds is not None:
        _check_client_seeds(cmd.client_seeds, cmd.seed_committed_ms)
    first, second = (rating_id(player) for player in cmd.players)
    rated_as = (first, second) if cmd.rated and first and second else None
    if cmd.rated and rated_as is None:
        raise errors.IllegalCommand("a rated match needs two seats with rating records")
    practice = cmd.client_seeds is None or not is_standard(cmd.rules)
    if cmd.rated and (practice or cmd.hints):
        raise errors.IllegalCommand("a practice match or one with hints is never rated")
    started = MatchStarted(
        match_id=cmd.match_id,
        players=cmd.players,
        rules=cmd.rules,
        seed_commitment=seed_commitment(cmd.seed),
        seed=cmd.seed,
        watch_code=cmd.watch_code,
        client_seeds=cmd.client_seeds,
        seed_committed_ms=cmd.seed_committed_ms,
        practice=practice,
        hints=cmd.hints,
        rated=cmd.rated,
        rated_as=rated_as,
        clock=cmd.clock,
        host=cmd.host,
    )
    state = evolve(None, started)
    return [started, _dealt(state, 1, first_dealer(state.seed, state.client_seeds))]


def _check_client_seeds(seeds: tuple[ClientSeed, ClientSeed], committed_ms: int | None) -> None:
    if len(seeds) != 2:
        raise errors.InvalidClientSeed("a fair match needs one client seed per seat")
    for seat, given in enumerate(seeds):
        check_client_seed(given, committed_ms, f"seat {seat}")


def _dealt(state: MatchState, number: int, dealer: int) -> Dealt:
    deck = shuffled_deck(state.seed, number, state.client_seeds)
    salt = deal_salt(state.seed, number, state.client_seeds)
    return Dealt(
        hand_number=number,
        dealer=dealer,
        up_card=deck[20],
        knock_limit=knock_limit_for(state.rules, deck[20]),
        commitment=deck_commitment(deck, salt),
        deck=deck,
        salt=salt,
    )


def _require_phase(hand: HandState, *phases: str) -> None:
    if hand.phase not in phases:
        raise errors.WrongPhase(
            f"not allowed in the {hand.phase} phase (needs {' or '.join(phases)})"
        )


def _card_to_play(hand: HandState, seat: int, text: object) -> Card:
    card = parse_card(text)
    if card not in hand.hands[seat]:
        raise errors.CardNotInHand(f"seat {seat} does not hold {card}")
    if card == hand.taken:
        raise errors.CannotDiscardTakenCard(f"{card} was just taken from the pile")
    return card


def _take_up_card(state: MatchState, hand: HandState, cmd: c.TakeUpCard) -> list[Event]:
    _require_phase(hand, "up_card")
    return [UpCardTaken(seat=cmd.seat, card=hand.pile[-1])]


def _pass_up_card(state: MatchState, hand: HandState, cmd: c.PassUpCard) -> list[Event]:
    _require_phase(hand, "up_card")
    return [UpCardPassed(seat=cmd.seat)]


def _draw_stock(state: MatchState, hand: HandState, cmd: c.DrawStock) -> list[Event]:
    _require_phase(hand, "draw")
    return [Drew(seat=cmd.seat, source="stock", card=hand.stock[0])]


def _draw_discard(state: MatchState, hand: HandState, cmd: c.DrawDiscard) -> list[Event]:
    _require_phase(hand, "draw")
    if hand.stock_only:
        raise errors.MustDrawFromStock(
            "both passed the up-card: the non-dealer draws from the stock"
        )
    if not hand.pile:
        raise errors.DiscardPileEmpty("the discard pile is empty")
    return [Drew(seat=cmd.seat, source="discard", card=hand.pile[-1])]


def _discard(state: MatchState, hand: HandState, cmd: c.Discard) -> list[Event]:
    _require_phase(hand, "discard")
    discarded = Discarded(seat=cmd.seat, card=_card_to_play(hand, cmd.seat, cmd.card))
    limit = state.rules.pile_draw_limit
    if len(hand.stock) > WASH_AT:
        if limit is None or hand.pile_draws < limit:
            return [discarded]
        reason: WashReason = "no_progress"
    else:
        reason = "stock"
    after = evolve(state, discarded).hand
    assert after is not None
    washed = HandWashed(
        hand_number=hand.number,
        hands=after.hands,
        deck=hand.deck,
        salt=hand.salt,
        reason=reason,
    )
    return [discarded, washed]


def _knock(state: MatchState, hand: HandState, cmd: c.Knock | c.Gin) -> list[Event]:
    _require_phase(hand, "discard")
    card = _card_to_play(hand, cmd.seat, cmd.card)
    kept = sort_cards(x for x in hand.hands[cmd.seat] if x != card)
    arranged = rest = arrange_mask(to_mask(kept))  # checked here, and the layouts' first
    if isinstance(cmd, c.Gin) and rest.deadwood_points:
        raise errors.NotGin(
            f"discarding {card} leaves {rest.deadwood_points} deadwood, gin needs 0"
        )
    if rest.deadwood_points > hand.knock_limit:
        raise errors.OverKnockLimit(
            f"discarding {card} leaves {rest.deadwood_points} deadwood; the knock limit is {hand.knock_limit}"
        )
    if cmd.layout is not None:
        rest = check_layout(kept, cmd.layout, least=arranged.deadwood_points)
    else:
        rest = knock_layouts(hand, cmd.seat, card, arranged)[0]
    knocked = Knocked(
        seat=cmd.seat,
        kind="gin" if rest.deadwood_points == 0 else "knock",
        discard=card,
        melds=rest.melds,
        deadwood=rest.deadwood,
        deadwood_points=rest.deadwood_points,
    )
    return _after_knock(state, knocked)


def _big_gin(state: MatchState, hand: HandState, cmd: c.BigGin) -> list[Event]:
    _require_phase(hand, "discard")
    if not state.rules.big_gin:
        raise errors.BigGinNotAllowed(f"big gin is off in the {state.rules.name} rules")
    whole = arrange(hand.hands[cmd.seat])
    if whole.deadwood_points:
        raise errors.BigGinNotAllowed(
            f"big gin needs all eleven cards melded ({whole.deadwood_points} deadwood)"
        )
    knocked = Knocked(
        seat=cmd.seat,
        kind="big_gin",
        discard=None,
        melds=whole.melds,
        deadwood=(),
        deadwood_points=0,
    )
    return _after_knock(state, knocked)


def _after_knock(state: MatchState, knocked: Knocked) -> list[Event]:
    """A plain knock waits for the defender's layoffs; gin and big gin score at once."""
    if knocked.kind == "knock":
        return [knocked]
    after = evolve(state, knocked)
    return [knocked, *_score(after)]


def _lay_off(state: MatchState, hand: HandState, cmd: c.LayOff) -> list[Event]:
    _require_phase(hand, "layoff")
    card = parse_card(cmd.card)
    if card not in hand.hands[cmd.seat]:
        raise errors.CardNotInHand(f"seat {cmd.seat} does not hold {card}")
    melds = hand.knock_melds
    if cmd.meld is None:
        index = next((i for i, meld in enumerate(melds) if fits(card, meld)), None)
        if index is None:
            raise errors.LayoffDoesNotFit(f"{card} fits none of the knocker's melds")
    else:
        index = cmd.meld
        if not (isinstance(index, int) and 0 <= index < len(melds)) or not fits(card, melds[index]):
            raise errors.LayoffDoesNotFit(f"{card} does not fit the knocker's meld {cmd.meld}")
    return [LaidOff(seat=cmd.seat, card=card, meld=index)]


def _finish_layoffs(state: MatchState, hand: HandState, cmd: c.FinishLayoffs) -> list[Event]:
    _require_phase(hand, "layoff")
    return _score(state)


def _score(state: MatchState) -> list[Event]:
    """HandScored for a knocked hand (layoffs done), then MatchSettled if the target is reached."""
    hand = state.hand
    assert hand is not None and hand.knock is not None
    knock = hand.knock
    knocker = knock.seat
    defender = 1 - knocker
    laid = tuple(card for card, _ in hand.layoffs)
    defender_rest = arrange(hand.hands[defender])
    points = score_hand(
        state.rules, knock.kind, knock.deadwood_points, defender_rest.deadwood_points
    )
    winner = knocker if points.knocker_wins else defender
    scores = list(state.scores)
    scores[winner] += points.points
    boxes = list(state.boxes)
    boxes[winner] += 1
    hands = [hand.hands[0], hand.hands[1]]
    hands[defender] = sort_cards((*hands[defender], *laid))
    scored = HandScored(
        hand_number=hand.number,
        outcome=points.outcome,
        knocker=knocker,
        winner=winner,
        points=points.points,
        knocker_deadwood=knock.deadwood_points,
        defender_deadwood=defender_rest.deadwood_points,
        hands=(hands[0], hands[1]),
        knocker_melds=hand.knock_melds,
        defender_melds=defender_rest.melds,
        defender_deadwood_cards=defender_rest.deadwood,
        layoffs=hand.layoffs,
        scores=(scores[0], scores[1]),
        boxes=(boxes[0], boxes[1]),
        deck=hand.deck,
        salt=hand.salt,
    )
    if not match_over(state.rules, scored.scores):
        return [scored]
    result = settle(state.rules, scored.scores, scored.boxes)
    settled = MatchSettled(
        winner=result.winner,
        hand_points=scored.scores,
        boxes=scored.boxes,
        box_points=result.box_points,
        bonus=result.bonus,
        bonus_kind=result.bonus_kind,
        totals=result.totals,
        seed=state.seed,
    )
    return [scored, settled]


def _resign(state: MatchState, cmd: c.Resign) -> list[Event]:
    """A resignation settles the match at once, whoever's turn it is: the hand in play
    is not scored, the points and boxes won so far stand, and the other seat wins."""
    winner = 1 - cmd.seat
    result = settle(state.rules, state.scores, state.boxes, winner=winner)
    settled = MatchSettled(
        winner=winner,
        hand_points=state.scores,
        boxes=state.boxes,
        box_points=result.box_points,
        bonus=result.bonus,
        bonus_kind=result.bonus_kind,
        totals=result.totals,
        seed=state.seed,
        resigned=cmd.seat,
    )
    return [Resigned(seat=cmd.seat), settled]


def _next_hand(state: MatchState, hand: HandState, cmd: c.NextHand) -> list[Event]:
    """The first seat to ask is recorded as ready; the second one's ask deals."""
    _require_phase(hand, "hand_over")
    if 1 - cmd.seat not in hand.acknowledged:
        return [HandAcknowledged(seat=cmd.seat)]
    last = state.last_result
    dealer = hand.dealer if isinstance(last, HandWashed) or last is None else 1 - last.winner
    return [_dealt(state, hand.number + 1, dealer)]


_HANDLERS: dict[type, Callable[[MatchState, HandState, Any], list[Event]]] = {
    c.TakeUpCard: _take_up_card,
    c.PassUpCard: _pass_up_card,
    c.DrawStock: _draw_stock,
    c.DrawDiscard: _draw_discard,
    c.Discard: _discard,
    c.Knock: _knock,
    c.Gin: _knock,
    c.BigGin: _big_gin,
    c.LayOff: _lay_off,
    c.FinishLayoffs: _finish_layoffs,
    c.NextHand: _next_hand,
}


# --- evolve ------------------------------------------------------------------------


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    return tuple(x for x in cards if x != card)


def _seat_pair(
    pair: tuple[tuple[Card, ...], tuple[Card, ...]], seat: int, value: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def evolve(state: MatchState | None, event: Event) -> MatchState:
    """The state after one event; the only place state changes."""
    if isinstance(event, MatchStarted):
        return MatchState(
            match_id=event.match_id,
            players=event.players,
            rules=event.rules,
            seed=event.seed or "",
            seed_commitment=event.seed_commitment,
            watch_code=event.watch_code,
            rated=event.rated,
            version=1,
            client_seeds=None
            if event.client_seeds is None
            else (event.client_seeds[0].seed, event.client_seeds[1].seed),
            practice=event.practice,
            hints=event.hints,
        )
    if state is None:
        raise errors.MatchNotStarted(f"{type(event).__name__} before MatchStarted")
    if isinstance(event, Dealt):
        return replace(state, version=state.version + 1, hand=_deal_hand(event))
    if isinstance(event, MatchSettled):
        return replace(state, version=state.version + 1, settlement=event)
    if isinstance(event, (Resigned, TurnTimedOut, MatchClaimed)):
        return replace(state, version=state.version + 1)
    hand = state.hand
    assert hand is not None
    if isinstance(event, HandScored):
        return replace(
            state,
            version=state.version + 1,
            scores=event.scores,
            boxes=event.boxes,
            hands_played=state.hands_played + 1,
            last_result=event,
            hand=replace(hand, phase="hand_over"),
        )
    if isinstance(event, HandWashed):
        return replace(
            state,
            version=state.version + 1,
            hands_played=state.hands_played + 1,
            last_result=event,
            hand=replace(hand, phase="hand_over"),
        )
    return replace(state, version=state.version + 1, hand=_evolve_hand(hand, event))


def _deal_hand(event: Dealt) -> HandState:
    if event.deck is None or event.salt is None:
        raise errors.IllegalCommand("a redacted Dealt event cannot be folded into full state")
    hands, up_card, stock = deal(event.deck, event.dealer)
    return HandState(
        number=event.hand_number,
        dealer=event.dealer,
        deck=event.deck,
        salt=event.salt,
        commitment=event.commitment,
        knock_limit=event.knock_limit,
        hands=(sort_cards(hands[0]), sort_cards(hands[1])),
        stock=stock,
        pile=(up_card,),
        phase="up_card",
        turn=1 - event.dealer,
    )


def _evolve_hand(hand: HandState, event: Event) -> HandState:
    if isinstance(event, UpCardTaken):
        seat = event.seat
        return replace(
            hand,
            hands=_seat_pair(hand.hands, seat, sort_cards((*hand.hands[seat], event.card))),
            pile=hand.pile[:-1],
            phase="discard",
            turn=seat,
            taken=event.card,
            known=_seat_pair(hand.known, seat, (*hand.known[seat], event.card)),
            moves=(*hand.moves, Move(seat, "take_up_card", event.card)),
            pile_draws=hand.pile_draws + 1,
        )
    if isinstance(event, UpCardPassed):
        passes = hand.up_card_passes + 1
        moves = (*hand.moves, Move(event.seat, "pass_up_card", hand.pile[-1]))
        if passes == 1:
            return replace(hand, up_card_passes=passes, turn=hand.dealer, moves=moves)
        return replace(
            hand,
            up_card_passes=passes,
            phase="draw",
            turn=1 - hand.dealer,
            stock_only=True,
            moves=moves,
        )
    if isinstance(event, Drew):
        seat = event.seat
        assert event.card is not None
        from_pile = event.source == "discard"
        return replace(
            hand,
            hands=_seat_pair(hand.hands, seat, sort_cards((*hand.hands[seat], event.card))),
            stock=hand.stock if from_pile else hand.stock[1:],
            pile=hand.pile[:-1] if from_pile else hand.pile,
            phase="discard",
            stock_only=False,
            taken=event.card if from_pile else None,
            pile_draws=hand.pile_draws + int(from_pile),
            known=_seat_pair(hand.known, seat, (*hand.known[seat], event.card))
            if from_pile
            else hand.known,
            moves=(
                *hand.moves,
                Move(seat, "draw_discard" if from_pile else "draw_stock", event.card),
            ),
        )
    if isinstance(event, Discarded):
        return replace(
            _remove_played(hand, event.seat, event.card, "discard"),
            phase="draw",
            turn=1 - event.seat,
            taken=None,
        )
    if isinstance(event, Knocked):
        if event.discard is None:
            after = replace(hand, moves=(*hand.moves, Move(event.seat, "knock", None)))
        else:
            after = _remove_played(hand, event.seat, event.discard, "knock")
        return replace(
            after,
            phase="layoff",
            turn=1 - event.seat,
            taken=None,
            knock=event,
            knock_melds=event.melds,
        )
    if isinstance(event, HandAcknowledged):
        return replace(hand, acknowledged=(*hand.acknowledged, event.seat))
    if isinstance(event, LaidOff):
        seat = event.seat
        melds = list(hand.knock_melds)
        melds[event.meld] = extend(melds[event.meld], event.card)
        return replace(
            hand,
            hands=_seat_pair(hand.hands, seat, _without(hand.hands[seat], event.card)),
            known=_seat_pair(hand.known, seat, _without(hand.known[seat], event.card)),
            knock_melds=tuple(melds),
            layoffs=(*hand.layoffs, (event.card, event.meld)),
            moves=(*hand.moves, Move(seat, "lay_off", event.card)),
        )
    raise errors.IllegalCommand(f"cannot fold {type(event).__name__}")


def _remove_played(hand: HandState, seat: int, card: Card, action: str) -> HandState:
    """A card leaves a hand face up onto the pile (a discard, or a knock's discard)."""
    return replace(
        hand,
        hands=_seat_pair(hand.hands, seat, _without(hand.hands[seat], card)),
        pile=(*hand.pile, card),
        known=_seat_pair(hand.known, seat, _without(hand.known[seat], card)),
        moves=(*hand.moves, Move(seat, action, card)),  # type: ignore[arg-type]
    )


def fold(events: Iterable[Event], state: MatchState | None = None) -> MatchState:
    """The state after a sequence of events (a whole match log, or the tail of one)."""
    result = reduce(evolve, events, state)
    if result is None:
        raise errors.MatchNotStarted("no events")
    return result


def apply(state: MatchState | None, command: c.AnyCommand) -> tuple[MatchState, list[Event]]:
    """Decide and fold in one step: the new state and the events that made it."""
    events = decide(state, command)
    return fold(events, state), events


# --- legal commands ---------------------------------------------------------------------


def legal_commands(state: MatchState, seat: int) -> list[c.AnySeatCommand]:
    """Every command the seat may make now, each concrete (cards and melds named)."""
    if seat not in state.to_act():
        return []
    hand = state.hand
    assert hand is not None
    phase = hand.phase
    if phase == "up_card":
        return [c.TakeUpCard(seat), c.PassUpCard(seat)]
    if phase == "draw":
        if hand.stock_only or not hand.pile:
            return [c.DrawStock(seat)]
        return [c.DrawStock(seat), c.DrawDiscard(seat)]
    if phase == "discard":
        return _discard_commands(state, hand, seat)
    if phase == "layoff":
        if hand.knock is not None and hand.knock.kind != "knock":
            return []  # gin is scored in the same batch of events: nothing to lay off
        layoffs: list[c.AnySeatCommand] = [
            c.LayOff(seat, card, i)
            for card in hand.hands[seat]
            for i, meld in enumerate(hand.knock_melds)
            if fits(card, meld)
        ]
        return [*layoffs, c.FinishLayoffs(seat)]
    if phase == "hand_over":
        return [c.NextHand(seat)]
    return []


def _discard_commands(state: MatchState, hand: HandState, seat: int) -> list[c.AnySeatCommand]:
    cards = hand.hands[seat]
    mask = to_mask(cards)
    result: list[c.AnySeatCommand] = []
    knocks: list[c.AnySeatCommand] = []
    for card in cards:
        if card == hand.taken:
            continue
        result.append(c.Discard(seat, card))
        deadwood = deadwood_of_mask(mask & ~CARD_BIT[card])
        if deadwood == 0:
            knocks.append(c.Gin(seat, card))
        elif deadwood <= hand.knock_limit:
            knocks.append(c.Knock(seat, card))
    if state.rules.big_gin and deadwood_of_mask(mask) == 0:
        knocks.append(c.BigGin(seat))
    return result + knocks
