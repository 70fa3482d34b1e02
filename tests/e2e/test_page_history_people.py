"""A match between two people in each one's History, in headless Chromium against a real
server: the winner reads "won" and the loser "lost" whichever seat each held (the page
took seat 0 for the player's own, so a guest in seat 1 read its losses as wins), and the
opponent is named, not shown by id; a replay names both people too."""

from __future__ import annotations

import json

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import browser, page, site  # noqa: F401 (fixtures)
from tests.e2e.test_page_chat import seated_pair


def test_each_person_reads_their_own_result_and_the_others_name(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    host, guest, match_id = seated_pair(site, "Hostess", "Guesto")  # arcadia, the default
    auth = {p["id"]: {"Authorization": f"Bearer {p['token']}"} for p in (host, guest)}
    resigned = httpx.post(
        f"{site}/v1/matches/{match_id}/actions",
        json={"action": {"type": "resign"}},
        headers=auth[guest["id"]],
    )
    assert resigned.status_code == 200, resigned.text

    for player, other, result in ((host, guest, "won"), (guest, host, "lost")):
        listed = httpx.get(f"{site}/v1/matches", headers=auth[player["id"]]).json()
        summary = next(m for m in listed["matches"] if m["match_id"] == match_id)
        assert summary["seat"] in (0, 1) and (summary["winner"] == summary["seat"]) == (
            result == "won"
        ), summary
        page.goto(f"{site}/")
        page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)
        page.goto(f"{site}/#/history")
        row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
        assert row is not None
        assert row.query_selector("[data-testid=history-result]").inner_text() == result  # type: ignore[union-attr]
        assert other["name"] in row.inner_text() and other["id"] not in row.inner_text()
    seats = {summary["seat"]: guest["name"], 1 - summary["seat"]: host["name"]}
    row.query_selector("[data-testid=replay-link]").click()  # type: ignore[union-attr]
    title = page.wait_for_selector("[data-testid=replay-title]")
    assert title is not None
    assert title.inner_text() == f"Replay: {seats[0]} against {seats[1]}", json.dumps(seats)
