"""The watch screen's score line names both seats beside their scores: "Score 25 : 0"
did not say whose 25 it was (page QA of people playing people), and between hands it
shows the hand just ended. Two people play a hand through the API; a spectator's page
(real headless Chromium) reads them."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from playwright.sync_api import Page

from tests.e2e.tables import pick
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
)

T = TypeVar("T")


def player(site: str, name: str) -> httpx.Client:  # noqa: F811
    created = httpx.post(f"{site}/v1/players", json={"name": name})
    created.raise_for_status()
    token = created.json()["token"]
    return httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token}"})


Seats = tuple[httpx.Client, httpx.Client]


def seated(site: str, host: str, guest: str) -> tuple[httpx.Client, httpx.Client, str]:  # noqa: F811
    """Two new players met at the first's table (a match to 250): both clients, the match."""
    first, second = player(site, host), player(site, guest)
    table = first.post("/v1/tables", json={"rules": LONG_RULES}).json()
    joined = second.post(f"/v1/tables/{table['table_id']}/join", json={})
    assert joined.status_code == 200, joined.text
    return first, second, str(joined.json()["match"]["match_id"])


def play_until(
    seats: Seats,
    match_id: str,
    seed: int,
    tries: int,
    reached: Callable[[httpx.Client, Any], T | None],
) -> T | None:
    """Both seats play (knocking and laying off as soon as they can, ``pick``) until
    ``reached(client, view)`` answers something for a seat's view; None if it never does."""
    rng = random.Random(seed)
    for _ in range(tries):
        for client in seats:
            view: dict[str, Any] = client.get(f"/v1/matches/{match_id}").json()["view"]
            if (found := reached(client, view)) is not None:
                return found
            if view["legal"]:
                acted = client.post(
                    f"/v1/matches/{match_id}/actions", json={"action": pick(view, rng)}
                )
                assert acted.status_code == 200, acted.text
    return None


def play_until_scored(seats: Seats, match_id: str) -> list[int]:
    """Both seats play until a hand is scored: the scores then."""

    def scored(_: httpx.Client, view: Any) -> list[int] | None:
        over = view["phase"] in ("hand_over", "match_over") and any(view["scores"])
        return list(view["scores"]) if over else None

    scores = play_until(seats, match_id, 5, 500, scored)
    assert scores is not None, "no hand was scored"
    return scores


# No hand can end a match to 250: the page is read between two hands, not at the end.
LONG_RULES = {"preset": "classic", "target": 250}


def test_the_watch_score_names_each_seat(site: str, page: Page) -> None:  # noqa: F811
    ada, bob, match_id = seated(site, "Ada Watched", "Bob Watched")
    scores = play_until_scored((ada, bob), match_id)

    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector("body[data-phase=hand_over]")
    line = page.wait_for_selector("[data-testid=watch-score]").inner_text()  # type: ignore[union-attr]
    assert f"Ada Watched {scores[0]}" in line and f"Bob Watched {scores[1]}" in line, line
    assert page.inner_text("[data-testid=watch-score-0]") == f"Ada Watched {scores[0]}"
    assert page.inner_text("[data-testid=watch-score-1]") == f"Bob Watched {scores[1]}"
    # The hand just ended is shown as its players see it (both hands are public now), and
    # neither seat is "to play" between hands: a spectator saw the new score and no
    # reason for it (page QA).
    result = page.inner_text("[data-testid=hand-result]")
    assert "Ada Watched" in result and "Bob Watched" in result, result
    assert "to play" not in page.inner_text("[data-testid=watch-seats]")
    for client in (ada, bob):
        client.close()


def test_a_match_resigned_mid_hand_shows_no_earlier_hand_as_its_end(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Resigned in a later hand, a match's view still holds the scored hand's result:
    shown between hands "as the hand just ended", it told a spectator that hand's knock
    as the end of the match (and, with no knock of its own, without its deadwood)."""
    ada, bob, match_id = seated(site, "Ada Resigns", "Bob Stays")
    play_until_scored((ada, bob), match_id)
    # A washed hand scores nothing, so the scored hand may be the second or later.
    scored_hand = ada.get(f"/v1/matches/{match_id}").json()["view"]["hand_number"]
    for client in (ada, bob):  # both say ready: the next hand is dealt
        view = client.get(f"/v1/matches/{match_id}").json()["view"]
        if any(move["type"] == "next_hand" for move in view["legal"]):
            ready = client.post(
                f"/v1/matches/{match_id}/actions", json={"action": {"type": "next_hand"}}
            )
            assert ready.status_code == 200, ready.text
    assert ada.get(f"/v1/matches/{match_id}").json()["view"]["hand_number"] == scored_hand + 1
    resigned = ada.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
    assert resigned.status_code == 200, resigned.text

    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector("[data-testid=watch-over]")
    assert page.locator("[data-testid=hand-result]").count() == 0
    for client in (ada, bob):
        client.close()
