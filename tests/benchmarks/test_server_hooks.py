"""The benchmark servers' hooks (``benchmarks/server_hooks/``) install on today's server.

Each wraps methods of the server by name; one renamed or moved (the match service's
appends went to ``server/match_log.py``) broke the install, and with it every hook after
the missing name, the handler that writes the samples on SIGUSR2 among them: the
benchmark's signal then killed its server. Each is installed here as ``sitecustomize``
does, in a process of its own (they patch classes and take signals for good).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "benchmarks" / "server_hooks"
INSTALL = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
importlib.import_module(sys.argv[2]).install(sys.argv[3])
"""


@pytest.mark.parametrize("hook", ["gc_watch", "wall_watch", "tail_watch"])
def test_each_hook_installs_on_the_server_as_it_is(hook: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", INSTALL, str(HOOKS), hook, str(tmp_path / f"{hook}.log")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
