"""The history-guess study records decisions it can score again, the truth kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import history_auc


def test_record_then_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "h.jsonl"
    history_auc.main(
        [
            "record",
            "--seed",
            "t19",
            "--deals",
            "1",
            "--opponents",
            "baseline",
            "--workers",
            "1",
            "--out",
            str(data),
        ]
    )
    decisions = [json.loads(line) for line in data.read_text().splitlines()]
    assert decisions
    for d in decisions:
        assert len(d["options"]) == len(d["v2"])
        assert all(0.0 <= share <= 1.0 for share in d["v2"])
        assert not any(
            d["real"] >> i & 1 for i in d["options"]
        )  # hard's cards are not the opponent's
    history_auc.main(["score", "--data", str(data), "--workers", "1", "--set", "hard.GUESSES=8"])
    out = capsys.readouterr().out
    assert "| all |" in out and "| baseline |" in out and "history" in out
