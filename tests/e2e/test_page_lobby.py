"""Two people in two real Chromium pages find each other in the lobby and play a hand;
a third page watches. Every click is on the page's own buttons."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    click_next_legal_action,
    refused_by_policy,
    settle,
    site,
    wait_until,
)


@pytest.fixture
def pages(browser: Browser) -> Iterator[tuple[Page, Page, Page]]:  # noqa: F811
    contexts = [browser.new_context(viewport={"width": 1000, "height": 860}) for _ in range(3)]
    tabs = [context.new_page() for context in contexts]
    errors: list[str] = []
    sockets: list[str] = []
    for tab in tabs:
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.on("console", lambda message: errors.extend(refused_by_policy(message.text)))
        tab.on("websocket", lambda socket: sockets.append(socket.url))
        tab.set_default_timeout(TIMEOUT_MS)
    yield tabs[0], tabs[1], tabs[2]
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"
    # the page signs its sockets in with a first message: no token in a URL a proxy logs
    assert sockets and not [url for url in sockets if "token" in url], sockets


def token_of(page: Page) -> str:
    """The token of the player this page signed in."""
    token: str = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["token"]
    return token


def seated(*players: Page) -> str:
    """Wait until every page is at the table of one match; its id."""
    for page in players:
        page.wait_for_selector("body[data-screen=table]")
        settle(page)
    ids = {page.evaluate("localStorage.getItem('ginrummy.match')") for page in players}
    assert len(ids) == 1, ids
    match_id: str = ids.pop()
    return match_id


def enter_lobby(page: Page, site: str, name: str) -> None:  # noqa: F811
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.fill("[data-testid=lobby-name]", name)
    page.click("[data-testid=enter-lobby]")
    page.wait_for_selector("[data-testid=open-tables]")


def test_the_header_says_who_plays_as_soon_as_a_name_enters_the_lobby(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """The lobby's sign-in names the player in the header at once (it said "Not signed
    in", with no Sign out, until a reload or another screen)."""
    nora, _, _ = pages
    enter_lobby(nora, site, "Nora")
    wait_until(nora, "document.querySelector('#who').textContent.includes('Playing as')")
    assert "Nora" in nora.inner_text("#who")
    assert nora.is_visible("#nav-signout")


def test_two_people_meet_in_the_lobby_play_a_hand_and_are_watched(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    alice, bob, carol = pages
    enter_lobby(alice, site, "Alice")
    alice.click("[data-testid=open-table]")
    alice.wait_for_selector("[data-testid=waiting]:not([hidden])")

    enter_lobby(bob, site, "Bob")
    bob.click("[data-testid=open-tables] li:has-text('Alice') [data-testid=join]")
    for page in (alice, bob):  # Alice's page opens the match when Bob joins
        page.wait_for_selector("body[data-screen=table]")
        settle(page)
    match_id = bob.evaluate("localStorage.getItem('ginrummy.match')")
    assert alice.evaluate("localStorage.getItem('ginrummy.match')") == match_id
    assert "Bob" in alice.inner_text("#scorebar") and "Alice" in bob.inner_text("#scorebar")
    # each page gave its own seed, made in the browser (none was drawn by the server)
    token = json.loads(bob.evaluate("localStorage.getItem('ginrummy.player')"))["token"]
    log = httpx.get(
        f"{site}/v1/matches/{match_id}/events", headers={"Authorization": f"Bearer {token}"}
    ).json()["events"]
    seeds = log[0]["event"]["client_seeds"]
    assert [s["by"] != "server" and len(s["seed"]) == 32 for s in seeds] == [True, True]

    carol.goto(f"{site}/#/watch/{match_id}")
    carol.wait_for_selector("[data-testid=watch-score]")
    carol.wait_for_selector("[data-testid=spectators]:has-text('1 spectator watching')")
    assert "Watching: Alice against Bob" in carol.inner_text("#watch h1")

    narrated: set[str] = set()
    deadline = time.monotonic() + 120
    while not all(
        p.get_attribute("body", "data-phase") in ("hand_over", "match_over") for p in (alice, bob)
    ):
        assert time.monotonic() < deadline, "the hand did not end"
        acted = False
        for page in (alice, bob):
            settle(page)
            if page.get_attribute("body", "data-my-turn") == "true" and page.get_attribute(
                "body", "data-phase"
            ) not in ("hand_over", "match_over"):
                click_next_legal_action(page)
                acted = True
                narrated.add(page.inner_text("#narration"))
        if not acted:
            time.sleep(0.05)
    for page in (alice, bob):
        settle(page)
        assert page.inner_text("#result")  # the hand's result is shown on both pages
    # The opponent's moves arrived live and were told by name, as the AI's are.
    assert any("Bob" in text for text in narrated) and any("Alice" in text for text in narrated)
    carol.wait_for_function(
        "v => Number(document.body.dataset.version) >= v",
        arg=int(alice.get_attribute("body", "data-version") or 0),
    )
    assert carol.get_attribute("body", "data-phase") in ("hand_over", "match_over")

    # Either may resign; the other page learns it live.
    if alice.get_attribute("body", "data-phase") == "hand_over":
        bob.click("[data-testid=resign]")
        bob.click("[data-testid=resign-confirm]")
        for page in (alice, bob):
            page.wait_for_selector("body[data-phase=match_over]")
        assert "won the match" in carol.inner_text("[data-testid=watch-over]")


# The page's own fetch, its answers to GET /v1/matches/ID held back: a loaded machine
# made that answer take seconds, and the page looked settled before the table was drawn.
SLOW_MATCH_ANSWER = """
(() => {
  const fetched = window.fetch.bind(window);
  window.fetch = async (resource, init) => {
    const answer = await fetched(resource, init);
    const path = new URL(String(resource), location.href).pathname;
    const method = ((init && init.method) || 'GET').toUpperCase();
    if (method === 'GET' && /^\\/v1\\/matches\\/[^/]+$/.test(path)) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    return answer;
  };
})();
"""


def test_a_match_opened_from_the_player_stream_is_busy_until_its_table_is_drawn(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """Alice's page opens the match when her player stream says it started; until the
    match's view is on the table the page is busy, so a settled page shows both names."""
    alice, bob, _ = pages
    alice.add_init_script(SLOW_MATCH_ANSWER)
    enter_lobby(alice, site, "Alice")
    alice.click("[data-testid=open-table]")
    alice.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(bob, site, "Bob")
    bob.click("[data-testid=open-tables] li:has-text('Alice') [data-testid=join]")
    alice.wait_for_selector("body[data-screen=table]")
    assert alice.get_attribute("body", "data-busy") == "true"  # the answer is held back
    settle(alice)
    assert "You (Alice)" in alice.inner_text("#scorebar")
    assert "Bob" in alice.inner_text("[data-testid=pill-opponent]")
