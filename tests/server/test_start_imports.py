"""What a server start leaves unimported: each of these was tens of milliseconds of every
start (and the suite starts some 250 servers a run), and none is needed to serve.

Alembic (with Mako and Pygments) only when the database is behind (infra/migrate.py);
asyncpg and SQLAlchemy's PostgreSQL dialect only on PostgreSQL (upsert_dialect, the tailer).
In a subprocess: imports are the whole process's state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import asyncio, json, sys
from server.app import create_app
from server.cli import _migrate
from server.config import Settings

NOT_NEEDED = ("alembic", "mako", "pygments", "asyncpg", "sqlalchemy.dialects.postgresql")

async def main():
    settings = Settings.from_env()
    await _migrate(settings.database_url)  # as serve does, before the app starts
    async with create_app(settings).lifespan():
        print(json.dumps(sorted(m for m in NOT_NEEDED if m in sys.modules)))

asyncio.run(main())
"""


def test_a_sqlite_server_at_head_starts_without_alembic_or_postgresql(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINRUMMY_")}
    env["GINRUMMY_DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'start.db'}"
    loaded = []
    for _ in ("from empty", "at head"):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        loaded.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "alembic" in loaded[0]  # a database behind is migrated, by Alembic
    assert loaded[1] == []
