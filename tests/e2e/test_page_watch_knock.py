"""The watch screen tells the knock as it was made and the layoffs as the defender's,
and the match's end once. Found by QA: "Knocked:" read ``knock_melds``, which grows
with each layoff, so a card the defender laid off showed as the knocker's; and a match
that ended while watched read "Bob won the match, 306 to 27." then "Bob won the match."
Two people play through the API; a spectator's page (real headless Chromium) reads it."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
)
from tests.e2e.test_page_watch_score import Seats, play_until, seated

SUIT = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def shown(card: str) -> str:
    """A card as the page writes it (cards.js cardName): 2♥, 10♠."""
    return f"{'10' if card[0] == 'T' else card[0]}{SUIT[card[1]]}"


def play_to_a_layoff(seats: Seats, match_id: str) -> dict[str, Any]:
    """Both seats play until the defender has laid a card off and not yet finished: the
    spectator's view then."""

    def laid_off(client: httpx.Client, view: Any) -> dict[str, Any] | None:
        if not (view["phase"] == "layoff" and view["layoffs"]):
            return None
        spectator: dict[str, Any] = client.get(f"/v1/matches/{match_id}/spectator").json()
        return spectator["view"]

    found = play_until(seats, match_id, 7, 3000, laid_off)
    assert found is not None, "no card was laid off"
    return found


def test_the_knock_is_the_knockers_and_the_layoffs_the_defenders(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    ada, bob, match_id = seated(site, "Ada Knocks", "Bob Lays Off")
    view = play_to_a_layoff((ada, bob), match_id)
    knocker = view["knock"]["seat"]
    names = ["Ada Knocks", "Bob Lays Off"]
    laid = [card for card, _ in view["layoffs"]]
    assert all(any(card in meld for meld in view["knock_melds"]) for card in laid)

    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector("body[data-phase=layoff]")
    knocked = page.inner_text("[data-testid=watch-knock]")
    assert knocked.startswith(names[knocker]), knocked
    layoffs = page.inner_text("[data-testid=watch-layoffs]")
    assert layoffs.startswith(f"Laid off by {names[1 - knocker]}:"), layoffs
    knocked_cards = knocked.split(":", 1)[1].replace("·", " ").split()
    assert knocked_cards == [shown(c) for meld in view["knock"]["melds"] for c in meld]
    assert not {shown(card) for card in laid} & set(knocked_cards), knocked  # Bob's, not Ada's
    assert layoffs.split(":", 1)[1].split() == [shown(card) for card in laid], layoffs
    # and the knocker's deadwood, public once knocked
    deadwood = page.inner_text("[data-testid=watch-knock-deadwood]")
    points = view["knock"]["deadwood_points"]
    assert deadwood.startswith(f"{names[knocker]}'s deadwood ({points}):"), deadwood
    assert deadwood.split(":", 1)[1].split() == [shown(c) for c in view["knock"]["deadwood"]]

    # Once the hand ends its result shows the knock and the layoffs: said once there
    defender = (ada, bob)[1 - knocker]
    done = defender.post(
        f"/v1/matches/{match_id}/actions", json={"action": {"type": "finish_layoffs"}}
    )
    assert done.status_code == 200, done.text
    page.wait_for_selector("body[data-phase=hand_over]")
    page.wait_for_selector("[data-testid=hand-result]")
    assert page.locator("[data-testid=watch-knock]").count() == 0
    assert page.inner_text("main").count("Laid off by") == 1

    # The match ends while watched: its end is said once, with the score.
    resigned = bob.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
    assert resigned.status_code == 200, resigned.text
    over = page.wait_for_selector("[data-testid=watch-over]")
    assert over is not None
    said = over.inner_text()
    settled = bob.get(f"/v1/matches/{match_id}").json()["view"]["settlement"]
    totals = settled["totals"]
    winner = settled["winner"]
    assert said == (
        f"{names[winner]} won the match (Bob Lays Off resigned), "
        f"{totals[winner]} to {totals[1 - winner]}."
    ), said
    assert page.inner_text("main").count("won the match") == 1  # not said twice
    for client in (ada, bob):
        client.close()
