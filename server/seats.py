"""Who a caller is in a match: their seat, whether they may read its log, and what of
it they may see.

Every entry point (HTTP, the live socket, tables, chat, the clocks' claim) asks these
before it acts, so they live apart from the service that plays the match: one place
decides that a token never grants the house AI's seat nor the other player's.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import MatchStarted
from domain.state import MatchState
from domain.views import redact
from infra.event_store import RecordedEvent
from server.house_ai import is_house_ai
from server.match_record import MatchRecord
from server.problems import NotYourMatch
from server.schemas import VersionedEvent


def attendees(started: MatchStarted) -> tuple[str, ...]:
    """Who takes part in a match: its two seats and, for a watched match, its host."""
    return (*started.players, started.host) if started.host is not None else started.players


def seat_of(state: MatchState, player_id: str) -> int:
    """The caller's seat; a token never grants the other seat (the AI's or anyone's)."""
    for seat, player in enumerate(state.players):
        if player == player_id and not is_house_ai(player):
            return seat
    raise NotYourMatch("your token holds no seat in this match")


def reader_seat(record: MatchRecord, player_id: str) -> int | None:
    """Who may read a match's log: its seats (as their seat) and the host who started it
    between two house AIs to watch (as a spectator, ``None``; the whole log once it is over)."""
    started = record.events[0].match_event if record.events else None
    if isinstance(started, MatchStarted) and started.host == player_id:
        return None
    return seat_of(record.state, player_id)


def versioned(events: Sequence[RecordedEvent], seat: int | None) -> list[VersionedEvent]:
    """Events as a seat may see them; ``seat=None`` with ``complete`` handled by the caller."""
    return [
        VersionedEvent(version=r.version, event=redact(r.match_event, seat))  # type: ignore[arg-type]
        for r in events
    ]
