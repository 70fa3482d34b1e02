"""The projections of the global log: each player's matches and statistics, the lobby,
the ratings and who blocks whom.

``projector(store)`` keeps them current (``catch_up``; ``run`` as a background task);
``rebuild_all(store)`` replays them from position 0 (also ``python -m infra.projections``
and ``ginrummy rebuild-projections``, which report each one through ``rebuild``).
"""

from __future__ import annotations

import time

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
    "PROJECTIONS",
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
    "rebuild",
    "rebuild_all",
    "stats_for_player",
]


#: Every projection this project has, in the order they are caught up and rebuilt.
PROJECTIONS: tuple[type[Projection], ...] = (
    MatchesProjection,
    PlayerStatsProjection,
    LobbyProjection,
    RatingsProjection,
    BlocksProjection,
)


def projector(store: SqlEventStore) -> Projector:
    """A projector over every projection this project has."""
    return Projector(store, [kind() for kind in PROJECTIONS])


async def rebuild_all(store: SqlEventStore) -> int:
    """Rebuild every projection from position 0; returns the events applied."""
    runner = projector(store)
    try:
        return await runner.rebuild_all()
    finally:
        runner.close()


async def rebuild(store: SqlEventStore, names: list[str]) -> list[tuple[str, int, float]]:
    """Rebuild the projections named (none: all) from position 0, one at a time; for each,
    its name, the events it replayed (the log's length, not a sum over projections: an
    operator compares it with the log) and the seconds it took."""
    runner = projector(store)
    done = []
    try:
        for name in names or list(runner.projections):
            started = time.perf_counter()
            applied = await runner.rebuild(name)
            done.append((name, applied, time.perf_counter() - started))
    finally:
        runner.close()
    return done
