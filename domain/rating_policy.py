"""Which matches are rated, whose rating record each seat plays for, and the house anchors.

The one decision of what counts lives in ``is_rated``: every route that starts a match
(POST /v1/matches, tables, challenges, rematches) asks it, and the answer is recorded
in the match's ``MatchStarted`` so that a replay or a rebuilt projection never has to
decide again under rules that may have changed since.

A house AI level is anchored: its rating is a measured constant, never moved by
results, so a person's rating means something from the first match against the house.
Each anchor belongs to one version of the level (``ai:hard:v1``); a stronger hard gets
a new version and a new record instead of inheriting the old one's number.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.rating import Rating
from domain.rules import Rules, is_standard

AI_PREFIX = "ai:"

# The house levels' current versions: bump one when its play changes, and give the new
# record its own measured anchor below (docs/ratings.md says how they were measured).
HOUSE_VERSIONS: dict[str, int] = {"easy": 2, "medium": 3, "hard": 2, "baseline": 2}

ANCHOR_DEVIATION = 25.0  # about the standard error of the measurements behind them
ANCHORS: dict[str, Rating] = {
    "ai:baseline:v1": Rating(1500.0, ANCHOR_DEVIATION, 0.0),
    "ai:easy:v1": Rating(1385.0, ANCHOR_DEVIATION, 0.0),
    "ai:medium:v1": Rating(1485.0, ANCHOR_DEVIATION, 0.0),
    "ai:medium:v2": Rating(1585.0, ANCHOR_DEVIATION, 0.0),  # issue 21: take rule 7, holds 5
    "ai:hard:v1": Rating(1660.0, ANCHOR_DEVIATION, 0.0),
    "ai:hard:v2": Rating(1670.0, ANCHOR_DEVIATION, 0.0),  # issue 21: could-have-knocked off
    # Defending, they lay off to the least deadwood (the rules'), not only their deadwood of
    # the moment: it changed 0.5-1.3% of their defences, worth +0.017 to +0.035 points a
    # hand, about a rating point, so the measured anchors carry over (docs/ratings.md).
    "ai:baseline:v2": Rating(1500.0, ANCHOR_DEVIATION, 0.0),
    "ai:easy:v2": Rating(1385.0, ANCHOR_DEVIATION, 0.0),
    "ai:medium:v3": Rating(1585.0, ANCHOR_DEVIATION, 0.0),
}

# A rating whose deviation is this high or higher is provisional: shown as such and
# kept off the leaderboard (about eight matches against the house from the start).
PROVISIONAL_DEVIATION = 110.0


def rating_id(player: str) -> str | None:
    """The rating record a seat plays for: a player's own id, or the house level's
    current anchored version; None for a house level without an anchor (``random``)."""
    if not player.startswith(AI_PREFIX):
        return player
    level = player.removeprefix(AI_PREFIX)
    version = HOUSE_VERSIONS.get(level)
    return None if version is None else f"{player}:v{version}"


def player_of_record(record: str) -> str:
    """The seat a rating record is played by: ``rating_id`` read backwards, a house
    level's version dropped (``ai:hard:v1`` is ``ai:hard``)."""
    if not record.startswith(AI_PREFIX):
        return record
    return AI_PREFIX + record.removeprefix(AI_PREFIX).split(":", 1)[0]


def is_anchored(record: str) -> bool:
    return record in ANCHORS


def is_rated(
    seats: Sequence[str],
    rules: Rules,
    seed_chosen: bool,
    requested: bool = True,
    hints: bool = False,
) -> bool:
    """Whether a match counts for ratings: asked for (the default), dealt from a seed
    nobody chose, without the engine's hints, under a standard preset, between seats that each have a rating
    record (every account and every anchored house level). ``seats`` are the players
    known so far: a table open to anyone knows only its host (every guest is an
    account, and an account always has a record)."""
    return (
        requested
        and not seed_chosen
        and not hints
        and is_standard(rules)
        and len(set(seats)) == len(seats)
        and all(rating_id(player) is not None for player in seats)
    )


def is_provisional(rating: Rating) -> bool:
    return rating.deviation >= PROVISIONAL_DEVIATION
