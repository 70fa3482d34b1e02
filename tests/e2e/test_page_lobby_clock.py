"""A person opens a table, or sends a challenge, with a move clock and rated or not, from
the lobby's own forms: a preset clock or one of their own (checked against the bounds the
server enforces before anything is sent, and the server's own words shown if it still
refuses), and a rated box that is unavailable, with the server's reason, where the
server would refuse to rate. The choice is remembered for the next table. Real server,
real headless Chromium; what was opened is read back through the API."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, Request, Route

from domain.rules import MAX_CLOCK_MS, MIN_CLOCK_MS
from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated, token_of  # noqa: F401


def api(site: str, page: Page) -> httpx.Client:  # noqa: F811
    """The API as the player this page signed in."""
    return httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token_of(page)}"})


def my_tables(site: str, page: Page) -> list[dict[str, Any]]:  # noqa: F811
    with api(site, page) as client:
        answer = client.get("/v1/tables", params={"mine": "true"})
    answer.raise_for_status()
    tables: list[dict[str, Any]] = answer.json()["tables"]
    return tables


def sent_challenges(site: str, page: Page) -> list[dict[str, Any]]:  # noqa: F811
    with api(site, page) as client:
        answer = client.get("/v1/challenges")
    answer.raise_for_status()
    challenges: list[dict[str, Any]] = answer.json()["challenges"]
    return challenges


class Posts:
    """The page's requests that would open a table or send a challenge."""

    def __init__(self, page: Page) -> None:  # noqa: F811
        self.seen: list[str] = []
        page.on("request", self.request)

    def request(self, request: Request) -> None:
        if request.method == "POST" and re.search(r"/v1/(tables|challenges)$", request.url):
            self.seen.append(request.url)


def test_a_rated_table_with_30_s_a_move_opened_from_the_page_runs_its_clock(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    alice, bob, _ = pages
    enter_lobby(alice, site, "Alice Timed")
    assert alice.is_checked("[data-testid=table-rated]"), "a preset's table is rated by default"
    alice.select_option("[data-testid=table-clock]", "move-30")
    assert alice.inner_text("#table-clock option:checked") == "30 s a move"  # terms.js's words
    alice.click("[data-testid=open-table]")
    mine = alice.wait_for_selector("[data-testid=my-table]")
    assert "rated · 30 s a move" in mine.inner_text()  # type: ignore[union-attr]
    (table,) = my_tables(site, alice)
    assert table["rated"] is True
    assert table["clock"] == {"per_move_ms": 30_000, "bank_ms": None, "increment_ms": 0}

    enter_lobby(bob, site, "Bob Joins")
    row = bob.locator("[data-testid=open-tables] li", has_text="Alice Timed")
    assert "arcadia to 100 · rated · 30 s a move" in row.inner_text()
    row.locator("[data-testid=join]").click()
    match_id = seated(alice, bob)
    with api(site, bob) as client:
        match = client.get(f"/v1/matches/{match_id}").json()
    assert match["rated"] is True
    assert match["view"]["clock"]["per_move_ms"] == 30_000

    # Both players see the clock of the seat to act, and it counts down.
    for player in (alice, bob):
        player.wait_for_selector("#clock:not([hidden])")
        first = player.inner_text("#clock")
        assert re.search(r"time: (30|2\d) s", first), first
        wait_until(
            player,
            f"document.getElementById('clock').innerText !== {json.dumps(first)}",
            timeout=5000,
        )

    # The next table from this browser starts from the same choice.
    alice.goto(f"{site}/#/lobby")
    alice.wait_for_selector("[data-testid=open-tables]")
    assert alice.input_value("[data-testid=table-clock]") == "move-30"
    assert alice.input_value("[data-testid=challenge-clock]") == "move-30"
    assert alice.is_checked("[data-testid=table-rated]")


def test_a_challenge_with_a_clock_of_ones_own_and_unrated_is_sent_as_chosen(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    dora, ezra, _ = pages
    enter_lobby(ezra, site, "Ezra Clocked")
    enter_lobby(dora, site, "Dora Clocks")
    dora.fill("[data-testid=find-name]", "Ezra Clocked")
    dora.select_option("[data-testid=challenge-preset]", "classic")
    dora.select_option("[data-testid=challenge-clock]", "custom-bank")
    dora.fill("[data-testid=challenge-bank]", "2.5")
    dora.fill("[data-testid=challenge-increment]", "3")
    reads = dora.inner_text("[data-testid=challenge-clock-reads]")
    assert reads == "Reads as: 2 min 30 s each + 3 s a move.", reads
    dora.uncheck("[data-testid=challenge-rated]")
    dora.click("[data-testid=find]")
    dora.click("[data-testid=found] [data-testid=challenge]")
    dora.wait_for_selector("[data-testid=sent-challenge]")
    (sent,) = sent_challenges(site, dora)
    assert sent["rated"] is False
    assert sent["rules"]["name"] == "classic"
    assert sent["clock"] == {"per_move_ms": None, "bank_ms": 150_000, "increment_ms": 3_000}
    wait_until(
        ezra, "document.querySelector('[data-testid=incoming]').textContent.includes('Dora')"
    )
    told = ezra.inner_text("[data-testid=incoming]")
    assert "classic to 100 · unrated · 2 min 30 s each + 3 s a move" in told, told

    # Remembered, as typed, unrated included.
    dora.goto(f"{site}/#/lobby")
    dora.wait_for_selector("[data-testid=open-tables]")
    assert dora.input_value("[data-testid=table-clock]") == "custom-bank"
    assert dora.input_value("[data-testid=table-bank]") == "2.5"
    assert dora.input_value("[data-testid=table-increment]") == "3"
    assert not dora.is_checked("[data-testid=table-rated]")


def test_hints_make_the_rated_box_unavailable_with_the_servers_reason(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    enter_lobby(page, site, "Hinted Host")
    rated = "[data-testid=table-rated]"
    assert page.is_enabled(rated) and page.is_checked(rated)
    assert page.is_hidden("[data-testid=table-rated-why]")
    page.check("[data-testid=table-hints]")
    assert page.is_disabled(rated) and not page.is_checked(rated)
    why = page.inner_text("[data-testid=table-rated-why]")
    assert why == "Unrated: a match with the engine's hints is never rated.", why
    page.uncheck("[data-testid=table-hints]")
    assert page.is_enabled(rated) and page.is_checked(rated), "as the player had it"
    page.check("[data-testid=table-hints]")
    page.select_option("[data-testid=table-clock]", "bank-5-5")
    page.click("[data-testid=open-table]")
    page.wait_for_selector("[data-testid=my-table]")
    (table,) = my_tables(site, page)
    assert (table["hints"], table["rated"]) == (True, False)
    assert table["clock"] == {"per_move_ms": None, "bank_ms": 300_000, "increment_ms": 5_000}
    assert page.is_hidden("[data-testid=table-problem]")
    # A table with hints says nothing about the rating the player wants next time.
    page.goto(f"{site}/#/lobby")
    page.wait_for_selector("[data-testid=open-tables]")
    assert page.is_checked(rated) and not page.is_checked("[data-testid=table-hints]")


@pytest.mark.parametrize(
    ("choice", "fields", "said"),
    [
        ("custom-move", {"per-move": "0.5"}, "A time per move must be at least 1 s"),
        ("custom-move", {"per-move": "90000"}, "at most a day (86400 s)"),
        ("custom-move", {"per-move": "soon"}, "Type the seconds each move may take"),
        # it read as 1 s (a comma is a decimal point: 2,5 min)
        ("custom-move", {"per-move": "1,000"}, "without a comma between its thousands"),
        ("custom-bank", {"bank": ""}, "Type the minutes in each player's bank"),
        ("custom-bank", {"bank": "1441"}, "A time bank must be at least 1 s"),
        ("custom-bank", {"bank": "5", "increment": "-1"}, "The time added after each move"),
    ],
    ids=[
        "under-floor",
        "over-a-day",
        "not-a-number",
        "thousands-comma",
        "no-bank",
        "bank-over",
        "negative-top-up",
    ],
)
def test_a_clock_the_server_would_refuse_is_said_and_opens_nothing(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    choice: str,
    fields: dict[str, str],
    said: str,
    request: pytest.FixtureRequest,
) -> None:
    posts = Posts(page)
    enter_lobby(page, site, "Impatient")
    page.select_option("[data-testid=table-clock]", choice)
    for name, value in fields.items():
        page.fill(f"[data-testid=table-{name}]", value)
    page.click("[data-testid=open-table]")
    problem = page.wait_for_selector("[data-testid=table-problem]:not([hidden])")
    assert said in problem.inner_text()  # type: ignore[union-attr]
    assert problem.get_attribute("role") == "alert"  # type: ignore[union-attr]
    assert page.evaluate("document.activeElement.getAttribute('aria-invalid')") == "true"
    # the challenge form checks its own the same way, and sends nothing either
    target = f"Waited {request.node.callspec.id}"
    httpx.post(f"{site}/v1/players", json={"name": target}).raise_for_status()
    page.select_option("[data-testid=challenge-clock]", choice)
    for name, value in fields.items():
        page.fill(f"[data-testid=challenge-{name}]", value)
    page.fill("[data-testid=find-name]", target)
    page.click("[data-testid=find]")
    page.click("[data-testid=found] [data-testid=challenge]")
    problem = page.wait_for_selector("[data-testid=challenge-problem]:not([hidden])")
    assert said in problem.inner_text()  # type: ignore[union-attr]
    assert posts.seen == [], "nothing was asked of the server"
    assert my_tables(site, page) == [] and sent_challenges(site, page) == []
    assert page.query_selector("[data-testid=my-table]") is None
    # Mended, the message goes and the table opens.
    page.select_option("[data-testid=table-clock]", "move-15")
    assert page.is_hidden("[data-testid=table-problem]")
    page.click("[data-testid=open-table]")
    page.wait_for_selector("[data-testid=my-table]")
    (table,) = my_tables(site, page)
    assert table["clock"]["per_move_ms"] == 15_000


def test_the_servers_refusal_of_a_clock_is_shown_in_its_words(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A page whose own check is out of date (say, cached from before a higher floor)
    still tells the server's refusal beside the clock, not a vanishing toast. The
    request goes to the real server with a clock under today's floor."""
    enter_lobby(page, site, "Stale Page")

    def under_the_floor(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "clock": {"per_move_ms": 500}}))

    page.route(re.compile(r".*/v1/tables$"), under_the_floor)
    page.select_option("[data-testid=table-clock]", "custom-move")
    page.fill("[data-testid=table-per-move]", "2")
    page.click("[data-testid=open-table]")
    problem = page.wait_for_selector("[data-testid=table-problem]:not([hidden])")
    text = problem.inner_text()  # type: ignore[union-attr]
    assert text.startswith("The server opened nothing."), text
    assert "clock.per_move_ms: Expected `int` >= 1000" in text, text
    assert my_tables(site, page) == []


def test_the_pages_bounds_and_rating_rule_are_the_servers(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The page checks a clock against the domain's own bounds, and greys out the rated
    box exactly where the server refuses ``rated: true``, with the server's reason."""
    page.goto(f"{site}/")
    bounds = page.evaluate(
        "async () => { const t = await import('/js/clockchoice.js');"
        " return [t.MIN_CLOCK_MS, t.MAX_CLOCK_MS]; }"
    )
    assert bounds == [MIN_CLOCK_MS, MAX_CLOCK_MS]
    created = httpx.post(f"{site}/v1/players", json={"name": "Rule Checker"}).json()
    headers = {"Authorization": f"Bearer {created['token']}"}
    for rules in ("arcadia", "arkadium", "classic", {"preset": "classic", "target": 50}):
        for hints in (False, True):
            said = page.evaluate(
                "async (terms) => (await import('/js/timecontrol.js')).unratable(terms)",
                {"rules": rules, "hints": hints},
            )
            answer = httpx.post(
                f"{site}/v1/tables",
                json={"rules": rules, "hints": hints, "rated": True},
                headers=headers,
            )
            if answer.status_code == 201:
                httpx.post(
                    f"{site}/v1/tables/{answer.json()['table_id']}/cancel", headers=headers
                ).raise_for_status()
                assert said is None, (rules, hints, said)
            else:
                assert answer.json()["rule"] == "not_ratable", answer.text
                assert said == answer.json()["detail"], (rules, hints)
