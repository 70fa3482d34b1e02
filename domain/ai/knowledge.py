"""What a careful player can know from its own view: dead cards, unseen cards, and
what the opponent took, threw and let pass.

Everything here is rebuilt from ``PlayerView`` alone (the hand's public history
with the opponent's stock draws blanked), so it can hold nothing the seat may not see.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.cards import CARD_BIT, to_mask
from domain.views import PlayerView

ALL_CARDS = (1 << 52) - 1


@dataclass(frozen=True, slots=True)
class Knowledge:
    mine: int  # my hand
    pile: int  # every card in the discard pile (the top one may still be taken)
    opponent_known: int  # cards the opponent took face up and still holds
    unseen: int  # in the opponent's hidden hand or in the stock
    hidden_count: int  # how many of the opponent's cards are hidden from me
    stock_size: int
    opponent_threw: int  # cards the opponent discarded this hand
    opponent_passed: int  # face-up cards the opponent could have taken and did not
    opponent_took: int  # cards the opponent took face up this hand (held or not)
    knock_limit: int


def read(view: PlayerView) -> Knowledge:
    """Replay the hand's public moves to learn the opponent's picks and passes."""
    me = view.seat
    pile: list[str] = []
    threw = passed = took = 0
    for move in view.moves:
        theirs = move.seat != me
        if move.action == "pass_up_card":
            if move.card is not None and not pile:
                pile.append(move.card)
            if theirs and move.card is not None:
                passed |= CARD_BIT[move.card]
        elif move.action == "take_up_card":
            if theirs and move.card is not None:
                took |= CARD_BIT[move.card]
            pile.clear()
        elif move.action == "draw_discard":
            if theirs and move.card is not None:
                took |= CARD_BIT[move.card]
            if pile:
                pile.pop()
        elif move.action == "draw_stock":
            if theirs and pile and not _forced(view, move):
                passed |= CARD_BIT[pile[-1]]
        elif move.action in ("discard", "knock") and move.card is not None:
            pile.append(move.card)
            if theirs:
                threw |= CARD_BIT[move.card]
    mine = to_mask(view.hand)
    pile_mask = to_mask(view.discard_pile)
    known = to_mask(view.opponent_known)
    unseen = ALL_CARDS & ~mine & ~pile_mask & ~known
    return Knowledge(
        mine=mine,
        pile=pile_mask,
        opponent_known=known,
        unseen=unseen,
        hidden_count=view.opponent_card_count - len(view.opponent_known),
        stock_size=view.stock_size,
        opponent_threw=threw,
        opponent_passed=passed,
        opponent_took=took,
        knock_limit=view.knock_limit,
    )


def _forced(view: PlayerView, move: object) -> bool:
    """The non-dealer's first stock draw after both passed the up-card says nothing new."""
    moves = view.moves
    return len(moves) >= 3 and moves[2] is move and moves[1].action == "pass_up_card"


def partners(mask: int, bit_index: int) -> int:
    """How many ways the card at ``bit_index`` melds with cards of ``mask`` right now.

    A set needs two more of its rank; a run needs two suited neighbours in a row.
    """
    suit, rank = divmod(bit_index, 13)
    ways = 0
    same_rank = sum(1 for s in range(4) if s != suit and mask >> (s * 13 + rank) & 1)
    if same_rank >= 2:
        ways += 1
    row = mask >> (suit * 13) & 0x1FFF

    def has(r: int) -> bool:
        return 0 <= r < 13 and bool(row >> r & 1)

    if (
        (has(rank - 1) and has(rank - 2))
        or (has(rank - 1) and has(rank + 1))
        or (has(rank + 1) and has(rank + 2))
    ):
        ways += 1
    return ways


def near(mask: int, bit_index: int) -> int:
    """How many cards of ``mask`` are one card away from a meld with this card.

    Same rank, or same suit within two ranks: the half-melds a card can grow.
    """
    suit, rank = divmod(bit_index, 13)
    count = sum(1 for s in range(4) if s != suit and mask >> (s * 13 + rank) & 1)
    row = mask >> (suit * 13) & 0x1FFF
    for r in (rank - 2, rank - 1, rank + 1, rank + 2):
        if 0 <= r < 13 and row >> r & 1:
            count += 1
    return count


def bits(mask: int) -> list[int]:
    """Bit indexes set in a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
