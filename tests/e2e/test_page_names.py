"""Two players in one list on the page whose names pass for each other (names are not
unique: only players seen together in a match or a challenge are kept apart by the
server) are told apart by the start of their ids; a name alone in its list is shown as
it is. In real Chromium against a real server (the fixtures of test_page.py)."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import DELAY_MS, browser, page, site  # noqa: F401 (fixtures)
from tests.e2e.test_page_layout import sign_in


def _player(site: str, name: str) -> dict[str, Any]:  # noqa: F811
    created = httpx.post(f"{site}/v1/players", json={"name": name})
    assert created.status_code == 201, created.text
    player: dict[str, Any] = created.json()
    return player


def _auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def test_names_alike_in_one_list_are_told_apart_by_their_ids(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    me = _player(site, "Looker")
    first, second = _player(site, "Twin Name"), _player(site, "TWIN name")
    alone = _player(site, "Twin Namesake")
    for host in (first, second):  # each opens a table: the lobby lists both hosts
        opened = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=_auth(host))
        assert opened.status_code == 201, opened.text
    sign_in(page, site, me, {"tourSeen": True})
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")

    page.fill("[data-testid=find-name]", "Twin")
    page.click("[data-testid=find]")
    page.wait_for_selector("[data-testid=found-player] >> nth=2")
    found = {
        row.get_attribute("data-player"): row.inner_text()
        for row in page.query_selector_all("[data-testid=found-player]")
    }
    assert f"Twin Name #{first['id'][:6]}" in found[first["id"]]
    assert f"TWIN name #{second['id'][:6]}" in found[second["id"]]
    assert "#" not in found[alone["id"]]  # no other name passes for it
    # each says its rating, as the header and the leaderboard write one (± twice the deviation)
    assert "rated 1500 ± 700 (provisional)" in found[first["id"]]
    button = page.get_by_role("button", name=f"Challenge Twin Name #{first['id'][:6]}")
    assert button.count() == 1  # a screen reader hears the difference too

    tables = page.locator("[data-testid=open-tables] li")
    tables.filter(has_text=f"#{second['id'][:6]}").wait_for()
    shown = tables.all_inner_texts()
    assert any(f"Twin Name #{first['id'][:6]}" in row for row in shown), shown
    assert any(f"TWIN name #{second['id'][:6]}" in row for row in shown), shown
