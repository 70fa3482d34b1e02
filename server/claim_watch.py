"""What a player stream says of its opponents' presence, and when a claim is accepted.

A bot waiting for an opponent's move wants to know, without asking, when the opponent
left and from when it may claim the match. The stream answers it as ``GET …/claim``
would (``server.claim_status``), by the same rules the claim itself applies
(``domain.clock``): the match's log (whose turn, since when, the timeouts in a row) and
the presence rows every server process shares, so an opponent connected to another
process counts, and a process that dies counts as its seats leaving once its rows go
stale. Presence has no notification of its own (a stale row is a row that stopped
being written), so the stream reads it: only for its matches where the opponent (not
the house AI, which never leaves) is to act, at a match's every new version and then
every ``interval_s`` (``presence_look_s``), one small read each, and at once when a
socket of the opponent opens or closes (``Presence.on_change``: a player who came back
was still said to be away, and offered to be claimed from, until the next look): on this
process, or on another one that said so (PostgreSQL's NOTIFY); the look is the backstop
for a notification missed. An opponent
is said to be away once gone ``LEAVE_SETTLE_MS``: a page that reloads is not. A seat's
match socket (``server.ws.live_presence``) says the same frames of its one match.

Frames (each with ``match_id``, ``version`` and the server's ``now_ms``):
  ``opponent_away``  the opponent, to act, is connected nowhere: a claim by absence is
                     accepted from ``claim_at_ms`` if it stays away and nothing moves
                     (``seen_ms``: when it was last there). Said again with a new
                     ``claim_at_ms`` when the match moves and it is still away.
  ``opponent_back``  the opponent said to be away is connected again: no claim.
  ``claimable``      a claim (``POST …/claim``) is accepted now; ``reason`` as the
                     claim's: ``absence``, or ``timeouts`` (three in a row).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domain.clock import Claim, absence_claim_at, claim_reason, last_seen
from infra.clock import now_ms
from infra.errors import InfraError
from infra.presence import Presence
from server.match_record import MatchRecord

Frame = dict[str, Any]

LOOK_AT_MOST_S = 30.0
# An opponent gone for less than this is not said to be away yet: a page that reloads,
# or goes from the lobby (its player stream) to the table (its match socket), is back by
# then, and its opponent was told "away" and "back" within a second (at every match's
# start, once looks came at once). At most a quarter of the grace, for the away to come
# well before the claim. ``GET …/claim`` (``server.claim_status``) waits it out too.
LEAVE_SETTLE_MS = 3000


def leave_settle_ms(grace_ms: int) -> int:
    """The one settle of a leave, for the socket's frames and ``GET …/claim`` alike."""
    return min(LEAVE_SETTLE_MS, grace_ms // 4)


def settled_at(away: int | None, grace_ms: int) -> int | None:
    """When a seat away since ``away`` is said to be away: the leave's settle after it
    left. None if it is connected; one that never connected (``away`` 0) is away at once."""
    return away + leave_settle_ms(grace_ms) if away else None


def presence_look_s(grace_ms: int) -> float:
    """How often a watch reads a waited-for opponent's presence: four times a grace
    period (every 30 s under the default 120 s), so leaving is told well within it. Only
    ``opponent_away`` and ``opponent_back`` wait for a look: ``claim_at_ms`` is exact
    (from when the presence rows say it left), and ``claimable`` comes then, after a
    fresh read. The bot it replaces asked ``GET …/claim`` every half grace: a request,
    a token check, a match read and this same read."""
    return max(0.25, min(LOOK_AT_MOST_S, grace_ms / 4000))


@dataclass
class Watched:
    record: MatchRecord
    seat: int
    claim_at_ms: int | None = None  # as last announced (None: not said to be away)
    claimable: tuple[int, str] | None = None  # (version, reason) last announced
    due_ms: int | None = 0  # when to look again (None: not until the match moves)
    held: bool = False  # a read of the match failed: its record may be stale (``hold``)
    unwatch: Callable[[], None] = field(default=lambda: None)  # stops ``Presence.on_change``
    changes: int = 0  # the opponent's sockets opened or closed here (``_moved``)


class ClaimWatch:
    """``wake``: called when a match is due a look before the time ``seconds_to_next``
    said (its opponent's socket opened or closed here), for the reader to call ``frames``."""

    def __init__(
        self,
        presence: Presence,
        grace_ms: int,
        interval_s: float,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.presence = presence
        self.grace_ms = grace_ms
        self.interval_ms = int(interval_s * 1000)
        self.wake = wake
        self.matches: dict[str, Watched] = {}

    @classmethod
    def under(
        cls, presence: Presence, grace_s: float, wake: Callable[[], None] = lambda: None
    ) -> ClaimWatch:
        """A watch for the server's absence grace, looking as often as it calls for."""
        grace_ms = int(grace_s * 1000)
        return cls(presence, grace_ms, presence_look_s(grace_ms), wake)

    def follow(self, record: MatchRecord, seat: int) -> None:
        """The match as the stream last read it; a new version is looked at at once."""
        match_id = record.state.match_id
        watched = self.matches.get(match_id)
        if watched is None:
            watched = self.matches[match_id] = Watched(record, seat)
            absent = 1 - seat
            watched.unwatch = self.presence.on_change(
                match_id,
                absent,
                record.state.players[absent],
                lambda: self._moved(match_id),
            )
        elif watched.held or watched.record.state.version != record.state.version:
            watched.record, watched.due_ms, watched.held = record, 0, False

    def hold(self, match_id: str) -> None:
        """Say nothing of a match whose re-read failed until it is read again (``follow``):
        the record kept may predate its end, and a look at it would tell an opponent away,
        or a match claimable, after the match was settled."""
        watched = self.matches.get(match_id)
        if watched is not None:
            watched.held = True

    def _moved(self, match_id: str) -> None:
        """The opponent's socket opened or closed here: look now, if anyone waits for it."""
        watched = self.matches.get(match_id)
        if watched is not None and watched.due_ms is not None:
            watched.changes += 1
            watched.due_ms = 0
            self.wake()

    def forget(self, match_id: str) -> None:
        watched = self.matches.pop(match_id, None)
        if watched is not None:
            watched.unwatch()

    def close(self) -> None:
        """The reader is gone: stop hearing of presence changes."""
        for match_id in list(self.matches):
            self.forget(match_id)

    def seconds_to_next(self) -> float | None:
        due = [w.due_ms for w in self.matches.values() if w.due_ms is not None and not w.held]
        return None if not due else max(0.0, (min(due) - now_ms()) / 1000)

    async def frames(self, heard: Callable[[str], int]) -> list[Frame]:
        """The frames of every match due a look now. ``heard``: the newest version of a
        match its reader has been told of. A ``claimable`` of an older version is not
        said: the match moved while presence was read, and a claim of the version before
        would be refused; the look at the new version says it, if it still holds."""
        frames: list[Frame] = []
        for match_id, watched in list(self.matches.items()):
            if watched.held:
                continue
            if watched.due_ms is not None and watched.due_ms <= now_ms():
                frames += [
                    frame
                    for frame in await self._look(match_id, watched)
                    if frame["type"] != "claimable" or heard(match_id) <= frame["version"]
                ]
        return frames

    async def _look(self, match_id: str, watched: Watched) -> list[Frame]:
        state, clock, seat = watched.record.state, watched.record.clock, watched.seat
        absent = 1 - seat
        waited_for = state.settlement is None and absent in state.to_act()
        away = None
        changes = watched.changes
        if waited_for:
            try:
                away = await self.presence.away_since(match_id, absent, state.players[absent])
            except InfraError:  # the database is out of reach: look again later
                watched.due_ms = now_ms() + self.interval_ms
                return []
        now = now_ms()
        claim_at = absence_claim_at(state, clock, seat, away, self.grace_ms)
        reason = claim_reason(state, clock, Claim(seat, now, self.grace_ms, away))
        # Gone a moment: it may be back at once. Not if an absence was said already (it came
        # back and left again on another process between two looks): its news is due now.
        settling = watched.claim_at_ms is None and watched.claimable is None
        settled = settled_at(away, self.grace_ms)
        if settled is not None and now < settled and reason is None and settling:
            watched.due_ms = min(now + self.interval_ms, settled)
            if watched.changes != changes:
                watched.due_ms = 0
            return []
        head = {"match_id": match_id, "version": state.version, "now_ms": now}
        frames: list[Frame] = []
        if claim_at is not None and claim_at != watched.claim_at_ms:
            seen = last_seen(clock, absent, away)
            frames.append(
                {"type": "opponent_away", **head, "seen_ms": seen, "claim_at_ms": claim_at}
            )
            # A new absence (it came and went between two looks): its claim is news again
            watched.claimable = None
        elif claim_at is None and watched.claim_at_ms is not None and waited_for:
            frames.append({"type": "opponent_back", **head})  # connected again: not away
            watched.claimable = None  # if it leaves again, its claim is news again
        watched.claim_at_ms = claim_at
        if reason is not None and watched.claimable != (state.version, reason):
            watched.claimable = (state.version, reason)
            frames.append({"type": "claimable", **head, "reason": reason})
        watched.due_ms = None  # nobody is waited for: nothing changes until the match moves
        if waited_for:  # it may leave, or come back (after a claim was said, too)
            watched.due_ms = now + self.interval_ms
            if claim_at is not None and reason is None:
                watched.due_ms = min(watched.due_ms, claim_at)
            if watched.changes != changes:  # it moved again while presence was read
                watched.due_ms = 0
        return frames
