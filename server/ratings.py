"""Ratings at the edge: whether a new match is rated, and ratings as the API shows them.

The decision itself is ``domain.rating_policy.is_rated``; this module turns a client's
``rated`` (left out, true or false) into the flag a match or table records, and refuses
``rated: true`` where the policy says no, so the client learns why instead of playing
a match it believes counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.rating import Rating
from domain.rating_policy import AI_PREFIX, is_provisional, is_rated
from domain.rules import Rules, is_standard
from infra.projections.ratings import RatingRecord
from server.problems import NotRatable
from server.schemas import RatingSummary


def rated_for(
    seats: Sequence[str],
    rules: Rules,
    seed_chosen: bool,
    requested: bool | None,
    hints: bool = False,
) -> bool:
    """The ``rated`` flag to record: the policy's answer, unless the client declined."""
    allowed = is_rated(seats, rules, seed_chosen, hints=hints)
    if requested and not allowed:
        if hints:
            raise NotRatable("a match with the engine's hints is never rated")
        if seed_chosen:
            raise NotRatable("a match dealt from a chosen seed is practice: it cannot be rated")
        if not is_standard(rules):
            raise NotRatable("only matches under a preset's rules, unchanged, can be rated")
        if any(seat.startswith(AI_PREFIX) for seat in seats):
            raise NotRatable("this house level has no rating (random's cannot be measured)")
        raise NotRatable("a player cannot play a rated match against itself")
    return allowed and requested is not False


def summary(record: RatingRecord | None) -> RatingSummary | None:
    if record is None:
        return None
    return RatingSummary(
        rating=round(record.rating),
        deviation=round(record.deviation),
        provisional=provisional(record),
    )


def provisional(record: RatingRecord) -> bool:
    return not record.anchored and is_provisional(
        Rating(record.rating, record.deviation, record.volatility)
    )
