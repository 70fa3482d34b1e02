"""The objects one server process shares between requests, built in the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import msgspec
from litestar.datastructures import State

from infra.idempotency import IdempotencyKeys
from infra.players import Player, Players
from infra.presence import Presence
from infra.projections import Projector, matches_for_player, stats_for_player
from infra.spectators import Spectators
from infra.sql_event_store import SqlEventStore
from server.auth import bearer_token, hash_token
from server.config import Settings
from server.fanout import Hub
from server.match_service import AI_PREFIX, MatchService
from server.problems import Unauthorized
from server.schemas import MatchList, MatchResponse, MatchSummary, PlayerRef, PlayerStats
from server.tables import TableService

KNOWN_TOKENS = 10_000


@dataclass
class Services:
    settings: Settings
    store: SqlEventStore
    matches: MatchService
    hub: Hub
    players: Players
    idempotency: IdempotencyKeys
    projector: Projector
    tables: TableService
    spectators: Spectators
    presence: Presence
    _known_tokens: dict[str, Player] = field(default_factory=dict)

    async def authenticate(self, authorization: str | None) -> Player:
        return await self.player_for_token(bearer_token(authorization))

    async def player_for_token(self, token: str) -> Player:
        """The token's player; known tokens are cached (a player's id and token never
        change and a player never goes; its name may change, so callers use only the id)."""
        token_hash = hash_token(token)
        player = self._known_tokens.get(token_hash)
        if player is None:
            player = await self.players.player_by_token_hash(token_hash)
            if player is None:
                raise Unauthorized("unknown token; create a player with POST /v1/players")
            if len(self._known_tokens) >= KNOWN_TOKENS:
                self._known_tokens.clear()
            self._known_tokens[token_hash] = player
        return player

    async def player_ref(self, player_id: str) -> PlayerRef:
        """Who holds a seat, as others are shown it: the house AI is ``ai:<level>``."""
        if player_id.startswith(AI_PREFIX):
            return PlayerRef(id=player_id, name=player_id.removeprefix(AI_PREFIX), kind="ai")
        player = await self.players.get_player(player_id)
        if player is None:
            return PlayerRef(id=player_id, name=player_id, kind="person")
        return PlayerRef(id=player.id, name=player.name, kind=player.kind)

    async def with_seats(self, answer: MatchResponse, spectators: bool = False) -> MatchResponse:
        """The answer with who sits where (and, if asked, how many watch), for a page."""
        players = answer.view.players
        seats = (await self.player_ref(players[0]), await self.player_ref(players[1]))
        count = await self.spectators.count(answer.match_id) if spectators else 0
        return msgspec.structs.replace(answer, seats=seats, spectators=count)

    async def match_list(
        self, player_id: str, status: Literal["active", "finished"] | None
    ) -> MatchList:
        await self.projector.catch_up()  # read your own writes: the list is never behind
        rows = await matches_for_player(self.store.engine, player_id, status)
        known = await self.players.kinds_and_names({row.opponent for row in rows})
        return MatchList(
            matches=[
                MatchSummary(
                    match_id=row.match_id,
                    status=row.status,
                    opponent=row.opponent,
                    opponent_kind="ai"
                    if row.opponent.startswith(AI_PREFIX)
                    else known.get(row.opponent, ("person", ""))[0],
                    opponent_name=row.opponent.removeprefix(AI_PREFIX)
                    if row.opponent.startswith(AI_PREFIX)
                    else known.get(row.opponent, ("person", row.opponent))[1],
                    level=row.opponent.removeprefix(AI_PREFIX)
                    if row.opponent.startswith(AI_PREFIX)
                    else None,
                    rules=row.rules_name,
                    scores=(row.score, row.opponent_score),
                    started_at=row.started_at.isoformat(),
                    finished_at=row.finished_at.isoformat() if row.finished_at else None,
                    winner=row.winner_seat,
                )
                for row in rows
            ]
        )

    async def stats(self, player_id: str) -> PlayerStats:
        await self.projector.catch_up()
        totals = await stats_for_player(self.store.engine, player_id)
        return PlayerStats(
            player_id=player_id,
            matches_played=totals.matches_played,
            matches_won=totals.matches_won,
            matches_lost=totals.matches_lost,
            hands_won=totals.hands_won,
            hands_lost=totals.hands_lost,
            hands_washed=totals.hands_washed,
            gins=totals.gins,
            knocks=totals.knocks,
            undercuts_given=totals.undercuts_given,
            undercuts_received=totals.undercuts_received,
            points=totals.points,
            points_against=totals.points_against,
            average_points_per_hand=round(totals.average_points_per_hand, 2),
        )


def services_of(state: State) -> Services:
    services = state.get("services")
    assert isinstance(services, Services), "the app's lifespan has not started"
    return services
