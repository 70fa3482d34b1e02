# ruff: noqa: F811 (the fixtures imported from test_page are parameters here)
"""The page's part of a fair deal, in headless Chromium against a real server.

The page makes the client seed in the browser and sends ``hints`` only when the player
ticks "Hints (unrated)"; "Verify this match" recomputes every deck, salt and the first
dealer of a finished match in the browser, and fails on one changed card or seed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from playwright.sync_api import Page, Route

from tests.e2e.harness import as_action
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    settle,
    site,
    stored,
)
from tests.e2e.test_page_layout import new_match, sign_in


def play_out(base: str, token: str, match_id: str) -> None:
    """End hands whenever possible, else the first legal action, to the match's end."""
    headers = {"Authorization": f"Bearer {token}"}
    view = httpx.get(f"{base}/v1/matches/{match_id}", headers=headers).json()["view"]
    for _ in range(3000):
        if view["phase"] == "match_over":
            return
        legal = view["legal"]
        ending = [c for c in legal if c["type"] in ("gin", "big_gin", "knock", "next_hand")]
        answer = httpx.post(
            f"{base}/v1/matches/{match_id}/actions",
            json={"action": as_action(ending[0] if ending else legal[0])},
            headers=headers,
        )
        answer.raise_for_status()
        view = answer.json()["view"]
    raise AssertionError("the match did not finish")


def whole_log(base: str, token: str, match_id: str) -> list[dict[str, Any]]:
    answer = httpx.get(
        f"{base}/v1/matches/{match_id}/events",
        params={"limit": 1000},
        headers={"Authorization": f"Bearer {token}"},
    )
    answer.raise_for_status()
    assert answer.json()["more"] is False
    return [e["event"] for e in answer.json()["events"]]


def test_the_page_seeds_the_deal_asks_for_hints_and_verifies_a_finished_match(
    site: str,
    page: Page,
) -> None:
    page.goto(f"{site}/")
    page.fill("#name", "Vera")
    page.select_option("#preset", "arcadia")
    page.check("#hints")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    token, match_id = stored(page)
    headers = {"Authorization": f"Bearer {token}"}
    view = httpx.get(f"{site}/v1/matches/{match_id}", headers=headers).json()["view"]
    assert view["hints"] is True and view["practice"] is False
    play_out(site, token, match_id)
    log = whole_log(site, token, match_id)
    given = log[0]["client_seeds"][0]
    assert re.fullmatch(r"[0-9a-f]{32}", given["seed"]) and given["by"] != "server"

    page.goto(f"{site}/#/history")
    row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
    assert row is not None
    row.wait_for_selector("[data-testid=verify]").click()
    result = row.wait_for_selector("[data-testid=verify-result][data-verified]")
    assert result is not None
    assert result.get_attribute("data-verified") == "true", result.inner_text()
    hands = sum(e["type"] == "dealt" for e in log)
    assert result.inner_text().startswith(f"Fair deal verified: {hands} hand")

    # and at the match's end, on the table
    page.goto(f"{site}/#/match/{match_id}")
    page.reload()
    page.wait_for_selector("[data-testid=settlement]")
    page.click("#result [data-testid=verify]")
    result = page.wait_for_selector("#result [data-testid=verify-result][data-verified]")
    assert result is not None and result.get_attribute("data-verified") == "true"

    problems = "events => import('./js/verify.js').then((m) => m.dealProblems(events))"
    assert page.evaluate(problems, log) == []
    scored = next(i for i, e in enumerate(log) if e["type"] == "hand_scored")
    one_card = json.loads(json.dumps(log))
    deck = one_card[scored]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    assert any("revealed deck" in p for p in page.evaluate(problems, one_card))
    one_char = json.loads(json.dumps(log))
    seed = one_char[-1]["seed"]
    one_char[-1]["seed"] = ("1" if seed[0] == "0" else "0") + seed[1:]
    assert "the server seed does not match its commitment" in page.evaluate(problems, one_char)


def test_without_the_box_the_page_asks_for_no_hints_and_works_without_advice(
    site: str,
    page: Page,
) -> None:
    page.goto(f"{site}/")
    page.fill("#name", "Walt")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    token, match_id = stored(page)
    view = httpx.get(
        f"{site}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
    ).json()["view"]
    assert view["hints"] is False
    for _ in range(40):  # reach my discard: no card is chosen for me, no error is raised
        settle(page)
        if page.get_attribute("body", "data-phase") == "discard" and (
            page.get_attribute("body", "data-my-turn") == "true"
        ):
            break
        for testid in ("pass", "draw-stock"):
            button = page.query_selector(f"#actions [data-testid={testid}]:not([disabled])")
            if button is not None:
                button.click()
                break
        else:
            page.wait_for_timeout(50)
    assert page.get_attribute("body", "data-phase") == "discard"
    assert "best discard" not in page.inner_text("#screen-table"), "no advice is shown"


def test_a_practice_match_is_not_provable_and_a_changed_deck_is_not_verified(
    site: str,
    page: Page,
) -> None:
    """A seeded (practice) match's decks are recomputed and match, but the server's seed
    alone chose them: the page says "Not provable", as the CLI says NOT PROVABLE; a deck
    changed on its way to the browser is a failure, "Not verified", as the CLI's FAILED."""
    player, match_id = new_match(site, "Pia", "page-verify", {"preset": "arcadia", "target": 1})
    token = player["token"]
    play_out(site, token, match_id)
    hands = sum(e["type"] == "dealt" for e in whole_log(site, token, match_id))
    sign_in(page, site, player)

    def verify() -> Any:
        page.goto(f"{site}/#/history")
        page.reload()
        row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
        assert row is not None
        row.wait_for_selector("[data-testid=verify]").click()
        return row.wait_for_selector("[data-testid=verify-result][data-verified]")

    result = verify()
    assert result.get_attribute("data-verified") == "unprovable", result.inner_text()
    said = result.inner_text()
    assert said.startswith(f"Not provable: {hands} hand"), said
    assert "recomputed and matching, but no player gave a seed" in said
    assert "Not verified" not in said

    def swap_two_cards(route: Route) -> None:
        answer = route.fetch()
        body = answer.json()
        scored = next(e["event"] for e in body["events"] if e["event"]["type"] == "hand_scored")
        scored["deck"][0], scored["deck"][1] = scored["deck"][1], scored["deck"][0]
        route.fulfill(response=answer, json=body)

    page.route(f"**/v1/matches/{match_id}/events*", swap_two_cards)
    result = verify()
    assert result.get_attribute("data-verified") == "false", result.inner_text()
    said = result.inner_text()
    assert said.startswith("Not verified: "), said
    assert "the revealed deck or salt is not the seeds'" in said
    assert "Not provable" not in said
