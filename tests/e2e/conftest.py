"""Servers for the end-to-end tests: real processes on free ports, SQLite or PostgreSQL.

PostgreSQL tests get their own fresh database on the server named by
``TEST_DATABASE_URL`` (set by ``make test``); without it they skip, or fail under CI.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.harness import SITE_LOGS, ServerProcess, create_database, drop_database

BACKENDS = ["sqlite", "postgres"]


def _postgres_base() -> str:
    url = os.environ.get("TEST_DATABASE_URL", "")
    if not url:
        if os.environ.get("CI"):
            pytest.fail("TEST_DATABASE_URL is not set; run through `make test`")
        pytest.skip("no TEST_DATABASE_URL: PostgreSQL end-to-end tests need `make test`")
    return url


@pytest.fixture
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh, empty database for one test: a temp SQLite file or a new PostgreSQL db."""
    backend = getattr(request, "param", "sqlite")
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'ginrummy.sqlite3'}"
        return
    url = await create_database(_postgres_base())
    try:
        yield url
    finally:
        await drop_database(url)


@contextlib.contextmanager
def server_for(backend: str, folder: Path, **env: str) -> Iterator[ServerProcess]:
    """A server on a fresh database of ``backend`` ("sqlite" or "postgres"), kept in
    ``folder``, with the settings ``env``: for a module-scoped fixture whose tests share
    one server."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{folder / 'ginrummy.sqlite3'}"
    else:
        url = asyncio.run(create_database(_postgres_base()))
    process = ServerProcess(url, folder, **env).start()
    try:
        yield process
    finally:
        process.stop()
        if backend != "sqlite":
            asyncio.run(drop_database(url))


def _file_name(request: pytest.FixtureRequest) -> str:
    return request.module.__name__.rsplit(".", 1)[-1]


@pytest.fixture(scope="module")
def sqlite_site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One SQLite server shared by a test file's tests (a fixture of module scope is
    made once per file), for tests that make players of their own and read only
    what is theirs: one start for the file, not one per test."""
    with server_for("sqlite", tmp_path_factory.mktemp(_file_name(request))) as process:
        yield process


@pytest.fixture(scope="module", params=BACKENDS)
def each_backend_site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """As ``sqlite_site``, once on each backend. On SQLite it is ``sqlite_site`` itself:
    the two promise their tests the same (players and matches of their own), so a file
    using both starts one SQLite server, not two."""
    if request.param == "sqlite":
        yield request.getfixturevalue("sqlite_site")
        return
    folder = tmp_path_factory.mktemp(f"{_file_name(request)}-{request.param}")
    with server_for(request.param, folder) as process:
        yield process


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(database_url, tmp_path).start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed end-to-end test's report shows what its browser pages showed and what its
    servers logged last, while they are still there: a timing failure in a full run is
    rarely seen again alone, and the assertion's message alone seldom says why."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when != "call" or not report.failed:
        return
    values = getattr(item, "funcargs", {}).values()
    logs = {value.url: value.log_path for value in values if isinstance(value, ServerProcess)}
    logs |= {
        value: SITE_LOGS[value] for value in values if isinstance(value, str) and value in SITE_LOGS
    }
    for url, log in logs.items():
        if log.exists():
            lines = log.read_text(errors="replace").splitlines()
            report.sections.append((f"server {url}: its log's last lines", "\n".join(lines[-40:])))
    browser = getattr(item, "funcargs", {}).get("browser")
    for c, context in enumerate(getattr(browser, "contexts", [])):
        for p, page in enumerate(context.pages):
            try:
                text = page.evaluate("document.body ? document.body.innerText : ''")
            except Exception as error:  # a page that closed or crashed says so
                text = f"(not readable: {error})"
            report.sections.append((f"page {c}.{p} at {page.url}: its text", text[-4000:]))
            report.sections.append(
                (f"page {c}.{p}: its last requests and messages", _traffic(page))
            )


def _traffic(page: Page) -> str:
    """A page's last API requests (sent at, UTC) with their answers, and its console: a
    click that seems to do nothing is often a request refused (its toast gone before the
    timeout) or never answered."""
    lines = []
    try:
        for request in [r for r in page.requests() if "/v1/" in r.url][-30:]:
            if request.failure:
                answer = f"failed: {request.failure}"
            elif request.timing.get("responseStart", -1) < 0:
                answer = "no answer yet"
            else:
                response = request.response()
                answer = str(response.status) if response else "?"
            sent = datetime.fromtimestamp(request.timing["startTime"] / 1000, UTC)
            lines.append(f"{sent:%H:%M:%S.%f} {request.method} {request.url} -> {answer}")
        lines += [f"console {m.type}: {m.text}" for m in page.console_messages()[-20:]]
    except Exception as error:  # a page that closed or crashed says so
        lines.append(f"(not readable: {error})")
    return "\n".join(lines)
