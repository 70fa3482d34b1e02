"""The tail trace splits a slow action by the server's own timeline, on one clock."""

from __future__ import annotations

from benchmarks import tail_trace


def _out(actions: list[tuple[float, float, float, str]], spans: list[list[object]]) -> dict:
    return {"commit": "test", "rows": [], "actions": actions, "spans": spans}


def test_a_slow_action_is_split_by_where_it_waited() -> None:
    path = "/v1/matches/m1/actions"
    out = _out(
        # due 0, sent 30 ms late, in the app 40 ms, back 10 ms later: 100 ms in all
        [(0.0, 0.030, 0.100, "m1"), (0.2, 0.2, 0.205, "m2")],
        [
            ["request", 0.050, 0.090, path],
            ["group", 0.055, 0.085, 3],  # a 30 ms commit inside the request
            ["gc", 0.060, 0.062, 0],
            ["stall", 0.001, 0.025, ["x.py:1 f"]],  # before it was sent: not counted
            ["request", 0.201, 0.204, "/v1/matches/m2/actions"],
        ],
    )
    report = tail_trace.split(out, slow_ms=50)
    rows = {line.split(" | ")[0].strip("| "): line for line in report.splitlines()}
    assert "the 1 over 50 ms" in report
    slow = lambda name: rows[name].split(" | ")[2]  # noqa: E731 - the slow column
    assert slow("total").startswith("100.0 /")
    assert slow("sent late").startswith("30.0 /")
    assert slow("before the app").startswith("20.0 /")
    assert slow("inside the app").startswith("40.0 /")
    assert slow("after the app").startswith("10.0 /")
    assert slow("longest group commit overlapped").startswith("30.0 /")
    assert slow("collections overlapped, ms").startswith("2.0 /")
    assert slow("loop stalls overlapped, ms").startswith("0.0 /")
    assert "unmatched 0" in report


def test_an_action_the_server_never_timed_is_counted_unmatched() -> None:
    out = _out([(0.0, 0.0, 0.010, "m9")], [["request", 0.002, 0.008, "/v1/matches/m1/actions"]])
    assert "unmatched 1" in tail_trace.split(out, slow_ms=50)
