"""Read model: per-player statistics, counted from scored and washed hands and settlements.

Practice matches (a chosen seed, or custom rules) are not counted at all: a match to a
custom target of 10, or against decks its player knew, is not a record. Matches
recorded before practice was marked count as they always did (docs/fair-deal.md).
Hands won/lost count scored hands; washed hands are counted apart. A knock that is
undercut counts as a knock for the knocker, an undercut received for the knocker and an
undercut given for the defender. Gins include big gins. ``points`` are the hand points
a player scored, ``points_against`` those scored against them.

A match settled ``abandoned`` (both players away, the house AI playing both seats to
the end: docs/ratings.md) is counted as neither won nor lost: its winner is the one the
stand-in's play for both happened to favour, no result of either player, as the ratings
skip it. Its hands count as they were scored, as every hand the stand-in plays part of
does in any timed match: a hand is counted when it ends, before anyone can know how the
match will.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from domain.events import HandScored, HandWashed, MatchSettled, MatchStarted
from infra.database import upsert_dialect
from infra.event_store import RecordedEvent
from infra.schema import player_stats, stats_seats

COUNTERS = (
    "matches_won",
    "matches_lost",
    "hands_won",
    "hands_lost",
    "hands_washed",
    "gins",
    "undercuts_given",
    "undercuts_received",
    "knocks",
    "points",
    "points_against",
)


class PlayerStatsProjection:
    name = "player_stats"
    tables: tuple[Table, ...] = (player_stats, stats_seats)

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None:
        event, match_id = recorded.event, recorded.stream_id
        if isinstance(event, MatchStarted):
            if event.practice:
                return  # no seats recorded: the match's later events find none and count nothing
            await conn.execute(
                insert(stats_seats),
                [{"match_id": match_id, "seat": s, "player_id": event.players[s]} for s in (0, 1)],
            )
            dialect = upsert_dialect(conn.dialect.name == "postgresql")
            for player in set(event.players):
                await conn.execute(
                    dialect.insert(player_stats)
                    .values(player_id=player, **dict.fromkeys(COUNTERS, 0))
                    .on_conflict_do_nothing()
                )
            return
        changes: list[Counter[str]] = [Counter(), Counter()]
        if isinstance(event, HandScored):
            knocker, winner = event.knocker, event.winner
            changes[winner].update(hands_won=1, points=event.points)
            changes[1 - winner].update(hands_lost=1, points_against=event.points)
            if event.outcome in ("gin", "big_gin"):
                changes[knocker]["gins"] += 1
            else:
                changes[knocker]["knocks"] += 1
            if event.outcome == "undercut":
                changes[knocker]["undercuts_received"] += 1
                changes[1 - knocker]["undercuts_given"] += 1
        elif isinstance(event, HandWashed):
            for seat in (0, 1):
                changes[seat]["hands_washed"] += 1
        elif isinstance(event, MatchSettled):
            if event.abandoned:
                return  # nobody's result (the docstring)
            changes[event.winner]["matches_won"] += 1
            changes[1 - event.winner]["matches_lost"] += 1
        else:
            return
        seats = await self._players(conn, match_id)
        for seat in (0, 1):
            if changes[seat] and seat in seats:
                await conn.execute(
                    update(player_stats)
                    .where(player_stats.c.player_id == seats[seat])
                    .values({col: player_stats.c[col] + n for col, n in changes[seat].items()})
                )

    @staticmethod
    async def _players(conn: AsyncConnection, match_id: str) -> dict[int, str]:
        query = select(stats_seats.c.seat, stats_seats.c.player_id).where(
            stats_seats.c.match_id == match_id
        )
        return {row.seat: row.player_id for row in await conn.execute(query)}
