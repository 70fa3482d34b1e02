"""Checking a finished match's deal from its public log alone: the verifier's rules.

Once a match is settled its whole log is public, seeds included. From it anyone can
recompute every deck, salt and the first dealer, and check them against what the
server committed to and revealed. ``problems`` lists every way the log fails to prove
a fair deal; an empty list is a proof. docs/fair-deal.md gives the same procedure
written with Python's standard library only, so nobody has to trust this code either.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import DECK
from domain.deck import deal_salt, deck_commitment, first_dealer, seed_commitment, shuffled_deck
from domain.events import Dealt, Event, HandScored, HandWashed, MatchSettled, MatchStarted

# Not a sign of tampering: with no seed of a player's in the mix the decks can be recomputed
# and checked, but the server alone could have chosen them.
UNPROVABLE = (
    "no player gave a seed: the server's seed alone fixed every deck (a practice match's "
    "chosen seed, a match between two house AIs, or one from before fair deals), so the "
    "decks prove nothing"
)


def problems(events: Sequence[Event], saved_commitment: str | None = None) -> list[str]:
    """What is wrong with the deal of this finished match; ``saved_commitment`` is the
    server seed's commitment as the player saved it before the match (GET /v1/me)."""
    if not events or not isinstance(events[0], MatchStarted):
        return ["the log does not begin with match_started"]
    started = events[0]
    settled = next((e for e in events if isinstance(e, MatchSettled)), None)
    if settled is None:
        return ["the match is not settled: its seeds are still secret"]
    found: list[str] = []
    seed = settled.seed
    if seed_commitment(seed) != started.seed_commitment:
        found.append("the revealed server seed does not match its commitment")
    if saved_commitment is not None and saved_commitment != started.seed_commitment:
        found.append("the match used another server seed than the one committed to you")
    if started.seed is not None and started.seed != seed:
        found.append("match_started and match_settled name different seeds")
    client = None
    if started.client_seeds is None:
        found.append(UNPROVABLE)
    else:
        client = (started.client_seeds[0].seed, started.client_seeds[1].seed)
        committed = started.seed_committed_ms
        for seat, given in enumerate(started.client_seeds):
            if committed is None or given.at_ms < committed:
                found.append(f"seat {seat}'s seed was given before the server committed")
    deals = [e for e in events if isinstance(e, Dealt)]
    if deals and deals[0].dealer != first_dealer(seed, client):
        found.append("the first dealer is not the one the seeds give")
    for dealt in deals:
        number = dealt.hand_number
        deck = shuffled_deck(seed, number, client)
        salt = deal_salt(seed, number, client)
        if deck_commitment(deck, salt) != dealt.commitment:
            found.append(f"hand {number}: the deal's commitment is not the seeds' deck")
        if dealt.up_card != deck[20]:
            found.append(f"hand {number}: the up-card is not the deck's 21st card")
        if dealt.deck is not None and (dealt.deck != deck or dealt.salt != salt):
            found.append(f"hand {number}: the dealt deck or salt is not the seeds'")
    for ended in events:
        if isinstance(ended, HandScored | HandWashed):
            number = ended.hand_number
            if sorted(ended.deck) != sorted(DECK):
                found.append(f"hand {number}: the revealed deck is not the 52 cards")
            if ended.deck != shuffled_deck(seed, number, client):
                found.append(f"hand {number}: the revealed deck is not the seeds' deck")
            if ended.salt != deal_salt(seed, number, client):
                found.append(f"hand {number}: the revealed salt is not the seeds' salt")
    return found
