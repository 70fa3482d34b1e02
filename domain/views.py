"""What one seat may see: the player view and the redacted form of each event.

Redaction lives here and only here. A seat sees its own cards, the public pile,
the counts, the cards the opponent took face up from the pile, and everything once
a hand is over; never the opponent's other cards, the stock order, or the seed.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.cards import Card
from domain.commands import AnySeatCommand, Knock
from domain.deck import deal
from domain.events import (
    Dealt,
    Drew,
    Event,
    HandScored,
    HandWashed,
    Knocked,
    MatchSettled,
    MatchStarted,
)
from domain.knock_layout import knock_layouts
from domain.match import legal_commands
from domain.melds import Arrangement, LayoffPlan, Meld, arrange, best_discard, best_layoffs
from domain.rules import Rules
from domain.state import MatchState, Move, Phase


class ClockView(msgspec.Struct, frozen=True):
    """The clock as every view shows it. Its deadlines are on the server's clock: a
    countdown is ``deadline_ms`` minus the ``now_ms`` of the answer or frame that brought
    the view (the time left when the server sent it), less the time since it came; never
    minus the client's own clock, which may be wrong by seconds.

    ``bank_ms`` is each seat's bank at the start of its turn (the running seat's
    is spent while ``deadline_ms`` comes nearer).
    """

    per_move_ms: int | None
    bank_ms: tuple[int, int] | None
    increment_ms: int
    running: int | None
    deadline_ms: int | None
    next_hand_deadline_ms: int | None
    timeouts_in_a_row: tuple[int, int]
    # which of this hand's ``moves`` (their indices) the house easy AI made for a seat
    # whose time ran out: a page tells them as made for it, not as its own choice
    stand_in_moves: tuple[int, ...] = ()


class KnockLayouts(msgspec.Struct, frozen=True):
    """The least-deadwood layouts a knock discarding ``discard`` may lay down.

    The first is the default (what a knock without ``layout`` lays); a client offers
    the others when there are several. Only the seat's own cards.
    """

    discard: Card
    layouts: tuple[Arrangement, ...]


class PlayerView(msgspec.Struct, frozen=True):
    """A seat's whole picture of the match; the AI plays from exactly this.

    ``pile_draws`` against ``pile_draw_limit`` (``None``: the rule is off) shows how
    close the hand is to being washed by the no-progress rule. ``best_discard`` is the
    engine's advice: null unless the match has ``hints``. ``suggested_layoffs`` is not
    advice: the rules have the engine offer every defender the layoffs that leave the
    least deadwood, so it is filled in for the defending seat whenever it defends, hints
    or not (it is worked out from that seat's own cards and the knocker's melds, which
    are shown to everyone), and null in every other view.
    ``practice``: a chosen seed or custom rules, so no statistics and no rating.
    """

    match_id: str
    seat: int
    players: tuple[str, str]
    rules: Rules
    version: int
    phase: Phase
    to_act: tuple[int, ...]
    hand_number: int
    dealer: int
    knock_limit: int
    hand: tuple[Card, ...]
    arrangement: Arrangement
    best_discard: tuple[Card, int] | None
    taken: Card | None
    opponent_card_count: int
    opponent_known: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    stock_size: int
    up_card_passes: int
    pile_draws: int
    pile_draw_limit: int | None
    moves: tuple[Move, ...]
    knock: Knocked | None
    knock_melds: tuple[Meld, ...]
    layoffs: tuple[tuple[Card, int], ...]
    suggested_layoffs: LayoffPlan | None
    scores: tuple[int, int]
    boxes: tuple[int, int]
    last_result: HandScored | HandWashed | None
    settlement: MatchSettled | None
    deal_commitment: str
    seed_commitment: str
    legal: tuple[AnySeatCommand, ...]
    practice: bool
    hints: bool
    clock: ClockView | None = None  # None: no move clock and no next-hand timeout
    knock_layouts: tuple[KnockLayouts, ...] = ()  # one per legal plain knock (not gin)


def player_view(state: MatchState, seat: int, advice: bool | None = None) -> PlayerView:
    """``advice`` (the match's ``hints`` unless given) fills in the engine's advice, the
    best discard; the house AI always gets it, as it is the engine already. A defender
    is always offered the best layoffs, advice or not."""
    advise = state.hints if advice is None else advice
    hand = state.hand
    assert hand is not None
    opponent = 1 - seat
    mine = hand.hands[seat]
    holding_eleven = hand.phase == "discard" and hand.turn == seat
    defending = hand.phase == "layoff" and hand.turn == seat
    legal = tuple(legal_commands(state, seat))
    return PlayerView(
        match_id=state.match_id,
        seat=seat,
        players=state.players,
        rules=state.rules,
        version=state.version,
        phase=state.phase,
        to_act=state.to_act(),
        hand_number=hand.number,
        dealer=hand.dealer,
        knock_limit=hand.knock_limit,
        hand=mine,
        arrangement=arrange(mine),
        best_discard=best_discard(mine, hand.taken) if holding_eleven and advise else None,
        taken=hand.taken if hand.turn == seat else None,
        opponent_card_count=len(hand.hands[opponent]),
        opponent_known=hand.known[opponent],
        discard_pile=hand.pile,
        stock_size=len(hand.stock),
        up_card_passes=hand.up_card_passes,
        pile_draws=hand.pile_draws,
        pile_draw_limit=state.rules.pile_draw_limit,
        moves=tuple(redact_move(m, seat) for m in hand.moves),
        knock=hand.knock,
        knock_melds=hand.knock_melds,
        layoffs=hand.layoffs,
        suggested_layoffs=best_layoffs(mine, hand.knock_melds) if defending else None,
        scores=state.scores,
        boxes=state.boxes,
        last_result=state.last_result,
        settlement=state.settlement,
        deal_commitment=hand.commitment,
        seed_commitment=state.seed_commitment,
        legal=legal,
        practice=state.practice,
        hints=state.hints,
        knock_layouts=_knock_layouts(state, seat, legal),
    )


def _knock_layouts(
    state: MatchState, seat: int, legal: tuple[AnySeatCommand, ...]
) -> tuple[KnockLayouts, ...]:
    """For each legal plain knock, its layouts, computed as ``decide`` would lay them."""
    hand = state.hand
    assert hand is not None
    options = []
    for command in legal:
        if isinstance(command, Knock):
            options.append(KnockLayouts(command.card, knock_layouts(hand, seat, command.card)))
    return tuple(options)


class SpectatorView(msgspec.Struct, frozen=True):
    """What anyone watching may see: only what is public to both seats.

    The discards, the cards each seat took face up from the pile (``known``), the
    counts, the knocker's melds and the layoffs; each hand in full only once it is
    over (``last_result``). Never a hidden card of either hand, nor the stock.
    """

    match_id: str
    players: tuple[str, str]
    rules: Rules
    version: int
    phase: Phase
    to_act: tuple[int, ...]
    hand_number: int
    dealer: int
    knock_limit: int
    card_counts: tuple[int, int]
    known: tuple[tuple[Card, ...], tuple[Card, ...]]
    discard_pile: tuple[Card, ...]
    stock_size: int
    up_card_passes: int
    moves: tuple[Move, ...]
    knock: Knocked | None
    knock_melds: tuple[Meld, ...]
    layoffs: tuple[tuple[Card, int], ...]
    scores: tuple[int, int]
    boxes: tuple[int, int]
    last_result: HandScored | HandWashed | None
    settlement: MatchSettled | None
    deal_commitment: str
    seed_commitment: str
    practice: bool
    hints: bool
    clock: ClockView | None = None


def spectator_view(state: MatchState) -> SpectatorView:
    hand = state.hand
    assert hand is not None
    return SpectatorView(
        match_id=state.match_id,
        players=state.players,
        rules=state.rules,
        version=state.version,
        phase=state.phase,
        to_act=state.to_act(),
        hand_number=hand.number,
        dealer=hand.dealer,
        knock_limit=hand.knock_limit,
        card_counts=(len(hand.hands[0]), len(hand.hands[1])),
        known=hand.known,
        discard_pile=hand.pile,
        stock_size=len(hand.stock),
        up_card_passes=hand.up_card_passes,
        moves=tuple(redact_move(m, None) for m in hand.moves),
        knock=hand.knock,
        knock_melds=hand.knock_melds,
        layoffs=hand.layoffs,
        scores=state.scores,
        boxes=state.boxes,
        last_result=state.last_result,
        settlement=state.settlement,
        deal_commitment=hand.commitment,
        seed_commitment=state.seed_commitment,
        practice=state.practice,
        hints=state.hints,
    )


def redact_move(move: Move, seat: int | None) -> Move:
    """A stock draw shows its card only to the seat that drew it."""
    if move.action == "draw_stock" and move.seat != seat:
        return Move(move.seat, move.action, None)
    return move


def redact(event: Event, seat: int | None) -> Event:
    """The form of an event that ``seat`` may see (``None``: a spectator, sees neither hand).

    Dealt loses the deck and salt and gains the seat's own ten cards; the opponent's
    stock draw loses its card; MatchStarted loses the seed and the watch code. The rest
    is public.
    """
    if isinstance(event, MatchStarted):
        return replace(event, seed=None, watch_code=None)
    if isinstance(event, Dealt):
        own: tuple[Card, ...] | None = None
        if seat is not None and event.deck is not None:
            own = deal(event.deck, event.dealer)[0][seat]
        return replace(event, deck=None, salt=None, hand=own)
    if isinstance(event, Drew) and event.source == "stock" and event.seat != seat:
        return replace(event, card=None)
    return event
