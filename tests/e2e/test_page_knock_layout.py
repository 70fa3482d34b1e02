"""The page offers the knocker's layouts and lays the one picked (issue 21, item 6).

In headless Chromium against a real server (the fixtures of test_page.py). The practice
seed of tests/e2e/test_knock_layout.py gives seat 0, once it takes the up-card, a knock
discarding 9C with two layouts at 10 deadwood; the player picks the one that is not
the default, knocks, and the table shows those melds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_knock_layout import SEED
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    api_view,
    browser,
    page,
    settle,
    shots,
    site,
)
from tests.e2e.test_page_layout import act, new_match, open_match, sign_in


def _groups(tab: Page, selector: str) -> list[list[str]]:
    groups: list[list[str]] = tab.eval_on_selector_all(
        selector,
        "els => els.map(g => [...g.querySelectorAll('[data-card]')].map(c => c.dataset.card))",
    )
    return groups


def _face_up_cards_are_named_images(tab: Page, within: str) -> bool:
    """Every face-up card in ``within`` is role="img" with its name, its symbols hidden."""
    cards = tab.eval_on_selector_all(
        f"{within} .card[data-card]",
        "els => els.map(e => [e.getAttribute('role'), e.getAttribute('aria-label'),"
        " [...e.children].every(c => c.getAttribute('aria-hidden') === 'true')])",
    )
    assert cards, within
    assert all(
        role == "img" and label and " of " in label and hidden for role, label, hidden in cards
    ), cards
    return True


def test_the_player_picks_another_layout_and_the_table_shows_it(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    player, match_id = new_match(site, "Layla", SEED)
    token = player["token"]
    view = act(site, token, match_id, {"type": "take_up_card"})
    (option,) = [o for o in view["knock_layouts"] if o["discard"] == "9C"]
    default, other = (layout["melds"] for layout in option["layouts"])

    sign_in(page, site, player)
    open_match(page, site, match_id)
    assert page.query_selector("[data-testid=knock-layouts]") is None  # nothing chosen yet
    page.click("#hand [data-card='9C']")
    page.wait_for_selector("[data-testid=knock-layouts]")
    choices = page.query_selector_all("[data-testid=knock-layout]")
    assert len(choices) == 2
    assert [c.get_attribute("aria-checked") for c in choices] == ["true", "false"]
    assert _groups(page, "[data-testid=knock-layout]:nth-of-type(1) .group.meld") == default
    assert _groups(page, "[data-testid=knock-layout]:nth-of-type(2) .group.meld") == other
    # Each choice says its deadwood (the server's count), and its cards are images named
    # by their label for a screen reader, as are the cards of the hand's result below.
    deadwood = [layout["deadwood_points"] for layout in option["layouts"]]
    assert page.eval_on_selector_all(
        "[data-testid=layout-deadwood]", "els => els.map(e => e.textContent)"
    ) == [f"deadwood {points}" for points in deadwood]
    assert all("deadwood 10" in c.inner_text() for c in choices)
    assert _face_up_cards_are_named_images(page, "[data-testid=knock-layouts]")
    choices[1].click()
    page.wait_for_selector("[data-testid=knock-layout][aria-checked=true][data-layout='1']")
    page.screenshot(path=str(shots / "knock-layouts.png"))
    page.click("[data-testid=knock]")

    page.wait_for_selector("[data-testid=hand-result]")
    settle(page)
    events: list[dict[str, Any]] = httpx.get(
        f"{site}/v1/matches/{match_id}/events?after=0&limit=1000",
        headers={"Authorization": f"Bearer {token}"},
    ).json()["events"]
    knocked = next(e["event"] for e in events if e["event"]["type"] == "knocked")
    assert knocked["melds"] == other and knocked["discard"] == "9C"
    scored = api_view(site, token, match_id)["last_result"]
    laid = {card for card, _ in scored["layoffs"]}
    shown = _groups(page, "[data-testid=hand-result] .result-hand:first-of-type .group.meld")
    assert [[c for c in meld if c not in laid] for meld in shown] == other
    assert _face_up_cards_are_named_images(page, "[data-testid=hand-result]")
