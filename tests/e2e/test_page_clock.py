"""The page counts down the move clock, for the player and for a spectator."""

from __future__ import annotations

import json
import re

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    browser,
    page,
    site,
    wait_until,
)


def test_the_page_counts_down_the_seat_to_acts_time(site: str, page: Page) -> None:  # noqa: F811
    player = httpx.post(f"{site}/v1/players", json={"name": "Clocked"}).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    started = httpx.post(
        f"{site}/v1/matches", json={"clock": {"per_move_ms": 40_000}}, headers=headers
    )
    assert started.status_code == 201, started.text
    match_id = started.json()["match_id"]
    page.goto(f"{site}/")
    saved = {"id": player["id"], "name": player["name"], "token": player["token"]}
    page.evaluate(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(saved))})")
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("#clock:not([hidden])")
    first = page.inner_text("#clock")
    assert re.fullmatch(r"Your time: (40|39|3\d) s", first), first
    wait_until(
        page, f"document.getElementById('clock').innerText !== {json.dumps(first)}", timeout=5000
    )  # it counts down on its own, between views
    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector("[data-testid=watch-clock]:not([hidden])")
    watched = page.inner_text("[data-testid=watch-clock]")
    assert re.fullmatch(r"Clocked's time: \d+ s", watched), watched
    untimed = httpx.post(f"{site}/v1/matches", json={}, headers=headers).json()["match_id"]
    page.goto(f"{site}/#/match/{untimed}")
    page.wait_for_selector("body[data-screen=table]")
    wait_until(page, "!document.getElementById('clock') || document.getElementById('clock').hidden")


def test_a_timeout_is_told_to_the_player_as_its_own(site: str, page: Page) -> None:  # noqa: F811
    """ "You ran out of time", not the player's own name in the third person (page QA)."""
    player = httpx.post(f"{site}/v1/players", json={"name": "Slowpoke"}).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    started = httpx.post(
        f"{site}/v1/matches", json={"clock": {"per_move_ms": 1000}}, headers=headers
    )
    assert started.status_code == 201, started.text
    match_id = started.json()["match_id"]
    page.goto(f"{site}/")
    saved = {"id": player["id"], "name": player["name"], "token": player["token"]}
    page.evaluate(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(saved))})")
    page.goto(f"{site}/#/match/{match_id}")
    # The AI played the turn. The words are read as they match: with a 1 s clock the turns
    # go on, and the clock read a moment later may say something else (seen: nothing).
    said = page.wait_for_function(
        """() => { const t = document.querySelector('#clock')?.innerText || '';
                   return t.includes('You ran out of time') && t; }"""
    ).json_value()
    assert "Slowpoke" not in said, said
    assert re.search(r"You ran out of time (last turn|\d+ turns in a row)", said), said
