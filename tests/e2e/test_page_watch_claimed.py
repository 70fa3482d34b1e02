"""A spectator who opens a match ended by a claim after it was over is not told it was
resigned.

A claim settles as the absent seat's resignation, and only the match's log says it was a
claim (a ``match_claimed`` event just before the ``match_settled``). The watch screen knew
it only from the live ``match_claimed`` frame: opened over, its watch-over line said
"Clio won the match (Absent Abe resigned), …". It now looks the claim up in the log's last
events (a private match's with its watch code) and, while it does or if it cannot, says
who won and the score, never a resignation. Real server (a short absence grace, for the
claim), real headless Chromium; the moves are made over HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    TIMEOUT_MS,
    browser,
    page,
    run_until,
    served_site,
    wait_until,
)
from tests.e2e.test_page_chat import answers_held
from tests.e2e.test_page_friends import joined, make_player, private_table
from tests.e2e.test_page_match_end import act
from tests.e2e.test_page_match_end_reopened import claim_from_absent, final_score, view_of

GRACE_S = 2  # a friend who never came is claimed from this soon


@pytest.fixture(scope="module")
def claim_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("watch-claimed")
    with served_site(folder, GINRUMMY_ABSENCE_GRACE_S=str(GRACE_S)) as url:
        yield url


def claimed_private_match(site: str) -> tuple[str, str, dict[str, Any]]:
    """Clio's private match, claimed from Absent Abe (who joined over HTTP and never came):
    the match, its watch code and Clio's view of it."""
    host, guest = make_player(site, "Clio"), make_player(site, "Absent Abe")
    table = private_table(site, host)
    match_id = joined(site, table, guest)
    claim_from_absent(site, host, guest, match_id)
    view = view_of(site, host, match_id)
    assert view["settlement"]["resigned"] == view["seat"] ^ 1, "a claim settles as a resignation"
    return match_id, str(table["watch_code"]), view


def over_line(page: Page) -> str:  # noqa: F811
    return page.inner_text("[data-testid=watch-over]").strip()


def test_a_claimed_match_watched_after_it_ended_says_it_was_claimed(
    claim_site: str,
    page: Page,  # noqa: F811
) -> None:
    """The lookup of the claim (GET …/events, with the watch code) is held: meanwhile the
    line says who won and the score, no resignation; answered, it says the claim."""
    match_id, code, view = claimed_private_match(claim_site)
    held = answers_held(page, "**/events*", "GET")
    page.goto(f"{claim_site}/#/watch/{match_id}/{code}")
    page.wait_for_selector("[data-testid=watch-over]")
    run_until(page, lambda: bool(held), TIMEOUT_MS)
    assert over_line(page) == f"Clio won the match, {final_score(view)}.", "not a resignation"
    assert len(held) == 1, "the page looks the claim up in the match's log"
    route, answer = held[0]
    assert f"watch_code={code}" in route.request.url, "a private match's log needs its code"
    route.fulfill(response=answer)
    expected = f"Clio won the match (claimed from Absent Abe), {final_score(view)}."
    wait_until(
        page,
        f"document.querySelector('[data-testid=watch-over]').textContent.trim() === {expected!r}",
    )
    assert over_line(page) == expected


def test_a_failed_lookup_of_the_claim_says_no_resignation(
    claim_site: str,
    page: Page,  # noqa: F811
) -> None:
    """The log cannot be read: the line says who won and the score, and stays so."""
    match_id, code, view = claimed_private_match(claim_site)
    refused: list[str] = []

    def refuse(route: Route) -> None:
        refused.append(route.request.url)
        route.fulfill(status=503, json={"title": "Service Unavailable", "status": 503})

    page.route("**/events*", refuse)
    page.goto(f"{claim_site}/#/watch/{match_id}/{code}")
    page.wait_for_selector("[data-testid=watch-over]")
    run_until(page, lambda: bool(refused), TIMEOUT_MS)
    # The refusal handled by the page: a fetch made after it is answered after it.
    page.evaluate("() => fetch('/v1/matches/watchable?limit=1').then((r) => r.text())")
    assert over_line(page) == f"Clio won the match, {final_score(view)}."
    assert refused, "the page looked the claim up in the match's log"


def test_a_resigned_match_watched_after_it_ended_still_says_it_was_resigned(
    claim_site: str,
    page: Page,  # noqa: F811
) -> None:
    """The log has no claim: once looked up, the line says the resignation."""
    host, guest = make_player(claim_site, "Wren"), make_player(claim_site, "Jon")
    table = private_table(claim_site, host)
    match_id = joined(claim_site, table, guest)
    act(claim_site, guest, match_id, {"type": "resign"})
    view = view_of(claim_site, host, match_id)
    page.goto(f"{claim_site}/#/watch/{match_id}/{table['watch_code']}")
    expected = f"Wren won the match (Jon resigned), {final_score(view)}."
    wait_until(
        page,
        f"document.querySelector('[data-testid=watch-over]')?.textContent.trim() === {expected!r}",
    )
    assert over_line(page) == expected


def test_a_claim_watched_live_is_said_without_a_lookup(
    claim_site: str,
    page: Page,  # noqa: F811
) -> None:
    """Seen live, the claim's own frame says it: the log is not asked."""
    host, guest = make_player(claim_site, "Clio"), make_player(claim_site, "Absent Abe")
    table = private_table(claim_site, host)
    match_id = joined(claim_site, table, guest)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/events" in r.url else None)
    page.goto(f"{claim_site}/#/watch/{match_id}/{table['watch_code']}")
    page.wait_for_selector("[data-testid=watch-score]")
    claim_from_absent(claim_site, host, guest, match_id)
    view = view_of(claim_site, host, match_id)
    expected = f"Clio won the match (claimed from Absent Abe), {final_score(view)}."
    wait_until(
        page,
        f"document.querySelector('[data-testid=watch-over]')?.textContent.trim() === {expected!r}",
    )
    assert over_line(page) == expected
    assert asked == [], "the claim was seen: the log is not asked for it"
