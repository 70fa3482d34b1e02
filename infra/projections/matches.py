"""Read model: each player's matches (one row per match and seat).

``score``/``opponent_score`` are the hand points while the match is active and the
settled totals (boxes and bonus included) once it is finished; ``winner`` is the
winner's player id, and ``abandoned`` says the house AI settled it while both seats were
away (no rating moved, no total counts it). The opponent of a human is ``ai:<level>``
for an AI seat.
"""

from __future__ import annotations

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from domain.events import HandScored, HandWashed, MatchSettled, MatchStarted
from infra.event_store import RecordedEvent
from infra.schema import matches

WATCHER_SEAT = 2  # the row of a match's host, who watches it from seat 0's side

# Built once (a hand ends often): SQLAlchemy then reuses the compiled form instead of
# building, keying and looking it up again for every row of every hand.
_ROW = (matches.c.match_id == bindparam("match"), matches.c.seat == bindparam("seat_"))
_HAND_SCORED = (
    update(matches)
    .where(*_ROW)
    .values(
        last_position=bindparam("position"),
        score=bindparam("ours"),
        opponent_score=bindparam("theirs"),
        hands_played=matches.c.hands_played + 1,
    )
)
_HAND_WASHED = (
    update(matches)
    .where(*_ROW)
    .values(last_position=bindparam("position"), hands_played=matches.c.hands_played + 1)
)


class MatchesProjection:
    name = "matches"
    tables: tuple[Table, ...] = (matches,)

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None:
        event, match_id = recorded.event, recorded.stream_id
        if isinstance(event, MatchStarted):

            def row(seat: int, player: str, opponent: str) -> dict[str, object]:
                return {
                    "match_id": match_id,
                    "seat": seat,
                    "player_id": player,
                    "opponent": opponent,
                    "rules_name": event.rules.name,
                    "status": "active",
                    "score": 0,
                    "opponent_score": 0,
                    "hands_played": 0,
                    "started_at": recorded.recorded_at,
                    "finished_at": None,
                    "winner": None,
                    "last_position": recorded.position,
                    "practice": int(event.practice),
                    "rated": int(event.rated),
                    "private": int(event.watch_code is not None),
                    "abandoned": 0,
                }

            rows = [row(seat, event.players[seat], event.players[1 - seat]) for seat in (0, 1)]
            if event.host is not None:  # listed for its host too, as seen from seat 0
                rows.append(row(WATCHER_SEAT, event.host, event.players[1]))
            await conn.execute(insert(matches), rows)
        elif isinstance(event, HandScored):
            ours, theirs = event.scores
            at = {"match": match_id, "position": recorded.position}
            await conn.execute(  # one statement for the three rows (executemany)
                _HAND_SCORED,
                [
                    {**at, "seat_": 0, "ours": ours, "theirs": theirs},
                    {**at, "seat_": 1, "ours": theirs, "theirs": ours},
                    {**at, "seat_": WATCHER_SEAT, "ours": ours, "theirs": theirs},
                ],
            )
        elif isinstance(event, HandWashed):
            await conn.execute(
                _HAND_WASHED,
                [
                    {"match": match_id, "position": recorded.position, "seat_": seat}
                    for seat in (0, 1, WATCHER_SEAT)
                ],
            )
        elif isinstance(event, MatchSettled):
            query = select(matches.c.player_id).where(
                matches.c.match_id == match_id, matches.c.seat == event.winner
            )
            winner = (await conn.execute(query)).scalar_one()
            for seat in (0, 1):
                await self._update(
                    conn,
                    recorded,
                    seat,
                    status="finished",
                    score=event.totals[seat],
                    opponent_score=event.totals[1 - seat],
                    finished_at=recorded.recorded_at,
                    winner=winner,
                    abandoned=int(event.abandoned),
                )
            await self._update(  # the host's row names the winning seat: both may be one id
                conn,
                recorded,
                WATCHER_SEAT,
                status="finished",
                score=event.totals[0],
                opponent_score=event.totals[1],
                finished_at=recorded.recorded_at,
                winner=f"seat:{event.winner}",
                abandoned=int(event.abandoned),
            )

    @staticmethod
    async def _update(
        conn: AsyncConnection, recorded: RecordedEvent, seat: int, **values: object
    ) -> None:
        await conn.execute(
            update(matches)
            .where(matches.c.match_id == recorded.stream_id, matches.c.seat == seat)
            .values(last_position=recorded.position, **values)
        )
