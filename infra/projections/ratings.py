"""Read model: every rating record's Glicko-2 numbers and its history, folded from the log.

A rated match (``MatchStarted.rated``) notes the two records its seats play for; when
it settles, each record that is not anchored is updated by ``domain.rating.update``
with the match as its own rating period, both seats judged from their ratings before
the match, and the deviation first widened by the days since the record's previous
rated match (from the events' recorded times, so a rebuild computes the same numbers). A house level's anchored record counts games but never moves. Unrated
matches (chosen seeds, custom rules, ``rated: false``, matches from before ratings)
change nothing here, nor does a rated match settled ``abandoned`` (the house AI played
both seats to the end while both players were away, docs/ratings.md): no rating, no
game counted, no history row. A settlement recorded before ``abandoned`` existed reads
as false and counts as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

import msgspec
from sqlalchemy import (
    Float,
    Integer,
    Subquery,
    Table,
    Text,
    and_,
    delete,
    exists,
    insert,
    literal,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.events import MatchSettled, MatchStarted
from domain.rating import PERIOD_SECONDS, Rating
from domain.rating import update as glicko_update
from domain.rating_policy import (
    AI_PREFIX,
    ANCHORS,
    HOUSE_VERSIONS,
    PROVISIONAL_DEVIATION,
    rating_id,
)
from infra.database import one_statement, upsert_dialect
from infra.driver_errors import translate_errors
from infra.event_store import RecordedEvent
from infra.schema import players, rated_matches, rating_history, ratings


class RatingRecord(msgspec.Struct, frozen=True):
    rating_id: str
    player_id: str
    rating: float
    deviation: float
    volatility: float
    games: int
    anchored: bool


class HistoryRow(msgspec.Struct, frozen=True):
    match_id: str
    opponent: str
    score: float
    rating_before: float
    rating: float
    deviation: float
    volatility: float
    recorded_at: datetime


class LeaderboardRow(msgspec.Struct, frozen=True):
    record: RatingRecord
    kind: Literal["person", "bot", "ai"]
    name: str


def _player_of(record: str) -> str:
    """``ai:hard:v1`` belongs to ``ai:hard``; an account's record is its id."""
    if record in ANCHORS:
        return record.rsplit(":", 1)[0]
    return record


def _initial(record: str) -> Rating:
    return ANCHORS.get(record, Rating())


class RatingsProjection:
    name = "ratings"
    tables: tuple[Table, ...] = (ratings, rating_history, rated_matches)

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None:
        event, match_id = recorded.event, recorded.stream_id
        if isinstance(event, MatchStarted) and event.rated and event.rated_as is not None:
            await conn.execute(
                insert(rated_matches).values(
                    match_id=match_id, seat0=event.rated_as[0], seat1=event.rated_as[1]
                )
            )
            dialect = upsert_dialect(conn.dialect.name == "postgresql")
            for record in set(event.rated_as):
                start = _initial(record)
                await conn.execute(
                    dialect.insert(ratings)
                    .values(
                        rating_id=record,
                        player_id=_player_of(record),
                        rating=start.rating,
                        deviation=start.deviation,
                        volatility=start.volatility,
                        games=0,
                        anchored=int(record in ANCHORS),
                    )
                    .on_conflict_do_nothing()
                )
        elif isinstance(event, MatchSettled):
            await self._settle(conn, recorded, event)

    async def _settle(
        self, conn: AsyncConnection, recorded: RecordedEvent, event: MatchSettled
    ) -> None:
        match_id = recorded.stream_id
        query = select(rated_matches.c.seat0, rated_matches.c.seat1).where(
            rated_matches.c.match_id == match_id
        )
        seats = (await conn.execute(query)).first()
        if seats is None:
            return  # an unrated match
        if event.abandoned:  # the computer decided it for both players: no result to rate
            await conn.execute(delete(rated_matches).where(rated_matches.c.match_id == match_id))
            return
        records = (seats.seat0, seats.seat1)
        rows = {
            row.rating_id: row
            for row in await conn.execute(select(ratings).where(ratings.c.rating_id.in_(records)))
        }
        before = [Rating(rows[r].rating, rows[r].deviation, rows[r].volatility) for r in records]
        for seat in (0, 1):
            record, opponent = records[seat], records[1 - seat]
            score = 1.0 if event.winner == seat else 0.0
            values: dict[str, object] = {"games": ratings.c.games + 1}
            if not rows[record].anchored:
                last = rows[record].last_played
                elapsed = 1.0 if last is None else _days(last, recorded.recorded_at)
                after = glicko_update(before[seat], [(before[1 - seat], score)], elapsed=elapsed)
                values["last_played"] = recorded.recorded_at
                values.update(
                    rating=after.rating, deviation=after.deviation, volatility=after.volatility
                )
                await conn.execute(
                    insert(rating_history).values(
                        rating_id=record,
                        match_id=match_id,
                        position=recorded.position,
                        opponent=opponent,
                        score=score,
                        rating_before=before[seat].rating,
                        rating=after.rating,
                        deviation=after.deviation,
                        volatility=after.volatility,
                        recorded_at=recorded.recorded_at,
                    )
                )
            await conn.execute(
                update(ratings).where(ratings.c.rating_id == record).values(**values)
            )
        await conn.execute(delete(rated_matches).where(rated_matches.c.match_id == match_id))


_HOUSE_PLAYERS = [f"{AI_PREFIX}{level}" for level in HOUSE_VERSIONS]


def _with_unplayed(records: list[str]) -> Subquery:
    """The ratings rows, plus a row of starting numbers for each of ``records`` that
    has none yet (a house level's record is written at its first rated match)."""
    unplayed = [
        select(
            literal(record, Text).label("rating_id"),
            literal(_player_of(record), Text).label("player_id"),
            literal(ANCHORS[record].rating, Float).label("rating"),
            literal(ANCHORS[record].deviation, Float).label("deviation"),
            literal(ANCHORS[record].volatility, Float).label("volatility"),
            literal(0, Integer).label("games"),
            literal(1, Integer).label("anchored"),
            null().label("last_played"),
        ).where(~exists().where(ratings.c.rating_id == record))
        for record in records
    ]
    return union_all(select(ratings), *unplayed).subquery("ratings")


def _days(since: datetime, until: datetime) -> float:
    """Rating periods between two recorded times (SQLite hands back naive UTC)."""
    since = since if since.tzinfo is not None else since.replace(tzinfo=UTC)
    until = until if until.tzinfo is not None else until.replace(tzinfo=UTC)
    return max((until - since).total_seconds(), 0.0) / PERIOD_SECONDS


# --- queries -----------------------------------------------------------------------------


def _record(row: object) -> RatingRecord:
    return RatingRecord(
        rating_id=row.rating_id,  # type: ignore[attr-defined]
        player_id=row.player_id,  # type: ignore[attr-defined]
        rating=row.rating,  # type: ignore[attr-defined]
        deviation=row.deviation,  # type: ignore[attr-defined]
        volatility=row.volatility,  # type: ignore[attr-defined]
        games=row.games,  # type: ignore[attr-defined]
        anchored=bool(row.anchored),  # type: ignore[attr-defined]
    )


def current_record(player_id: str) -> str | None:
    """The record a player's rating is read from: its own, or a house level's current one."""
    return rating_id(player_id)


def unrated(player_id: str) -> RatingRecord | None:
    """What a player with no rated match yet is shown: the starting numbers."""
    record = current_record(player_id)
    if record is None:
        return None
    start = _initial(record)
    return RatingRecord(
        record, player_id, start.rating, start.deviation, start.volatility, 0, record in ANCHORS
    )


async def ratings_of(engine: AsyncEngine, player_ids: Iterable[str]) -> dict[str, RatingRecord]:
    """Each player's current rating (the starting one if it has played no rated match);
    a player with no record at all (``ai:random``) is left out."""
    wanted = {p: current_record(p) for p in set(player_ids)}
    records = {r for r in wanted.values() if r is not None}
    found: dict[str, RatingRecord] = {}
    if records:
        with translate_errors():
            async with one_statement(engine) as conn:
                query = select(ratings).where(ratings.c.rating_id.in_(records))
                found = {row.rating_id: _record(row) for row in await conn.execute(query)}
    answer: dict[str, RatingRecord] = {}
    for player, record in wanted.items():
        shown = found.get(record) if record is not None else None
        shown = shown or unrated(player)
        if shown is not None:
            answer[player] = shown
    return answer


async def history_of(engine: AsyncEngine, record: str, limit: int = 100) -> list[HistoryRow]:
    """The record's rated matches, the newest first."""
    c = rating_history.c
    query = (
        select(
            c.match_id,
            c.opponent,
            c.score,
            c.rating_before,
            c.rating,
            c.deviation,
            c.volatility,
            c.recorded_at,
        )
        .where(c.rating_id == record)
        .order_by(c.position.desc())
        .limit(limit)
    )
    with translate_errors():
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    return [
        HistoryRow(
            *row[:7],
            recorded_at=row.recorded_at
            if row.recorded_at.tzinfo is not None
            else row.recorded_at.replace(tzinfo=UTC),
        )
        for row in rows
    ]


async def leaderboard(
    engine: AsyncEngine, kind: Literal["person", "bot"], limit: int, offset: int
) -> tuple[list[LeaderboardRow], bool]:
    """Established ratings of one kind, the highest first, and whether more follow.

    People are accounts of kind ``person``; bots are accounts of kind ``bot`` and the
    house levels' current anchored records, listed from the start: a level that has
    not played a rated match yet shows its anchor. Provisional ratings are left out.
    """
    house = [record for record in map(rating_id, _HOUSE_PLAYERS) if record in ANCHORS]
    rows_of = ratings if kind == "person" else _with_unplayed(house)
    kind_matches = players.c.kind == kind
    if kind == "bot":
        kind_matches = or_(kind_matches, rows_of.c.rating_id.in_(house))
    query = (
        select(rows_of, players.c.kind, players.c.name)
        .select_from(rows_of.outerjoin(players, players.c.id == rows_of.c.player_id))
        .where(and_(rows_of.c.deviation < PROVISIONAL_DEVIATION, kind_matches))
        .order_by(rows_of.c.rating.desc(), rows_of.c.rating_id)
        .limit(limit + 1)
        .offset(offset)
    )
    with translate_errors():
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    board = [
        LeaderboardRow(
            record=_record(row),
            kind=row.kind or "ai",
            name=row.name or row.player_id.removeprefix("ai:"),
        )
        for row in rows[:limit]
    ]
    return board, len(rows) > limit
