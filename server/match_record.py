"""A match as a process holds it: its recorded events, folded, and the process's cache of them.

The match service reads a match once and then only what was appended after; the
cache is bounded by matches and by events, since one match to a target of thousands
can hold as many events as a thousand short ones.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from domain.clock import ClockState, advance
from domain.events import MatchSettled
from domain.match import evolve, fold
from domain.state import MatchState
from infra.event_store import RecordedEvent

CACHE_SIZE = 2000  # matches kept folded in memory...
CACHE_EVENTS = 400_000  # ...and their events, at most (about 0.9 KB each): long matches count
MARK_EVERY = 32  # a record keeps its state every 32 versions: ~6% more than its events


@dataclass(slots=True)
class MatchRecord:
    """A match as this process last read it: every recorded event and the folded state.

    ``marks`` holds the state at versions MARK_EVERY, 2 × MARK_EVERY, ..., kept as the
    events are folded, so an older state (a socket's resume, a replay step) is a short
    fold from the nearest mark, not one from the start of a long log; ``clock_marks``
    the clock at the same versions, so an older version's frame shows its clock too.
    """

    state: MatchState
    events: list[RecordedEvent]
    clock: ClockState
    marks: tuple[MatchState, ...] = ()
    clock_marks: tuple[ClockState, ...] = ()

    def folded(self, new: Sequence[RecordedEvent]) -> MatchRecord:
        """The record with ``new`` events after its own, the clock at their recorded times."""
        state: MatchState | None = self.state if self.events else None
        clock: ClockState | None = self.clock if self.events else None
        marks, clock_marks = list(self.marks), list(self.clock_marks)
        for recorded in new:
            state, clock = step(state, clock, recorded)
            if state.version % MARK_EVERY == 0:
                marks.append(state)
                clock_marks.append(clock)
        assert state is not None and clock is not None
        return MatchRecord(
            state=state,
            events=[*self.events, *new],
            clock=clock,
            marks=tuple(marks),
            clock_marks=tuple(clock_marks),
        )

    def settled_at_ms(self) -> int | None:
        """When the match was settled (its ``match_settled`` event was recorded), in ms
        since 1970 on the server's clock; None while it runs. A client that comes back to a
        finished match reads when it ended here (the page's rematch window), not from a
        page of the player's finished matches, which may not hold it."""
        if self.state.settlement is None:
            return None
        for recorded in reversed(self.events):
            if isinstance(recorded.event, MatchSettled):
                return int(recorded.recorded_at.timestamp() * 1000)
        return None

    def state_at(self, version: int, known: MatchState | None = None) -> MatchState:
        """The state after event ``version`` (1 or more), folded from the nearest state
        before it: a mark, or ``known`` (a state of this match the caller holds)."""
        if version == self.state.version:
            return self.state
        base = self.marks[version // MARK_EVERY - 1] if version >= MARK_EVERY else None
        if known is not None and (base.version if base else 0) <= known.version <= version:
            base = known
        start = base.version if base is not None else 0
        return fold((r.match_event for r in self.events[start:version]), base)

    def clock_at(self, version: int) -> ClockState:
        """The clock as it stood after event ``version`` (1 or more): a socket that wakes
        after two appends (a timeout, then the stand-in's move) sends a frame for each
        version, and each view must carry the clock, not only the newest."""
        if version == self.state.version:
            return self.clock
        index = version // MARK_EVERY - 1
        state: MatchState | None = self.marks[index] if index >= 0 else None
        clock: ClockState | None = self.clock_marks[index] if index >= 0 else None
        start = state.version if state is not None else 0
        for recorded in self.events[start:version]:
            state, clock = step(state, clock, recorded)
        assert clock is not None
        return clock


def step(
    state: MatchState | None, clock: ClockState | None, recorded: RecordedEvent
) -> tuple[MatchState, ClockState]:
    """One recorded event folded into the state and the clock (at the time it was recorded)."""
    state = evolve(state, recorded.match_event)
    return state, advance(clock, state, recorded.match_event, at_ms(recorded.recorded_at))


def at_ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def empty_record() -> MatchRecord:
    """The record of a match with no events yet, to fold its first ones into."""
    return MatchRecord(state=None, events=[], clock=ClockState())  # type: ignore[arg-type]


class RecordCache:
    """The newest record of each match this process used, least recently used first out."""

    def __init__(self) -> None:
        self._records: OrderedDict[str, MatchRecord] = OrderedDict()
        self.events = 0  # the events the cached records hold, together

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[MatchRecord]:
        return iter(list(self._records.values()))

    def get(self, match_id: str) -> MatchRecord | None:
        """The cached record, marked as just used; None if it is not held."""
        record = self._records.get(match_id)
        if record is not None:
            self._records.move_to_end(match_id)
        return record

    def peek(self, match_id: str) -> MatchRecord | None:
        """The cached record, leaving the order of eviction as it was."""
        return self._records.get(match_id)

    def keep(self, record: MatchRecord) -> None:
        """Cache ``record`` as its match's newest; evict the least recently used beyond
        CACHE_SIZE matches or CACHE_EVENTS events (a match may run to many thousands)."""
        match_id = record.state.match_id
        replaced = self._records.pop(match_id, None)
        if replaced is not None:
            self.events -= len(replaced.events)
        self._records[match_id] = record
        self.events += len(record.events)
        while len(self._records) > 1 and (
            len(self._records) > CACHE_SIZE or self.events > CACHE_EVENTS
        ):
            _, evicted = self._records.popitem(last=False)
            self.events -= len(evicted.events)

    def keep_if_newer(self, record: MatchRecord) -> None:
        """Cache ``record`` unless the cache already holds that match at its version or later."""
        latest = self._records.get(record.state.match_id)
        if latest is None or latest.state.version < record.state.version:
            self.keep(record)

    def clear(self) -> None:
        self._records.clear()
        self.events = 0
