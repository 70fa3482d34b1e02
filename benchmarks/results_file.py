"""A benchmark's run goes on top of its results file; the runs before it stay below.

The results files keep every earlier run, with its machine, commit and notes: the
before-and-after evidence of the issues. A run that overwrote the file would wipe
that history, so a new run becomes the file's first section instead.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path


def add_run(path: Path, text: str, command: str) -> None:
    """Put ``text`` (a run's report, ``# Title`` first) at the top of ``path``."""
    title, _, body = text.partition("\n")
    kept = path.read_text() if path.exists() else title + "\n"
    kept_title, _, earlier = kept.partition("\n")
    heading = f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `{command}`"
    path.write_text(f"{kept_title}\n\n{heading}\n\n{body.strip()}\n\n{earlier.lstrip()}")
