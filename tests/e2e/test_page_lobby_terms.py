"""The lobby tells a table's terms: its rules and target, whether it is rated, and its
move clock (or that it has none), in the list of open tables (read over HTTP, and as the
live list's ``table`` frame brings a table opened later) and in a challenge. A player
choosing a table needs both the clock and the rating before sitting down (page QA).
Real server, real headless Chromium; the tables are opened through the API, as a bot or
another client would open them."""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby


def player(site: str, name: str) -> httpx.Client:  # noqa: F811
    created = httpx.post(f"{site}/v1/players", json={"name": name})
    created.raise_for_status()
    token = created.json()["token"]
    return httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token}"})


def open_table(client: httpx.Client, **body: Any) -> str:
    answer = client.post("/v1/tables", json={"rules": "arcadia", **body})
    assert answer.status_code == 201, answer.text
    table_id: str = answer.json()["table_id"]
    return table_id


def row(page: Page, table_host: str) -> str:  # noqa: F811
    found = page.wait_for_selector(f"[data-testid=open-tables] li:has-text('{table_host}')")
    assert found is not None
    return found.inner_text()


def test_the_open_tables_say_their_clock_and_whether_they_are_rated(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    quick, banked, plain = player(site, "Quick"), player(site, "Banked"), player(site, "Plain")
    open_table(quick, rated=False, clock={"per_move_ms": 30_000})
    open_table(plain)  # a preset's table is rated unless asked otherwise; no clock
    enter_lobby(page, site, "Chooser")
    assert "Quick · arcadia to 100 · unrated · 30 s a move" in row(page, "Quick")
    assert "Plain · arcadia to 100 · rated · no clock" in row(page, "Plain")
    # A table opened while the page is in the lobby comes as a live frame: told the same.
    open_table(banked, clock={"bank_ms": 300_000, "increment_ms": 5_000})
    assert "Banked · arcadia to 100 · rated · 5 min each + 5 s a move" in row(page, "Banked")

    # A challenge tells its terms too, to the one it is for.
    me = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["id"]
    terms = {"rules": "classic", "rated": False, "clock": {"per_move_ms": 90_000}}
    sent = quick.post("/v1/challenges", json={"to": me, **terms})
    assert sent.status_code == 201, sent.text
    wait_until(
        page, "document.querySelector('[data-testid=incoming]').textContent.includes('Quick')"
    )
    text = page.inner_text("[data-testid=incoming]")
    assert "Quick challenges you (classic to 100 · unrated · 1 min 30 s a move)" in text, text
    for client in (quick, banked, plain):
        client.close()
