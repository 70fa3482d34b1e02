"""The pure decision over a group of appends: as if each ran alone, in arrival order."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from infra.append_plan import AppendRequest, StoredCommand, plan
from infra.errors import ConcurrencyConflict, IdempotencyMismatch
from infra.event_store import AppendResult

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def _request(stream: str, expected: int, n: int = 1, cmd: str | None = None, h: str | None = None):
    return AppendRequest(stream, expected, [("drew", 1, "{}")] * n, cmd, h)


def test_later_appends_see_earlier_ones_in_the_same_group() -> None:
    decided = plan(
        [_request("a", 0, 2, "c1", "h"), _request("a", 2, 1), _request("a", 2, 1)],
        versions={},
        commands={},
        head=10,
        now=NOW,
    )
    first, second, third = decided.outcomes
    assert first == AppendResult("a", 1, 2, 12, recorded_at=NOW)
    assert second == AppendResult("a", 3, 3, 13, recorded_at=NOW)
    assert isinstance(third, ConcurrencyConflict) and third.actual == 3
    assert decided.head == 13
    assert [(r["position"], r["version"]) for r in decided.event_rows] == [
        (11, 1),
        (12, 2),
        (13, 3),
    ]
    assert [r["command_id"] for r in decided.command_rows] == ["c1"]


def test_commands_are_checked_before_versions_within_and_across_groups() -> None:
    stored = {"old": StoredCommand("b", "h", 1, 1, 5)}
    decided = plan(
        [
            _request("b", 0, cmd="old", h="h"),  # a retry: stale version, first result
            _request("b", 1, cmd="old", h="other"),  # same id, other payload
            _request("c", 0, cmd="new", h="x"),
            _request("c", 0, cmd="new", h="x"),  # concurrent duplicate inside the group
        ],
        versions={"b": 1},
        commands=stored,
        head=5,
        now=NOW,
    )
    retry, mismatch, fresh, duplicate = decided.outcomes
    assert retry == AppendResult("b", 1, 1, 5, duplicate=True)
    assert isinstance(mismatch, IdempotencyMismatch)
    assert fresh == AppendResult("c", 1, 1, 6, recorded_at=NOW)
    assert duplicate == AppendResult("c", 1, 1, 6, duplicate=True)
    assert decided.head == 6 and len(decided.event_rows) == 1


def test_a_command_id_from_another_stream_is_a_mismatch_not_its_result() -> None:
    """Answering with another stream's versions sent readers past this stream's end."""
    stored = {"key": StoredCommand("a", None, 3, 4, 9)}
    decided = plan(
        [_request("b", 0, cmd="key")], versions={"a": 4}, commands=stored, head=9, now=NOW
    )
    (outcome,) = decided.outcomes
    assert isinstance(outcome, IdempotencyMismatch)
    assert decided.event_rows == [] and decided.head == 9


def test_refusals_use_no_position() -> None:
    decided = plan(
        [_request("a", 3), _request("b", 0, 2)], versions={"a": 1}, commands={}, head=0, now=NOW
    )
    assert isinstance(decided.outcomes[0], ConcurrencyConflict)
    assert decided.outcomes[1] == AppendResult("b", 1, 2, 2, recorded_at=NOW)
    assert [r["position"] for r in decided.event_rows] == [1, 2]


_streams = st.sampled_from(["a", "b", "c"])
_requests = st.builds(
    _request,
    _streams,
    st.integers(0, 4),
    st.integers(1, 3),
    st.one_of(st.none(), st.sampled_from(["c1", "c2", "c3"])),
    st.sampled_from(["h1", "h2"]),
)


@given(st.lists(_requests, max_size=12), st.integers(0, 100))
def test_a_group_decides_exactly_like_one_append_at_a_time(
    group: list[AppendRequest], head: int
) -> None:
    together = plan(group, {}, {}, head, NOW)
    versions: dict[str, int] = {}
    commands: dict[str, StoredCommand] = {}
    position = head
    one_by_one: list[object] = []
    for request in group:
        alone = plan([request], versions, commands, position, NOW)
        one_by_one += alone.outcomes
        position = alone.head
        for row in alone.event_rows:
            versions[row["stream_id"]] = row["version"]
        for row in alone.command_rows:
            fields = {k: v for k, v in row.items() if k not in ("command_id", "recorded_at")}
            commands[row["command_id"]] = StoredCommand(**fields)
    assert [_comparable(o) for o in together.outcomes] == [_comparable(o) for o in one_by_one]
    assert together.head == position
    assert [r["position"] for r in together.event_rows] == list(range(head + 1, position + 1))


def _comparable(outcome: object) -> object:
    return (type(outcome).__name__, str(outcome)) if isinstance(outcome, Exception) else outcome


def _follow_up(stream: str, expected: int, cmd: str) -> AppendRequest:
    return AppendRequest(stream, expected, [("drew", 1, "{}")], cmd, None, after_previous=True)


def test_a_follow_up_is_written_only_after_its_append_was_newly_written() -> None:
    decided = plan(
        [
            _request("a", 0, 2, "move"),
            _follow_up("a", 2, "reply"),  # follows a written move: written
            _request("b", 0, 1, "old"),  # a retry: the first result, nothing new
            _follow_up("b", 1, "late"),  # follows a duplicate: not written
            _request("c", 0, 1),  # refused: c is at 1
            _follow_up("c", 1, "stray"),  # its version matches, yet it follows a refusal
        ],
        versions={"b": 1, "c": 1},
        commands={"old": StoredCommand("b", None, 1, 1, 7)},
        head=10,
        now=NOW,
    )
    move, reply, retry, late, refused, stray = decided.outcomes
    assert move == AppendResult("a", 1, 2, 12, recorded_at=NOW)
    assert reply == AppendResult("a", 3, 3, 13, recorded_at=NOW)
    assert retry == AppendResult("b", 1, 1, 7, duplicate=True)
    assert isinstance(late, ConcurrencyConflict) and late.actual == 1
    assert isinstance(refused, ConcurrencyConflict)
    assert isinstance(stray, ConcurrencyConflict) and stray.actual == 1
    assert "before it in its chain was not" in str(stray) and "chain" in str(late)
    assert [r["command_id"] for r in decided.command_rows] == ["move", "reply"]
    assert decided.head == 13
