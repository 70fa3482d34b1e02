"""Chat on the page, in three real Chromium pages: a message typed by one seat appears
for the other and for a spectator; a canned message is one click; a mute hides the
opponent's next message from the muter's page only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, WebSocketRoute, expect

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    run_until,
    site,
)

LOG = "[data-testid=chat-log]"


@pytest.fixture
def pages(browser: Browser) -> Iterator[tuple[Page, Page, Page]]:  # noqa: F811
    contexts = [browser.new_context(viewport={"width": 1000, "height": 900}) for _ in range(3)]
    tabs = [context.new_page() for context in contexts]
    errors: list[str] = []
    for tab in tabs:
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        tab.set_default_timeout(TIMEOUT_MS)
    yield tabs[0], tabs[1], tabs[2]
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def player(site: str, name: str) -> dict[str, Any]:  # noqa: F811
    created = httpx.post(f"{site}/v1/players", json={"name": name})
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


def seated_pair(
    site: str,  # noqa: F811
    host_name: str,
    guest_name: str,
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Two new players at a table of the first's, met through the API: (host, guest, match id)."""
    host, guest = player(site, host_name), player(site, guest_name)
    table = httpx.post(
        f"{site}/v1/tables", json={}, headers={"Authorization": f"Bearer {host['token']}"}
    ).json()
    joined = httpx.post(
        f"{site}/v1/tables/{table['table_id']}/join",
        json={},
        headers={"Authorization": f"Bearer {guest['token']}"},
    )
    assert joined.status_code == 200, joined.text
    return host, guest, joined.json()["match"]["match_id"]


def said(site: str, match_id: str, who: dict[str, Any], text: str) -> None:  # noqa: F811
    """``who`` says ``text`` in the match's chat, through the API."""
    answer = httpx.post(
        f"{site}/v1/matches/{match_id}/chat",
        json={"text": text},
        headers={"Authorization": f"Bearer {who['token']}"},
    )
    assert answer.status_code == 201, answer.text


def answers_held(page: Page, url: str, method: str) -> list[tuple[Route, Any]]:
    """From now on, the page's ``method`` requests to ``url`` reach the server at once and
    their answers wait in the list (each ``(route, answer)``) until the test fulfils them."""
    held: list[tuple[Route, Any]] = []

    def hold(route: Route) -> None:
        if route.request.method != method:
            route.continue_()
            return
        held.append((route, route.fetch()))

    page.route(url, hold)
    return held


def sign_in(page: Page, site: str, who: dict[str, Any], match_id: str) -> None:  # noqa: F811
    page.goto(f"{site}/")
    page.evaluate(
        "p => localStorage.setItem('ginrummy.player', JSON.stringify(p))",
        {"id": who["id"], "name": who["name"], "token": who["token"]},
    )
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-screen=table] [data-testid=chat-input]")


def test_a_message_sent_by_one_seat_appears_for_the_other_and_the_spectator(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    alice, bob, carol = pages
    a, b, match_id = seated_pair(site, "Alice", "Bob")
    sign_in(alice, site, a, match_id)
    sign_in(bob, site, b, match_id)
    carol.goto(f"{site}/#/watch/{match_id}")
    carol.wait_for_selector(f"body[data-screen=watch] {LOG}")
    assert carol.query_selector("[data-testid=chat-input]") is None  # spectators only read

    # Alice's answer to her message is held (the server has it: the others are sent it).
    # Her box is empty all the same: it waited for that answer, so it still held the
    # message the others read (a second Enter sent it again), and the answer wiped what
    # was typed meanwhile.
    held = answers_held(alice, f"**/v1/matches/{match_id}/chat", "POST")
    alice.fill("[data-testid=chat-input]", "Hello Bob \u202eevil")
    alice.click("[data-testid=chat-send]")
    bob.wait_for_selector(f"{LOG} li:has-text('Hello Bob evil')")
    carol.wait_for_selector(f"{LOG} li:has-text('Hello Bob evil')")
    assert "Alice: Hello Bob evil" in bob.inner_text(LOG)
    assert alice.input_value("[data-testid=chat-input]") == ""
    assert held, "the message's answer was not held"
    for route, answer in held:
        route.fulfill(response=answer)
    alice.unroute(f"**/v1/matches/{match_id}/chat")
    # Her own line comes with that answer or her socket's frame, either after the others'.
    expect(alice.locator(LOG)).to_contain_text(
        "You: Hello Bob evil", use_inner_text=True, timeout=TIMEOUT_MS
    )

    bob.click("[data-testid=chat-canned]:has-text('Good luck')")
    alice.wait_for_selector(f"{LOG} li:has-text('Bob: Good luck')")
    carol.wait_for_selector(f"{LOG} li:has-text('Bob: Good luck')")

    bob.check("[data-testid=chat-mute]")
    bob.wait_for_selector("[data-testid=chat-status]:has-text('hidden')")
    alice.fill("[data-testid=chat-input]", "you will not read this")
    alice.press("[data-testid=chat-input]", "Enter")
    carol.wait_for_selector(f"{LOG} li:has-text('you will not read this')")
    bob.fill("[data-testid=chat-input]", "still here")
    bob.click("[data-testid=chat-send]")
    alice.wait_for_selector(f"{LOG} li:has-text('still here')")
    bob.wait_for_selector(f"{LOG} li:has-text('still here')")
    assert "you will not read this" not in bob.inner_text(LOG)
    bob.reload()  # the history over HTTP hides it too, and the mute is remembered
    bob.wait_for_selector(f"{LOG} li:has-text('still here')")
    assert "you will not read this" not in bob.inner_text(LOG)
    assert bob.is_checked("[data-testid=chat-mute]")

    # typing in the chat never plays a card: the table's keys are for the table
    version = alice.evaluate("document.body.dataset.version")
    alice.fill("[data-testid=chat-input]", "")
    alice.type("[data-testid=chat-input]", "stpxd")
    assert alice.evaluate("document.body.dataset.version") == version

    # the box holds as many characters as the server takes, 280, emoji too: counted in
    # UTF-16 units (two an emoji) it stopped at 140
    alice.fill("[data-testid=chat-input]", "\U0001f44d" * 300)
    typed = "[...document.querySelector('[data-testid=chat-input]').value].length"
    assert alice.evaluate(typed) == 280
    alice.click("[data-testid=chat-send]")
    carol.wait_for_selector(f"{LOG} li:has-text('{chr(0x1F44D) * 280}')")  # Bob mutes Alice


def test_a_message_said_before_the_socket_started_is_shown(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """The socket relays what is said after the server read the chat as the socket opened;
    the page reads the history over HTTP, which may come first. A message said between the
    two was shown nowhere until another came (seen under load: test_page_friends' phone
    test). Here the socket's sign-in is held until the history was read and Quinn spoke."""
    pia_page, _, _ = pages
    pia, quinn, match_id = seated_pair(site, "Pia Early", "Quinn Early")
    held: dict[str, Any] = {"sign_in": None, "server": None}

    def through(route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        server.on_message(route.send)

        def from_page(message: str | bytes) -> None:
            if held["server"] is None:  # the first message is the sign-in: held back
                held["sign_in"], held["server"] = message, server
            else:
                server.send(message)

        route.on_message(from_page)

    read: list[str] = []
    pia_page.on("response", lambda r: read.append(r.url) if "/chat?after=0" in r.url else None)
    pia_page.route_web_socket("**/live*", through)
    sign_in(pia_page, site, pia, match_id)
    run_until(pia_page, lambda: bool(read) and held["server"] is not None, TIMEOUT_MS)
    assert read and held["server"] is not None, (read, held)
    said(site, match_id, quinn, "said early")
    held["server"].send(held["sign_in"])
    pia_page.wait_for_selector(f"{LOG} li:has-text('Quinn Early: said early')")


def test_a_message_said_before_a_spectators_socket_connected_is_shown(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """As above for a spectator, whose socket signs nothing in: its connection to the
    server is held until the history was read and Quinn spoke."""
    carol, _, _ = pages
    _, quinn, match_id = seated_pair(site, "Pia Watched", "Quinn Watched")
    held: list[WebSocketRoute] = []
    read: list[str] = []
    carol.on("response", lambda r: read.append(r.url) if "/chat?after=0" in r.url else None)
    carol.route_web_socket("**/watch*", lambda route: held.append(route))
    carol.goto(f"{site}/#/watch/{match_id}")
    run_until(carol, lambda: bool(read) and bool(held), TIMEOUT_MS)
    assert read and held, (read, held)
    said(site, match_id, quinn, "said unseen")
    held[0].connect_to_server()
    carol.wait_for_selector(f"{LOG} li:has-text('Quinn Watched: said unseen')")


def test_a_message_said_while_the_history_was_slow_to_come_is_shown(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """The socket waits 2 s at most for the history, then connects asking for no chat;
    once the history comes it connects again, asking for what came after it. Here the
    history is read at once but reaches the page only after 3 s, and Quinn speaks in
    between, before the socket opens."""
    pia_page, _, _ = pages
    pia, quinn, match_id = seated_pair(site, "Pia Slow", "Quinn Slow")

    def slow_history(route: Route) -> None:
        answer = route.fetch()  # the history as the server has it now: empty
        said(site, match_id, quinn, "said meanwhile")
        time.sleep(3)  # the page's socket opens meanwhile, past its 2 s
        route.fulfill(response=answer)

    pia_page.route("**/chat?after=0*", slow_history)
    sockets: list[str] = []
    pia_page.on("websocket", lambda ws: sockets.append(ws.url))
    sign_in(pia_page, site, pia, match_id)
    pia_page.wait_for_selector(f"{LOG} li:has-text('Quinn Slow: said meanwhile')")
    live = [url for url in sockets if f"/matches/{match_id}/live" in url]
    assert live[0].endswith("/live") and live[-1].endswith("/live?chat_after=0"), live


def test_sending_too_fast_is_said_in_plain_words_until_the_window_has_passed(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """The refusal read "Too many messages; wait as Retry-After says: at most 5 messages
    per 10 seconds; wait a moment" (a header no person sees), and stayed long after."""
    alice = pages[0]
    a, _, match_id = seated_pair(site, "Alma", "Bert")
    sign_in(alice, site, a, match_id)
    for n in range(5):
        said(site, match_id, a, f"message {n}")
    alice.fill("[data-testid=chat-input]", "one too many")
    alice.click("[data-testid=chat-send]")
    status = alice.locator("[data-testid=chat-status]")
    alice.wait_for_selector("[data-testid=chat-status]:has-text('too fast')")
    assert (
        status.inner_text() == "You are sending messages too fast: wait a moment, then send again."
    )
    alice.wait_for_function(
        "() => document.querySelector('[data-testid=chat-status]').textContent === ''",
        timeout=15_000,
    )


def test_a_name_too_like_the_opponents_is_refused_without_ids(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],
) -> None:
    """Renaming (the start form's Deal) to a name that passes for the opponent's showed
    the server's detail, with the opponent's player id in it."""
    alice = pages[0]
    a, b, match_id = seated_pair(site, "Anna", "Boris")
    sign_in(alice, site, a, match_id)
    alice.goto(f"{site}/#/")
    alice.wait_for_selector("body[data-screen=start]")
    alice.fill("#name", "boris")
    alice.click("[data-testid=start]")
    alice.wait_for_selector("#toast:not([hidden])")
    told = alice.inner_text("#toast")
    assert told.startswith("That name is too like the name of a player you play"), told
    assert b["id"] not in told and "passes for" not in told
