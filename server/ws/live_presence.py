"""A seat's match socket says when its opponent is away, back, or may be claimed from.

The page once asked ``GET …/claim`` again and again while the opponent kept it waiting:
a request per look, and every one in flight when the opponent's deciding move landed
came back 422 ``match_over``. The socket says it instead, with the player stream's
frames (``opponent_away``, ``opponent_back``, ``claimable``) decided by the same
``ClaimWatch``, for its one match, after the event frames of the version they speak of.

Only a seat hears them: whether a claim would be accepted is the seat's business, as
``GET …/claim`` refuses a spectator, and when a player was last connected tells a
stranger when that person is at their computer. Nor of the house AI, which never leaves.
A settled match says none: there is nothing left to claim.
"""

from __future__ import annotations

from collections.abc import Callable

from server.claim_watch import ClaimWatch, Frame
from server.house_ai import is_house_ai
from server.match_record import MatchRecord
from server.services import Services


class OpponentPresence:
    """The presence frames of one seat's socket; the socket's pump drives it."""

    def __init__(
        self, services: Services, match_id: str, seat: int, wake: Callable[[], None]
    ) -> None:
        self.claims = ClaimWatch.under(services.presence, services.settings.absence_grace_s, wake)
        self.match_id = match_id
        self.seat = seat
        self.over = False

    @classmethod
    def of(
        cls, services: Services, record: MatchRecord, seat: int | None, wake: Callable[[], None]
    ) -> OpponentPresence | None:
        """None for a spectator, or a seat facing the house AI: nothing to say to them.
        ``wake``: wakes the pump, for a look at once when the opponent's socket opens or
        closes (on any process, on PostgreSQL)."""
        if seat is None or is_house_ai(record.state.players[1 - seat]):
            return None
        return cls(services, record.state.match_id, seat, wake)

    def follow(self, record: MatchRecord) -> None:
        """The match as the socket has sent it, every event frame up to its version."""
        if record.state.settlement is not None:
            self.over = True
            self.claims.forget(self.match_id)
        elif not self.over:
            self.claims.follow(record, self.seat)

    def hold(self) -> None:
        """A read of the match failed: the record kept may predate its end (``ClaimWatch.hold``)."""
        self.claims.hold(self.match_id)

    def close(self) -> None:
        self.claims.close()

    def seconds_to_next(self) -> float | None:
        return self.claims.seconds_to_next()

    async def frames(self, heard: Callable[[], int]) -> list[Frame]:
        """The frames due now, without ``now_ms``: the socket's writer stamps every frame
        with the time it leaves (a frame stamped twice would carry the key twice). A
        failed presence read sends nothing and is tried again later (``ClaimWatch``).
        ``heard``: the newest version of the match the socket has been told of, asked
        once presence has been read (the match may move while it is)."""
        frames = await self.claims.frames(lambda _match_id: heard())
        for frame in frames:
            del frame["now_ms"]
        return frames
