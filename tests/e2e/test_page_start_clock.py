"""A match against the computer is given a move clock from the start form.

POST /v1/matches takes a ``clock`` against the house AI as the lobby's tables and
challenges do (none unless asked), but the start form offered none: a player who wanted
to practise under the clock of a rated table could not. The form now offers the lobby's
choices (timecontrol.js's presets, or a time per move or a bank of the player's own),
checks a clock of the player's own against the server's bounds before sending anything,
and remembers the choice. Real server, real headless Chromium; the match's clock is read
back through the API.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, Request

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    api_view,
    browser,
    page,
    settle,
    site,
    stored,
)


def test_a_match_against_the_computer_is_dealt_with_the_clock_chosen(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.fill("#name", "Clocked Solo")
    page.select_option("#level", "easy")
    page.select_option("[data-testid=start-clock]", "move-60")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    clock = api_view(site, *stored(page))["clock"]
    assert clock is not None and clock["per_move_ms"] == 60_000, clock
    # Remembered for the next deal, apart from the lobby's choice.
    page.goto(f"{site}/?delay={DELAY_MS}#/")
    page.wait_for_selector("body[data-screen=start]")
    assert page.input_value("[data-testid=start-clock]") == "move-60"


def test_a_clock_of_the_players_own_out_of_bounds_is_refused_before_sending(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    posts: list[str] = []

    def seen(request: Request) -> None:
        if request.method == "POST" and re.search(r"/v1/(matches|players)$", request.url):
            posts.append(request.url)

    page.on("request", seen)
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.fill("#name", "Too Fast")
    page.select_option("[data-testid=start-clock]", "custom-move")
    page.fill("[data-testid=start-per-move]", "0.5")
    page.click("[data-testid=start]")
    problem = page.wait_for_selector("[data-testid=start-problem]:not([hidden])")
    assert "at least 1 s" in problem.inner_text()  # type: ignore[union-attr]
    assert page.evaluate("document.activeElement.dataset.testid") == "start-per-move"
    assert posts == [], "nothing was asked of the server"
    # Mended, the message goes and the match is dealt with that clock.
    page.fill("[data-testid=start-per-move]", "45")
    assert page.is_hidden("[data-testid=start-problem]")
    assert "45 s a move" in page.inner_text("[data-testid=start-clock-reads]")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    assert api_view(site, *stored(page))["clock"]["per_move_ms"] == 45_000
