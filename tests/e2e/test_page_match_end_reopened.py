"""A finished match opened again says how it ended, not its last card move.

Opened over (from History, a link, a reload), the table's narration said the last move of
the match's last hand ("Jon discarded J♠.") beside "The match is over" and a result that
says the match was resigned or claimed: a stale move, told to screen readers as news. It
now says how the match ended, as the play-out's last event says it live ("You won the
match (Ray resigned), 0 to 0."). A claim settles as the absent seat's resignation, and
only the match's log says it was a claim: the line waits for the page's lookup of it,
saying nothing meanwhile, and is never told as a resignation. Real server (a short
absence grace, for the claim), real headless Chromium; the moves are made over HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    page,
    run_until,
    served_site,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_chat import answers_held
from tests.e2e.test_page_friends import auth, joined, make_player, private_table, signed_in
from tests.e2e.test_page_match_end import act, open_waiting, simple_move, waiting_and_acting
from tests.e2e.test_page_socketless import REFUSED_SOCKETS

GRACE_S = 2  # a friend who never came is claimed from this soon


@pytest.fixture(scope="module")
def claim_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("match-end-reopened")
    with served_site(folder, GINRUMMY_ABSENCE_GRACE_S=str(GRACE_S)) as url:
        yield url


def view_of(site: str, player: dict[str, str], match_id: str) -> dict[str, Any]:  # noqa: F811
    answer = httpx.get(f"{site}/v1/matches/{match_id}", headers=auth(player))
    assert answer.status_code == 200, answer.text
    view: dict[str, Any] = answer.json()["view"]
    return view


def final_score(view: dict[str, Any]) -> str:
    """The winner's total first, as the page says it."""
    s = view["settlement"]
    return f"{s['totals'][s['winner']]} to {s['totals'][1 - s['winner']]}"


def claim_from_absent(
    site: str,  # noqa: F811
    host: dict[str, str],
    guest: dict[str, str],
    match_id: str,
) -> None:
    """The host claims the match from the guest, who joined over HTTP and never came."""
    waiting, _ = waiting_and_acting(site, host, guest, match_id)
    if waiting is guest:  # the host moves first: the friend who left is then to play
        act(site, host, match_id, simple_move(view_of(site, host, match_id), knock=False))
    deadline = time.monotonic() + GRACE_S + 20
    while time.monotonic() < deadline:
        status = httpx.get(f"{site}/v1/matches/{match_id}/claim", headers=auth(host)).json()
        if status["claimable"]:
            break
        time.sleep(0.2)
    claimed = httpx.post(f"{site}/v1/matches/{match_id}/claim", headers=auth(host))
    assert claimed.status_code == 200, claimed.text


def opened_over(page: Page, site: str, player: dict[str, str], match_id: str) -> None:  # noqa: F811
    signed_in(page, site, player)
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-phase=match_over] [data-testid=settlement]")


def narration(page: Page) -> str:  # noqa: F811
    return page.inner_text("[data-testid=narration]").strip()


def test_a_resigned_match_opened_again_says_it_was_resigned(site: str, page: Page) -> None:  # noqa: F811
    host, guest = make_player(site, "Wren"), make_player(site, "Jon")
    match_id = joined(site, private_table(site, host, hints=True), guest)
    players = (host, guest)
    moves = 0
    while moves < 4:  # a few moves of both, so the hand's last move is a card's
        views = [view_of(site, p, match_id) for p in players]
        to_act = next(i for i, v in enumerate(views) if v["seat"] in v["to_act"])
        act(site, players[to_act], match_id, simple_move(views[to_act], knock=False))
        moves += 1
    act(site, guest, match_id, {"type": "resign"})
    view = view_of(site, host, match_id)
    assert view["moves"], "the last hand has moves, one of them the last"

    opened_over(page, site, host, match_id)
    wait_until(page, "document.querySelector('[data-testid=narration]').textContent.trim() !== ''")
    assert narration(page) == f"You won the match (Jon resigned), {final_score(view)}."


def test_a_claimed_match_opened_again_says_it_was_claimed_once_the_claim_is_known(
    claim_site: str,
    page: Page,  # noqa: F811
) -> None:
    """The friend joined over HTTP and never came: claimed from over HTTP. Opened again,
    the page's lookup of the claim (GET …/events) is held: meanwhile the line says
    nothing, neither a card move nor a resignation, and the result says the match ended
    early (it said "The match was resigned: Absent Abe resigned."); answered, both say
    the claim."""
    host, guest = make_player(claim_site, "Clio"), make_player(claim_site, "Absent Abe")
    match_id = joined(claim_site, private_table(claim_site, host), guest)
    claim_from_absent(claim_site, host, guest, match_id)
    view = view_of(claim_site, host, match_id)
    assert view["settlement"]["resigned"] == view["seat"] ^ 1, "a claim settles as a resignation"

    held = answers_held(page, "**/events*", "GET")
    opened_over(page, claim_site, host, match_id)
    run_until(page, lambda: bool(held), TIMEOUT_MS)
    assert len(held) == 1, "the page looks the claim up in the match's log"
    settle(page)
    assert narration(page) == "", "nothing is said before the claim is known"
    box = page.inner_text("[data-testid=settlement]")
    assert "resigned" not in box, f"nor does the result tell the claim as a resignation: {box}"
    assert "The match ended before it was played out." in box
    route, answer = held[0]
    route.fulfill(response=answer)
    wait_until(page, "document.querySelector('[data-testid=narration]').textContent.trim() !== ''")
    assert narration(page) == f"You won the match (claimed from Absent Abe), {final_score(view)}."
    page.wait_for_selector("[data-testid=settlement-claimed]")


def test_a_match_that_ends_while_the_socket_is_down_says_how_it_ended(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Without its socket the page asks for the match every 3 s and, shown a newer view,
    tells its newest move: of a match settled meanwhile, that was a card move too."""
    page.add_init_script(REFUSED_SOCKETS)
    host, guest = make_player(site, "Sol"), make_player(site, "Tad")
    match_id = joined(site, private_table(site, host, hints=True), guest)
    waiting, acting = waiting_and_acting(site, host, guest, match_id)
    open_waiting(page, site, waiting, match_id)
    act(site, acting, match_id, simple_move(view_of(site, acting, match_id), knock=False))
    act(site, acting, match_id, {"type": "resign"})
    view = view_of(site, waiting, match_id)
    page.wait_for_selector("body[data-phase=match_over] [data-testid=settlement]")
    settle(page)
    expected = f"You won the match ({acting['name']} resigned), {final_score(view)}."
    run_until(page, lambda: narration(page) == expected, 5000)  # once the claim is looked up
    assert narration(page) == expected
