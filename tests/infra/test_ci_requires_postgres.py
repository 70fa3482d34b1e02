"""Under CI a missing PostgreSQL fails the PostgreSQL tests; elsewhere they skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ONE_PG_TEST = "tests/infra/test_store_contract.py::test_empty_batch_is_refused[postgresql]"


def _pytest_without_postgres(ci: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TEST_DATABASE_URL", "CI")}
    env["CI"] = ci
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-o",
            "addopts=",
            "-q",
            "-p",
            "no:cacheprovider",
            ONE_PG_TEST,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_missing_postgres_fails_under_ci_and_skips_otherwise() -> None:
    under_ci = _pytest_without_postgres("true")
    assert under_ci.returncode == 1, under_ci.stdout
    assert "PostgreSQL is required when CI=true" in under_ci.stdout
    local = _pytest_without_postgres("")
    assert local.returncode == 0, local.stdout
    assert "1 skipped" in local.stdout
