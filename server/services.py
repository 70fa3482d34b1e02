"""The objects one server process shares between requests, built in the app's lifespan."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import msgspec
from litestar.datastructures import State

from domain.ai import LEVELS
from domain.errors import InvalidClientSeed, quoted
from domain.rating_policy import player_of_record
from domain.rules import Clock, Rules
from infra.clock import now_ms
from infra.players import Player, Players
from infra.presence import Presence
from infra.projections import Projector, matches_for_player, stats_for_player
from infra.projections.matches import WATCHER_SEAT
from infra.projections.ratings import history_of, leaderboard, ratings_of
from infra.sign_in_codes import SignInCodes
from infra.spectators import Spectators
from infra.sql_event_store import SqlEventStore
from infra.tokens import Tokens
from server.auth import bearer_token, hash_token, new_token
from server.blocks import BlockService
from server.chat import ChatService
from server.claim_status import claim_status
from server.config import Settings
from server.draining import Draining
from server.fair_deal import house_seed, seat_seed, take_server_seed
from server.fanout import Hub
from server.house_ai import AI_PREFIX, is_house_ai, unknown_level
from server.keys_in_flight import KeysInFlight
from server.known_tokens import KnownTokens
from server.limits import RateLimits
from server.match_record import MatchRecord
from server.match_service import MatchService
from server.problems import NotHouseSeats, PlayerNotFound, SignInCodeRefused, Unauthorized
from server.ratings import provisional, summary
from server.renames import Renames
from server.schemas import (
    ClaimStatus,
    Leaderboard,
    LeaderboardEntry,
    MatchList,
    MatchResponse,
    MatchSummary,
    PlayerKind,
    PlayerProfile,
    PlayerRating,
    PlayerRef,
    PlayerStats,
    RatingChange,
    SpectatorResponse,
)
from server.sign_in_codes import canonical, hash_code, new_code, shown
from server.tables import CODE_BYTES, TableService
from server.token_watch import TokenWatch


def seeded_watch_code(seed: str | None) -> str | None:
    """A watch code for a match dealt from a chosen seed, None for any other.

    Such a match shows its seed's commitment, and its first cards narrow the seed down: a
    spectator could guess a seed like ``demo`` and know every card. So, as a private
    table's match, it is watched only by those its players give the code to, and it is
    not listed among the matches being played."""
    return None if seed is None else secrets.token_urlsafe(CODE_BYTES)


@dataclass
class Services:
    settings: Settings
    store: SqlEventStore
    matches: MatchService
    hub: Hub
    players: Players
    keys_in_flight: KeysInFlight
    projector: Projector
    tables: TableService
    spectators: Spectators
    chat: ChatService
    tokens: Tokens
    token_watch: TokenWatch
    known_tokens: KnownTokens
    limits: RateLimits
    presence: Presence
    renames: Renames
    blocks: BlockService
    sign_in_codes: SignInCodes
    draining: Draining = field(default_factory=Draining)

    async def authenticate(self, authorization: str | None) -> Player:
        return await self.player_for_token(bearer_token(authorization))

    async def player_for_token(self, token: str) -> Player:
        """The token's player, if the token is valid now (``server/known_tokens.py``:
        a token revoked on another process is refused here within a second). A
        player's name may change meanwhile, so callers use only the id."""
        holder = await self.known_tokens.holder(hash_token(token))
        if holder is None:
            raise Unauthorized("unknown or revoked token; create a player with POST /v1/players")
        if not holder.valid_at(now_ms()):
            raise Unauthorized("the token has expired; create a player with POST /v1/players")
        return holder.player

    def token_expiry(self) -> int | None:
        """When a token issued now stops working (epoch ms), or None if tokens never expire."""
        ttl = self.settings.token_ttl_s
        return now_ms() + int(ttl * 1000) if ttl > 0 else None

    async def issue_token(self, player_id: str) -> tuple[str, int | None]:
        """One more token for the player; its other tokens keep working."""
        fresh, expires_ms = new_token(), self.token_expiry()
        await self.tokens.issue(player_id, hash_token(fresh), expires_ms)
        return fresh, expires_ms

    async def rotate_token(self, token: str) -> tuple[str, int | None]:
        """A new token for the holder of ``token``, which stops working at once."""
        await self.player_for_token(token)
        fresh, expires_ms = new_token(), self.token_expiry()
        if not await self.tokens.rotate(hash_token(token), hash_token(fresh), expires_ms):
            raise Unauthorized("the token was revoked or rotated meanwhile")
        self.forget_tokens({hash_token(token)})
        return fresh, expires_ms

    async def sign_in_code(self, token: str) -> tuple[str, int]:
        """A one-time code that signs the holder of ``token`` in elsewhere while that token
        works, and when it expires (epoch ms); the player's earlier code no longer works."""
        player = await self.player_for_token(token)
        code, now = new_code(), now_ms()
        expires_ms = now + int(self.settings.sign_in_code_ttl_s * 1000)
        await self.sign_in_codes.replace(
            player.id, hash_code(code), hash_token(token), expires_ms, now
        )
        return shown(code), expires_ms

    async def redeem_sign_in_code(self, typed: str) -> tuple[str, int | None]:
        """A new token for the player of a live code, which is spent; SignInCodeRefused,
        nothing changed, whether the code is wrong, expired or spent (the same answer to
        each, so a guesser learns nothing of which)."""
        code = canonical(typed)
        fresh, expires_ms = new_token(), self.token_expiry()
        if code is None or not await self.sign_in_codes.redeem(
            hash_code(code), now_ms(), hash_token(fresh), expires_ms
        ):
            raise SignInCodeRefused(
                "no such sign-in code: it was mistyped, has expired or was used already; "
                "ask the other device for a new one"
            )
        return fresh, expires_ms

    async def revoke_tokens(self, player_id: str) -> None:
        """Sign the player out everywhere: every token of it stops working."""
        self.forget_tokens(await self.tokens.revoke_all(player_id))

    def forget_tokens(self, token_hashes: set[str]) -> None:
        """Dead tokens: out of this process's cache, and their connections here closed."""
        self.known_tokens.forget(token_hashes)
        self.token_watch.forget(token_hashes)

    async def player_ref(self, player_id: str) -> PlayerRef:
        """Who holds a seat, as others are shown it: the house AI is ``ai:<level>``."""
        return (await self.player_refs([player_id]))[0]

    async def spectator_response(self, record: MatchRecord) -> SpectatorResponse:
        """A match as anyone watching may see it, with its seats and its spectators, and
        once settled its rematch if anyone may watch that one too (the socket cannot
        say it: a rematch starts on a table's stream, not this match's)."""
        first, second = await self.player_refs(record.state.players)
        rematch = None
        if record.state.settlement is not None:
            offer = await self.tables.latest_rematch(record.state.match_id)
            if offer is not None and offer.match_id is not None and not offer.private:
                rematch = offer.match_id
        return SpectatorResponse(
            match_id=record.state.match_id,
            version=record.state.version,
            spectators=await self.spectators.count(record.state.match_id),
            seats=(first, second),
            view=self.matches.watcher_view(record, record.state),
            now_ms=now_ms(),
            rematch=rematch,
        )

    async def player_refs(self, player_ids: Sequence[str]) -> list[PlayerRef]:
        """Several seats at once, each with its rating (one read of the ratings)."""
        rated = await ratings_of(self.store.engine, player_ids)
        people = {p for p in player_ids if not p.startswith(AI_PREFIX)}
        known = await self.players.kinds_and_names(people)  # one read for every seat
        refs = []
        kind: PlayerKind
        for player_id in player_ids:
            rating = summary(rated.get(player_id))
            name, kind = player_id.removeprefix(AI_PREFIX), "ai"
            if player_id in people:
                kind, name = known.get(player_id, ("person", player_id))
            refs.append(PlayerRef(id=player_id, name=name, kind=kind, rating=rating))
        return refs

    async def profiles(self, players: Sequence[Player]) -> list[PlayerProfile]:
        """Accounts as the API shows them, each with its rating."""
        rated = await ratings_of(self.store.engine, [p.id for p in players])
        return [
            PlayerProfile(id=p.id, name=p.name, kind=p.kind, rating=summary(rated.get(p.id)))
            for p in players
        ]

    async def claim(self, match_id: str, player_id: str) -> MatchResponse:
        """Claim the match from an absent opponent (HTTP and the live socket alike), with
        its seats and spectators as every view of a match has them."""
        grace_ms = int(self.settings.absence_grace_s * 1000)
        answer = await self.matches.clocks.claim(
            match_id, player_id, self.presence.away_since, grace_ms
        )
        return await self.with_seats(answer, spectators=True)

    async def claim_status(self, match_id: str, player_id: str) -> ClaimStatus:
        """Whether the player's claim would be accepted now, under this server's grace."""
        grace_ms = int(self.settings.absence_grace_s * 1000)
        return await claim_status(
            self.matches, match_id, player_id, self.presence.away_since, grace_ms
        )

    async def with_seats(self, answer: MatchResponse, spectators: bool = False) -> MatchResponse:
        """The answer with who sits where (and, if asked, how many watch), for a page."""
        players = answer.view.players
        first, second = await self.player_refs(players)
        seats = (first, second)
        count = await self.spectators.count(answer.match_id) if spectators else 0
        # the time again: the reads above came after the answer was made
        return msgspec.structs.replace(answer, seats=seats, spectators=count, now_ms=now_ms())

    async def match_list(
        self,
        player_id: str,
        status: Literal["active", "finished"] | None,
        limit: int = 100,
        offset: int = 0,
    ) -> MatchList:
        await self.projector.catch_up()  # read your own writes: the list is never behind
        rows = await matches_for_player(self.store.engine, player_id, status, limit + 1, offset)
        more, rows = len(rows) > limit, rows[:limit]
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
                    practice=row.practice,
                    seat=None if row.seat == WATCHER_SEAT else row.seat,
                    watching=row.seat == WATCHER_SEAT,
                    abandoned=row.abandoned,
                )
                for row in rows
            ],
            more=more,
        )

    async def create_match(
        self,
        player_id: str,
        level: str,
        rules: Rules,
        seed: str | None,
        client_seed: str | None = None,
        hints: bool = False,
        rated: bool = False,
        clock: Clock | None = None,
    ) -> str:
        """A match of the player (seat 0) against the house AI at ``level`` (seat 1).

        A chosen ``seed`` makes a practice match dealt from it alone, watched only with
        its watch code (``seeded_watch_code``); otherwise the deal is fair: the player's
        committed server seed and its client seed."""
        players = (player_id, AI_PREFIX + level)
        if seed is not None and client_seed is not None:
            raise InvalidClientSeed(
                "a chosen seed fixes the whole deal (practice): give seed or client_seed, not both"
            )
        if seed is not None:
            return await self.matches.start(
                players,
                rules,
                seed,
                watch_code=seeded_watch_code(seed),
                hints=hints,
                rated=rated,
                clock=clock,
            )
        server_seed, committed_ms = await take_server_seed(self.players, player_id)
        now = now_ms()
        return await self.matches.start(
            players,
            rules,
            server_seed,
            client_seeds=(seat_seed(player_id, client_seed, now), house_seed(now)),
            seed_committed_ms=committed_ms,
            hints=hints,
            rated=rated,
            clock=clock,
        )

    async def create_house_match(
        self, host: str, seats: tuple[str, str], rules: Rules, seed: str | None
    ) -> str:
        """A match between two house AIs that ``host`` starts to watch, seated in neither.

        It is practice and unrated (the house levels anchor the ratings) and, with a
        pace set, played one decision at a time so spectators can follow it. Dealt from a
        chosen seed, it is watched only with its watch code (``seeded_watch_code``)."""
        for seat in seats:
            if not is_house_ai(seat):
                raise NotHouseSeats(
                    f"{quoted(seat)} is no house AI: both seats are 'ai:<level>' "
                    f"(levels: {', '.join(LEVELS)}); a person or a bot plays its own seat"
                )
            if (unknown := unknown_level(seat)) is not None:
                raise NotHouseSeats(unknown)
        return await self.matches.start(
            seats, rules, seed, watch_code=seeded_watch_code(seed), hints=False, host=host
        )

    async def rating(self, player_id: str, limit: int) -> PlayerRating:
        """A player's (or a house level's) rating record with its history; 404 if unknown."""
        if is_house_ai(player_id):
            known = player_id.removeprefix(AI_PREFIX) in LEVELS
        else:
            known = await self.players.get_player(player_id) is not None
        await self.projector.catch_up("ratings")  # read your own writes
        record = (await ratings_of(self.store.engine, [player_id])).get(player_id)
        if not known or record is None:
            raise PlayerNotFound(f"no rated player {quoted(player_id)}")
        history = await history_of(self.store.engine, record.rating_id, limit)
        seats = list(dict.fromkeys(player_of_record(row.opponent) for row in history))
        opponents = dict(zip(seats, await self.player_refs(seats), strict=True))
        return PlayerRating(
            player_id=player_id,
            record=record.rating_id,
            rating=round(record.rating, 2),
            deviation=round(record.deviation, 2),
            volatility=round(record.volatility, 6),
            games=record.games,
            provisional=provisional(record),
            anchored=record.anchored,
            history=[
                RatingChange(
                    match_id=row.match_id,
                    opponent=row.opponent,
                    opponent_player=opponents[player_of_record(row.opponent)],
                    won=row.score == 1.0,
                    rating_before=round(row.rating_before, 2),
                    rating=round(row.rating, 2),
                    deviation=round(row.deviation, 2),
                    recorded_at=row.recorded_at.isoformat(),
                )
                for row in history
            ],
        )

    async def leaderboard(
        self, kind: Literal["person", "bot"], limit: int, offset: int
    ) -> Leaderboard:
        await self.projector.catch_up("ratings")
        rows, more = await leaderboard(self.store.engine, kind, limit, offset)
        return Leaderboard(
            kind=kind,
            offset=offset,
            entries=[
                LeaderboardEntry(
                    rank=offset + i + 1,
                    player=PlayerRef(
                        id=row.record.player_id,
                        name=row.name,
                        kind=row.kind,
                        rating=summary(row.record),
                    ),
                    games=row.record.games,
                )
                for i, row in enumerate(rows)
            ],
            more=more,
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
