"""The objects one server process shares between requests, built in the app's lifespan."""

from __future__ import annotations

from dataclasses import dataclass

from litestar.datastructures import State

from infra.idempotency import IdempotencyKeys
from infra.players import Player, Players
from infra.sql_event_store import SqlEventStore
from server.auth import bearer_token, hash_token
from server.config import Settings
from server.fanout import Hub
from server.match_service import MatchService
from server.problems import Unauthorized
from server.schemas import MatchList, PlayerStats


@dataclass
class Services:
    settings: Settings
    store: SqlEventStore
    matches: MatchService
    hub: Hub
    players: Players
    idempotency: IdempotencyKeys

    async def authenticate(self, authorization: str | None) -> Player:
        return await self.player_for_token(bearer_token(authorization))

    async def player_for_token(self, token: str) -> Player:
        player = await self.players.player_by_token_hash(hash_token(token))
        if player is None:
            raise Unauthorized("unknown token; create a player with POST /v1/players")
        return player

    async def match_list(self, player_id: str, status: str | None) -> MatchList:
        raise NotImplementedError

    async def stats(self, player_id: str) -> PlayerStats:
        raise NotImplementedError


def services_of(state: State) -> Services:
    services = state.get("services")
    assert isinstance(services, Services), "the app's lifespan has not started"
    return services
