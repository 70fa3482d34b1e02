"""The page's hints never throw a way out away (QA F0), in Debian's headless Chromium.

With Hints on, the page chooses the engine's best discard for the player. That choice is
the page's, not the player's: a click on it only chooses it (a second click discards,
as for any card the player chose), so the first tap on the hinted card no longer sends a
plain discard when going gin or knocking with that very card is legal. The hint says
"go gin" or "knock" when it can, and D (the Discard button) asks once before a discard
gives up a gin or knock. The positions are reached from seeds: medium's moves are
deterministic, and a seeded deal is the same every time.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    api_view,
    browser,
    page,
    settle,
    site,
)
from tests.e2e.test_page_layout import act, open_match, sign_in

HINTS = {"tourSeen": True, "hints": True}


def hinted_match(site: str, name: str, level: str, seed: str) -> tuple[dict[str, Any], str]:  # noqa: F811
    player: dict[str, Any] = httpx.post(f"{site}/v1/players", json={"name": name}).json()
    created = httpx.post(
        f"{site}/v1/matches",
        json={"level": level, "seed": seed, "hints": True},
        headers={"Authorization": f"Bearer {player['token']}"},
    )
    assert created.status_code == 201, created.text
    return player, created.json()["match_id"]


def legal_of(view: dict[str, Any], kind: str) -> list[str]:
    return [cmd["card"] for cmd in view["legal"] if cmd["type"] == kind]


def selected(page: Page) -> str | None:  # noqa: F811
    return page.evaluate(
        "(document.querySelector('#hand .card.selected') || {dataset: {}}).dataset.card || null"
    )


def seat0_moves(view: dict[str, Any]) -> list[list[Any]]:
    return [move for move in view["moves"] if move[0] == 0]


def test_one_tap_on_the_hinted_gin_card_chooses_it_and_gin_stays(site: str, page: Page) -> None:  # noqa: F811
    """qa-504 against medium, playing the hint over the API: gin is legal with 3♠, the
    engine's best discard. One click on it (the page had chosen it) only chooses it; D
    asks before it throws the gin away; Gin goes gin."""
    player, match_id = hinted_match(site, "Gin Tap", "medium", "qa-504")
    token = player["token"]
    view = api_view(site, token, match_id)
    for _ in range(60):
        if view["phase"] == "discard" and legal_of(view, "gin"):
            break
        kind = {"up_card": "pass_up_card", "draw": "draw_stock"}.get(view["phase"])
        if kind:
            cmd = next(c for c in view["legal"] if c["type"] == kind)
        else:
            cmd = next(
                c
                for c in view["legal"]
                if c["type"] == "discard" and c["card"] == view["best_discard"][0]
            )
        view = act(site, token, match_id, cmd)
    best = view["best_discard"][0]
    assert legal_of(view, "gin") == [best] == ["3S"], view["legal"]

    sign_in(page, site, player, HINTS)
    open_match(page, site, match_id)
    assert selected(page) == "3S"  # the hint's choice, as before
    page.click('#hand [data-card="3S"]')
    settle(page)
    page.wait_for_timeout(300)  # a discard sent would be answered by now
    assert api_view(site, token, match_id)["version"] == view["version"], "one tap discarded"
    assert selected(page) == "3S"
    assert "Gin with 3♠ (G) goes out" in page.inner_text("#toast")
    # The hint says the best move: gin, not "discard 3♠, leaving 0".
    assert page.inner_text("[data-testid=best-discard]").strip() == "· hint: go gin with 3♠"
    # D asks once: the Discard button asks again, and nothing is sent.
    page.keyboard.press("d")
    page.wait_for_selector("[data-testid=discard]:has-text('Really discard 3♠ and not go gin?')")
    settle(page)
    assert api_view(site, token, match_id)["version"] == view["version"], "D discarded"
    assert "gives up gin" in page.inner_text("#toast")
    page.keyboard.press("Escape")  # answered no: the button is Discard again
    page.wait_for_selector("[data-testid=discard]:not(:has-text('Really'))")
    page.keyboard.press("g")
    page.wait_for_selector(
        "body[data-phase=hand_over], body[data-phase=match_over]", state="attached"
    )
    settle(page)
    after = api_view(site, token, match_id)
    result = after["last_result"]
    assert (result["type"], result["outcome"], result["knocker"]) == ("hand_scored", "gin", 0), (
        result
    )


def test_a_knock_is_given_up_only_by_a_second_deliberate_discard(site: str, page: Page) -> None:  # noqa: F811
    """layout-27269 against easy: after taking the up-card a knock is legal with 9♣, the
    hint's card. One click chooses it; D asks; D again discards it (the player chose to play
    on); the hand goes on."""
    player, match_id = hinted_match(site, "Knock Tap", "easy", "layout-27269")
    token = player["token"]
    sign_in(page, site, player, HINTS)
    open_match(page, site, match_id)
    page.click("[data-testid=take-up-card]")
    page.wait_for_selector("body[data-phase=discard]", state="attached")
    settle(page)
    view = api_view(site, token, match_id)
    assert view["best_discard"][0] == "9C" and "9C" in legal_of(view, "knock"), view
    assert selected(page) == "9C"
    page.click('#hand [data-card="9C"]')
    settle(page)
    page.wait_for_timeout(300)
    assert api_view(site, token, match_id)["version"] == view["version"], "one tap discarded"
    assert "Knock with 9♣ (K) goes out" in page.inner_text("#toast")
    left = view["best_discard"][1]
    assert (
        page.inner_text("[data-testid=best-discard]").strip()
        == f"· hint: knock with 9♣ (or discard it), leaving {left}"
    )
    page.keyboard.press("d")
    page.wait_for_selector("[data-testid=discard]:has-text('Really discard 9♣ and not knock?')")
    assert api_view(site, token, match_id)["version"] == view["version"], "D discarded"
    page.keyboard.press("d")  # the deliberate second press
    page.wait_for_function(f"() => Number(document.body.dataset.version) > {view['version']}")
    settle(page)
    moves = seat0_moves(api_view(site, token, match_id))
    assert moves[-1][1:] == ["discard", "9C"], moves
    assert not any(m[1] in ("knock", "gin") for m in moves), moves
