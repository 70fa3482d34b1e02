"""The projections of the global log: each player's matches and statistics, the lobby,
the ratings and who blocks whom.

``projector(store)`` keeps them current (``catch_up``; ``run`` as a background task);
``rebuild_all(store)`` replays them from position 0 (also ``python -m infra.projections``).
"""

from __future__ import annotations

from infra.projections.blocks import BlocksProjection
from infra.projections.lobby import LobbyProjection
from infra.projections.matches import MatchesProjection
from infra.projections.projector import Projection, Projector
from infra.projections.queries import (
    MatchInPlay,
    MatchSummary,
    PlayerStatistics,
    matches_for_player,
    matches_in_play,
    stats_for_player,
)
from infra.projections.ratings import RatingsProjection
from infra.projections.stats import PlayerStatsProjection
from infra.sql_event_store import SqlEventStore

__all__ = [
    "BlocksProjection",
    "LobbyProjection",
    "MatchInPlay",
    "MatchSummary",
    "MatchesProjection",
    "PlayerStatistics",
    "PlayerStatsProjection",
    "Projection",
    "Projector",
    "RatingsProjection",
    "matches_for_player",
    "matches_in_play",
    "projector",
    "rebuild_all",
    "stats_for_player",
]


def projector(store: SqlEventStore) -> Projector:
    """A projector over every projection this project has."""
    return Projector(
        store,
        [
            MatchesProjection(),
            PlayerStatsProjection(),
            LobbyProjection(),
            RatingsProjection(),
            BlocksProjection(),
        ],
    )


async def rebuild_all(store: SqlEventStore) -> int:
    """Rebuild every projection from position 0; returns the events applied."""
    runner = projector(store)
    try:
        return await runner.rebuild_all()
    finally:
        runner.close()
