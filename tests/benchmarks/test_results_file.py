"""A benchmark run goes on top of its results file and keeps the runs before it."""

from __future__ import annotations

from pathlib import Path

from benchmarks.results_file import add_run


def test_a_run_goes_on_top_and_the_earlier_runs_stay(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS-server.md"
    results.write_text("# Server benchmark (issue 5)\n\n## 2026-12-03: an earlier run\n\nold\n")
    add_run(results, "# Server benchmark (issue 5)\n\nRun today.\n\n| a |\n", "bench --x 1")
    text = results.read_text()
    assert text.count("# Server benchmark (issue 5)") == 1
    assert text.index("Run today.") < text.index("## 2026-12-03: an earlier run")
    assert text.endswith("old\n")
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[0].endswith("UTC: `bench --x 1`") and len(sections) == 2


def test_a_first_run_makes_the_file(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS-tables.md"
    add_run(results, "# Tables\n\nRun.\n", "bench_tables")
    assert results.read_text().startswith("# Tables\n\n## ")
    assert "Run." in results.read_text()


def test_a_report_without_a_title_keeps_its_first_line(tmp_path: Path) -> None:
    """An open-loop report starts with its own line, not the file's title."""
    results = tmp_path / "RESULTS-server.md"
    results.write_text("# Server benchmark (issue 5)\n\n## earlier\n")
    add_run(results, "Open loop 2026-12-04, load 1.0:\n\n| row |\n", "bench --open-loop 40%")
    text = results.read_text()
    assert text.startswith("# Server benchmark (issue 5)\n\n## ")
    assert "Open loop 2026-12-04, load 1.0:" in text and text.endswith("## earlier\n")
    assert list(tmp_path.iterdir()) == [results]
