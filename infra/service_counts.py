"""How much the whole service holds right now, for an operator's monitoring (``/metrics``).

Every count is read from what all server processes share (the read models, the presence
and spectator rows, the log's head), so whichever process a scrape reaches answers for
the service, not for itself: behind one port several workers take turns at answering,
and a count kept in one process's memory would jump from scrape to scrape. Nothing here
names a player or a match, let alone a card.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, case, func, select, union
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.database import one_statement
from infra.driver_errors import translate_errors
from infra.schema import (
    lobby_tables,
    log_head,
    matches,
    players,
    seat_presence,
    spectators,
    stream_presence,
)


@dataclass(frozen=True)
class ServiceCounts:
    events: int  # the log's last position: every event ever appended
    players: dict[str, int]  # accounts by kind (person, bot)
    # Matches not finished (in play, or left by their players and never ended), by the
    # house AIs seated: 0 (people or bots at a table), 1 (against the house) or 2 (two
    # house AIs, watched).
    matches_unfinished: dict[int, int]
    waiting: dict[str, int]  # open tables by kind: public, private, challenge
    players_connected: int  # with a match socket or a player stream open now
    spectators: int  # spectator sockets open now, over every match


async def service_counts(engine: AsyncEngine, fresh_after_ms: int, now_ms: int) -> ServiceCounts:
    """The counts as the database holds them at ``now_ms``. A presence or spectator row
    counts if it was refreshed after ``fresh_after_ms``, as the claims and the spectator
    counts read them: a killed process's sockets stop counting when its rows go stale."""
    ais = func.sum(case((matches.c.player_id.like("ai:%"), 1), else_=0))
    in_play = (
        select(ais.label("ais"))
        .where(matches.c.status == "active", matches.c.seat.in_((0, 1)))
        .group_by(matches.c.match_id)
        .subquery()
    )
    kind = case(
        (lobby_tables.c.invitee.is_not(None), "challenge"),
        (lobby_tables.c.private == 1, "private"),
        else_="public",
    )
    seat_players = (
        select(matches.c.player_id)
        .select_from(
            seat_presence.join(
                matches,
                and_(
                    matches.c.match_id == seat_presence.c.match_id,
                    matches.c.seat == seat_presence.c.seat,
                ),
            )
        )
        .where(seat_presence.c.sockets > 0, seat_presence.c.updated_ms > fresh_after_ms)
    )
    stream_players = select(stream_presence.c.player_id).where(
        stream_presence.c.sockets > 0, stream_presence.c.updated_ms > fresh_after_ms
    )
    connected = union(seat_players, stream_players).subquery()  # a player once, however held
    with translate_errors():
        async with one_statement(engine) as conn:
            events = (await conn.execute(select(log_head.c.position))).scalar() or 0
            accounts = await conn.execute(
                select(players.c.kind, func.count()).group_by(players.c.kind)
            )
            playing = await conn.execute(
                select(in_play.c.ais, func.count()).group_by(in_play.c.ais)
            )
            open_tables = await conn.execute(
                select(kind, func.count())
                .where(lobby_tables.c.status == "open", lobby_tables.c.expires_ms > now_ms)
                .group_by(kind)
            )
            present = (await conn.execute(select(func.count()).select_from(connected))).scalar_one()
            watching = (
                await conn.execute(
                    select(func.coalesce(func.sum(spectators.c.watchers), 0)).where(
                        spectators.c.updated_ms > fresh_after_ms
                    )
                )
            ).scalar_one()
    waiting = {"public": 0, "private": 0, "challenge": 0} | {k: int(n) for k, n in open_tables}
    return ServiceCounts(
        events=int(events),
        players={"person": 0, "bot": 0} | {k: int(n) for k, n in accounts},
        matches_unfinished={0: 0, 1: 0, 2: 0} | {int(ais): int(n) for ais, n in playing},
        waiting=waiting,
        players_connected=int(present),
        spectators=int(watching),
    )
