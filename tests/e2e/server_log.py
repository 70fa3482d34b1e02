"""A real server's log, read the one way the log tests read it.

A test that asks about the log starts a server (``serving``), stops it, and reads every
line it wrote (``log_lines``): stdout and stderr of the process, all of them, after it
has stopped, so a line written on the way out counts too. A start that must fail
(``refused_start``) is ``ginrummy serve`` run to its end with the given environment only.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.harness import GINRUMMY, ServerProcess, free_port

# ``GINRUMMY_LOG_FORMAT=text``: time (UTC), level, process id, logger, then the message.
TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"(\d+) [\w.]+: "
)


@contextlib.contextmanager
def serving(database_url: str, workdir: Path, **env: str) -> Iterator[ServerProcess]:
    """A started server, stopped on the way out (its log is complete after the block)."""
    server = ServerProcess(database_url, workdir, **env).start()
    try:
        yield server
    finally:
        server.stop()


def log_lines(server: ServerProcess) -> list[str]:
    """Every line the server wrote, split where a line-based log shipper would split."""
    return server.log_path.read_text().splitlines()


def refused_start(workdir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``ginrummy serve`` with only ``env`` (and PATH) set, which must exit by itself."""
    done = subprocess.run(
        [str(GINRUMMY), "serve", "--port", str(free_port())],
        cwd=workdir,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, done.stderr
    return done
