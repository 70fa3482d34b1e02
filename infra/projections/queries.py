"""Reading the projections: a player's matches and a player's statistics."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.driver_errors import translate_errors
from infra.projections.blocks import blocked_by
from infra.projections.matches import WATCHER_SEAT
from infra.projections.stats import COUNTERS
from infra.schema import lobby_tables, matches, player_stats


class MatchSummary(msgspec.Struct, frozen=True):
    """One match as one player sees it in their list; ``winner`` is a player id."""

    match_id: str
    player_id: str
    seat: int
    opponent: str
    rules_name: str
    status: Literal["active", "finished"]
    score: int
    opponent_score: int
    hands_played: int
    started_at: datetime
    finished_at: datetime | None
    winner: str | None
    winner_seat: int | None
    practice: bool = False
    abandoned: bool = False  # settled by the house AI with both seats away


class PlayerStatistics(msgspec.Struct, frozen=True):
    player_id: str
    matches_won: int
    matches_lost: int
    hands_won: int
    hands_lost: int
    hands_washed: int
    gins: int
    undercuts_given: int
    undercuts_received: int
    knocks: int
    points: int
    points_against: int

    @property
    def matches_played(self) -> int:
        return self.matches_won + self.matches_lost

    @property
    def hands_scored(self) -> int:
        return self.hands_won + self.hands_lost

    @property
    def average_points_per_hand(self) -> float:
        """Hand points scored per scored hand (0.0 before the first)."""
        return self.points / self.hands_scored if self.hands_scored else 0.0


async def matches_for_player(
    engine: AsyncEngine,
    player_id: str,
    status: Literal["active", "finished"] | None = None,
    limit: int | None = 100,
    offset: int = 0,
) -> list[MatchSummary]:
    """The player's matches, newest first: ``limit`` of them after the first ``offset``
    (every one with ``limit=None``)."""
    query = select(matches).where(matches.c.player_id == player_id)
    if status is not None:
        query = query.where(matches.c.status == status)
    query = query.order_by(matches.c.started_at.desc(), matches.c.match_id)
    query = query.offset(offset).limit(limit)
    with translate_errors():
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    return [
        MatchSummary(
            match_id=row.match_id,
            player_id=row.player_id,
            seat=row.seat,
            opponent=row.opponent,
            rules_name=row.rules_name,
            status=row.status,
            score=row.score,
            opponent_score=row.opponent_score,
            hands_played=row.hands_played,
            started_at=_utc(row.started_at),
            finished_at=_utc(row.finished_at) if row.finished_at is not None else None,
            winner=None if row.seat == WATCHER_SEAT else row.winner,
            winner_seat=_winner_seat(row),
            practice=bool(row.practice),
            abandoned=bool(row.abandoned),
        )
        for row in rows
    ]


class MatchInPlay(msgspec.Struct, frozen=True):
    """A match being played, as seat 0 sees it: enough to list it without folding it."""

    match_id: str
    players: tuple[str, str]
    rules_name: str
    scores: tuple[int, int]
    hands_played: int
    started_at: datetime
    rated: bool
    practice: bool


async def matches_in_play(
    engine: AsyncEngine, player_id: str | None, limit: int, offset: int = 0
) -> list[MatchInPlay]:
    """Matches in play that anyone may watch, newest first: every one (seat 0's row
    stands for it), or each that ``player_id`` sits in. At most ``limit`` after the
    first ``offset``. A match watched only with its code (``matches.private``: a private
    table's, a private match's rematch, one dealt from a chosen seed) is not among them,
    nor counted in ``offset``: a gap where it stood would tell that it is being played,
    and by whom. The match's own watch code decides, as it decides who may watch: the
    lobby's ``private`` also hides challenges and rematch offers from the open tables,
    and so once hid their matches, which anyone may watch, from this list too."""
    c = matches.c
    query = select(matches).where(c.status == "active", c.private == 0)
    if player_id is None:
        query = query.where(c.seat == 0)
    else:
        query = query.where(c.player_id == player_id, c.seat.in_((0, 1)))
    query = query.order_by(c.started_at.desc(), c.match_id).limit(limit).offset(offset)
    with translate_errors():
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    return [_from_seat_zero(row) for row in rows]


def _from_seat_zero(row: Any) -> MatchInPlay:
    players, scores = (row.player_id, row.opponent), (row.score, row.opponent_score)
    if row.seat == 1:  # the row of the player asked for, who sits in seat 1
        players, scores = players[::-1], scores[::-1]
    return MatchInPlay(
        match_id=row.match_id,
        players=players,
        rules_name=row.rules_name,
        scores=scores,
        hands_played=row.hands_played,
        started_at=_utc(row.started_at),
        rated=bool(row.rated),
        practice=bool(row.practice),
    )


async def stats_for_player(engine: AsyncEngine, player_id: str) -> PlayerStatistics:
    """The player's statistics; all zero for a player who has not played."""
    query = select(player_stats).where(player_stats.c.player_id == player_id)
    with translate_errors():
        async with engine.connect() as conn:
            row = (await conn.execute(query)).first()
    counts = {c: (getattr(row, c) if row is not None else 0) for c in COUNTERS}
    return PlayerStatistics(player_id=player_id, **counts)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _winner_seat(row: Any) -> int | None:
    """The winning seat: a host's row (seat 2, watching) names it, a seat's row the winner."""
    if row.winner is None:
        return None
    if row.seat == WATCHER_SEAT:
        return int(row.winner.removeprefix("seat:"))
    return int(row.seat if row.winner == row.player_id else 1 - row.seat)


async def seen_with(engine: AsyncEngine, player_id: str, now_ms: int) -> set[str]:
    """The players ``player_id`` is seen with now, whom its name must not pass for: its
    opponents in its matches in play, and the other end of every open challenge (rematch
    offers included) it sent or was sent. Catch the matches and the lobby up first.

    A table's match is in play from its join: a table that started a match the matches
    projection does not hold as finished counts, so the moment between the join and the
    match's first event is covered too. A challenge from a player ``player_id`` blocks
    does not count (catch the blocks up too): it has left their list, and a rename
    refused for it would tell them it is open; accepted by its id, the seat is refused."""
    in_play = select(matches.c.opponent).where(
        matches.c.player_id == player_id,
        matches.c.status == "active",
        matches.c.seat.in_((0, 1)),
    )
    t = lobby_tables.c
    finished = select(matches.c.match_id).where(matches.c.status != "active")
    open_challenge = (t.status == "open") & (t.expires_ms > now_ms) & t.invitee.is_not(None)
    hidden = (t.invitee == player_id) & t.host.in_(blocked_by(player_id))
    tables = select(t.host, t.guest, t.invitee).where(
        (t.host == player_id) | (t.invitee == player_id) | (t.guest == player_id),
        open_challenge & ~hidden | (t.status == "started") & t.match_id.not_in(finished),
    )
    with translate_errors():
        async with engine.connect() as conn:
            found: set[str] = {row.opponent for row in (await conn.execute(in_play)).all()}
            for row in (await conn.execute(tables)).all():
                found |= {id for id in (row.host, row.guest, row.invitee) if id is not None}
    return found - {player_id}
