"""Whether a seat's claim of its match would be accepted now (``GET …/claim``).

The claim itself is decided in ``domain.clock`` (``POST …/claim``, ``MatchClocks.claim``);
this answers the same question without acting, so a client can offer the claim exactly
when the server would accept it. Before, the page guessed: it assumed the default grace
period and took "no move for a while" for absence, so on a server with a longer grace, or
against an opponent still connected, its offer was refused as too early.

An opponent gone for less than the leave's settle (``settled_at``) is answered as
connected, as the seat's socket and player stream say it (``server.claim_watch``): a
page going from the lobby to the table is not told its opponent left and came back, and
the page keeps no copy of the settle to hide such an answer itself. The claim itself
needs none: by absence it waits for the grace, four settles at least.
"""

from __future__ import annotations

from domain.clock import Claim, absence_claim_at, claim_reason, last_seen
from domain.errors import MatchOver
from infra.clock import now_ms
from server.claim_watch import settled_at
from server.house_ai import is_house_ai
from server.match_clocks import AwaySince
from server.match_service import MatchService
from server.schemas import ClaimStatus
from server.seats import seat_of


async def claim_status(
    matches: MatchService, match_id: str, player_id: str, away_since_ms: AwaySince, grace_ms: int
) -> ClaimStatus:
    """The claim as ``player_id`` would make it now, by the rules ``claim`` applies.
    A settled match has nothing left to claim (``match_over``, as the claim itself): its
    opponent's presence is then no seat's business, or every past opponent (one it
    blocks too) could watch for ever when a player is online, by its player stream."""
    record = await matches.load(match_id)
    state = record.state
    seat = seat_of(state, player_id)
    if state.settlement is not None:
        raise MatchOver("the match is over: there is nothing left to claim")
    opponent = state.players[1 - seat]
    house = is_house_ai(opponent)  # it never leaves, and a claim against it is refused
    away = None if house else await away_since_ms(match_id, 1 - seat, opponent)
    now = now_ms()
    settled = settled_at(away, grace_ms)
    if settled is not None and now < settled:
        away = None  # gone a moment: not away yet
    reason = None
    if not house:
        reason = claim_reason(state, record.clock, Claim(seat, now, grace_ms, away))
    return ClaimStatus(
        claimable=reason is not None,
        reason=reason,
        grace_ms=grace_ms,
        opponent_connected=away is None,
        opponent_seen_ms=last_seen(record.clock, 1 - seat, away),
        absence_claim_at_ms=absence_claim_at(state, record.clock, seat, away, grace_ms),
        now_ms=now,
    )
