"""A benchmark's run goes on top of its results file; the runs before it stay below.

The results files keep every earlier run, with its machine, commit and notes: the
before-and-after evidence of the issues. A run that overwrote the file would wipe
that history, so a new run becomes the file's first section instead, under the
file's own title (a report's ``# Title`` line, the same for every run, is not repeated).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path


def add_run(path: Path, text: str, command: str) -> None:
    """Put ``text`` (a run's report, perhaps ``# Title`` first) at the top of ``path``."""
    title, body = ("", text)
    if text.startswith("# "):
        title, _, body = text.partition("\n")
    kept = path.read_text() if path.exists() else (title or f"# {path.stem}") + "\n"
    kept_title, _, earlier = kept.partition("\n")
    heading = f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: `{command}`"
    written = path.with_name(path.name + ".new")  # replaced whole: a crash loses no history
    written.write_text(f"{kept_title}\n\n{heading}\n\n{body.strip()}\n\n{earlier.lstrip()}")
    os.replace(written, path)
