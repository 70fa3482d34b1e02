"""The Dockerfile and the compose file name only files, ports and settings that exist.

No Docker engine runs on the development machine or in CI, so the image is not built
here; these checks catch what would break a build or a container on a machine that has
one: a COPY of a missing path, a setting the server does not read, a port that does not
match the one the server listens on, a health check that asks another port.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from server.config import SETTINGS_TABLE

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SETTINGS = {variable for _, variable, *_ in SETTINGS_TABLE}


def _instructions(name: str) -> list[str]:
    """The arguments of every ``name`` instruction, continuation lines joined."""
    joined = DOCKERFILE.replace("\\\n", " ")
    return [m.group(1).strip() for m in re.finditer(rf"^{name}\s+(.*)$", joined, re.MULTILINE)]


def _env() -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in _instructions("ENV"):
        pairs.update(re.findall(r"(\w+)=(\S+)", line))
    return pairs


def test_every_copied_path_exists_and_is_not_ignored() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for line in _instructions("COPY"):
        *sources, _ = line.split()
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: no such path"
            assert source not in ignored, f"COPY {source}: .dockerignore leaves it out"


def test_the_image_holds_every_package_the_server_imports() -> None:
    copied = {line.split()[0] for line in _instructions("COPY")}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = project["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in {p.removesuffix("*").removesuffix(".") for p in packages}:
        assert package in copied, f"the image lacks {package}/"
    (command,) = _instructions("CMD")
    assert command.startswith('["ginrummy"') and "ginrummy" in project["project"]["scripts"]


def test_every_setting_named_is_one_the_server_reads() -> None:
    named = set(_env()) | set(COMPOSE["services"]["server"]["environment"])
    for variable in {v for v in named if v.startswith("GINRUMMY_")}:
        assert variable in SETTINGS, f"{variable} is not a setting (server/config.py)"


def test_ports_agree_and_the_health_check_asks_the_servers_own() -> None:
    port = _env()["GINRUMMY_PORT"]
    assert _instructions("EXPOSE") == [port]
    (health,) = _instructions("HEALTHCHECK")
    assert "GINRUMMY_PORT" in health and f":{port}/" not in health, health
    # liveness: an unhealthy container may be restarted, which mends neither a database
    # outage nor read models that lag (/readyz's 503s); a proxy routes on /readyz
    assert "/healthz" in health and "/readyz" not in health, health
    server = COMPOSE["services"]["server"]
    container_port = server["environment"]["GINRUMMY_PORT"]
    assert [p.rsplit(":", 1)[1] for p in server["ports"]] == [container_port]
    url = server["environment"]["GINRUMMY_DATABASE_URL"]
    db = COMPOSE["services"]["db"]["environment"]
    assert f"{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}@db:5432/{db['POSTGRES_DB']}" in url


def test_the_files_the_server_reads_beside_its_code_are_in_the_image() -> None:
    """The rule book (and the documents it links to) and the vendored Redoc bundle are read
    at run time, not imported."""
    from server.api_docs import REDOC_DIR
    from server.http.rulebook import DOCUMENTS

    copied = [ROOT / source for line in _instructions("COPY") for source in line.split()[:-1]]
    for needed in (*DOCUMENTS, REDOC_DIR / "redoc.standalone.js", REDOC_DIR / "LICENSE"):
        assert needed.exists(), needed
        assert any(needed.is_relative_to(source) for source in copied), f"not copied: {needed}"


def _seconds(duration: str) -> float:
    """A compose duration such as ``30s`` or ``1m30s``, in seconds."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def test_docker_waits_for_the_servers_whole_drain_before_killing_it() -> None:
    """``docker compose stop`` and a restart send SIGTERM, then SIGKILL after the stop
    grace period, 10 s unless the file says otherwise: less than the server may take to
    finish its requests and then the actions of sockets it closed (server/draining.py),
    with the drain settings as the compose file sets them (the defaults unless it does)."""
    from server.config import Settings

    service = COMPOSE["services"]["server"]
    settings = Settings.from_env({k: str(v) for k, v in service.get("environment", {}).items()})
    grace = service.get("stop_grace_period", "10s")
    assert _seconds(grace) > settings.drain_requests_s + settings.drain_actions_s, grace


def test_the_compose_servers_connections_fit_postgresqls_limit() -> None:
    """Each worker holds up to ``GINRUMMY_DB_CONNECTIONS`` plus its LISTEN session. Left at
    its default (0), ``GINRUMMY_WORKERS`` is one worker per core of whatever host runs the
    container, and 20 + 1 each passes postgres's default ``max_connections`` of 100 on five
    cores: the file must name the count, and the budget must fit."""
    from server.config import Settings

    service = COMPOSE["services"]["server"]
    environment = {k: str(v) for k, v in service["environment"].items()}
    settings = Settings.from_env(environment)
    assert settings.workers > 0, "GINRUMMY_WORKERS must be set: 0 follows the host's cores"
    db = COMPOSE["services"]["db"]
    named = re.search(r"max_connections=(\d+)", str(db.get("command", "")))
    limit = int(named.group(1)) if named else 100  # PostgreSQL's default
    assert settings.workers * (settings.db_connections + 1) <= limit


# The PostgreSQL major version the suite under CI, the benchmarks and the docs ran on.
POSTGRES_MAJOR = 15


def test_the_compose_database_is_the_postgresql_the_project_is_tested_on() -> None:
    """A compose file naming another major version ships a database nothing here has run."""
    assert COMPOSE["services"]["db"]["image"] == f"postgres:{POSTGRES_MAJOR}"


async def test_ci_tests_on_that_postgresql(pg_url: str) -> None:
    """Under CI the suite's PostgreSQL is that version (what it proves, it proves there); a
    contributor's machine with another one runs the rest of the suite all the same."""
    import os

    import asyncpg

    from infra.database import asyncpg_dsn

    connection = await asyncpg.connect(asyncpg_dsn(pg_url))
    try:
        major = int(await connection.fetchval("SHOW server_version_num")) // 10000
    finally:
        await connection.close()
    if major != POSTGRES_MAJOR and os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        pytest.skip(f"this machine's PostgreSQL is {major}; CI's is {POSTGRES_MAJOR}")
    assert major == POSTGRES_MAJOR
