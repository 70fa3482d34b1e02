"""A rematch is shown the moment it is offered or answered, not at the page's next ask.

At a match's end the page learnt of the opponent's rematch offer, and of the answer to its
own, only by asking the server every second or two (rematch.js's polls). It now follows
the player stream (WS /v1/me/live), whose ``challenge`` and ``challenge_closed`` frames
say both at once. Here the page's timers are stopped once the match is over (Playwright's
clock, paused): no poll can ask, so what the page shows came over the stream. Real
Chromium against a real server; the opponent plays over HTTP.
"""

from __future__ import annotations

import threading

import httpx
from playwright.sync_api import APIResponse, Page, Route, WebSocket, WebSocketRoute

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    run_until,
    settle,
    site,
)
from tests.e2e.test_page_friends import auth, joined, make_player, private_table
from tests.e2e.test_page_live_matches import HIDDEN_TAB
from tests.e2e.test_page_match_end import (  # noqa: F401 (the fixture: a tab on Playwright's clock)
    Troubles,
    act,
    open_waiting,
    page,
    waiting_and_acting,
)

SHOWN_WITHIN_MS = 10_000  # real time (a loaded machine's); the page's own stands still
HIDE = "window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))"
SHOW = "window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))"


def player_streams_refused_once_set(page: Page) -> threading.Event:  # noqa: F811
    """The page's player streams (WS /v1/me/live) reach the server until the event given
    back is set; from then on each is closed as it opens, as by a proxy that refuses
    sockets, and the page must ask instead (rematch.js's polls, tested as such)."""
    refuse = threading.Event()

    def route(socket: WebSocketRoute) -> None:
        if refuse.is_set():
            socket.close(code=1011, reason="refused by the test")
        else:
            socket.connect_to_server()

    page.route_web_socket("**/v1/me/live", route)
    return refuse


def over_with_timers_stopped(
    page: Page,  # noqa: F811
    site: str,  # noqa: F811
    names: tuple[str, str],
) -> tuple[dict[str, str], str, Troubles]:
    """A match between two friends that the opponent resigned, open on the page of the one
    who waited; once the page's player stream has answered its sign-in, the page's timers
    stop. Gives the opponent, the match and what went wrong on the page."""
    host, guest = make_player(site, names[0]), make_player(site, names[1])
    match_id = joined(site, private_table(site, host), guest)
    waiting, acting = waiting_and_acting(site, host, guest, match_id)
    heard: list[str] = []

    def on_socket(socket: WebSocket) -> None:  # called before any of its frames
        if socket.url.endswith("/v1/me/live"):
            socket.on("framereceived", lambda payload: heard.append(str(payload)))

    page.on("websocket", on_socket)
    troubles = open_waiting(page, site, waiting, match_id)
    act(site, acting, match_id, {"type": "resign"})
    page.wait_for_selector("body[data-phase=match_over]")
    settle(page)
    run_until(page, lambda: bool(heard), SHOWN_WITHIN_MS)
    assert heard, "at match over the page follows the player stream"
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    return acting, match_id, troubles


def test_the_opponents_rematch_offer_shows_at_once(site: str, page: Page) -> None:  # noqa: F811
    opponent, match_id, troubles = over_with_timers_stopped(page, site, ("Nell Live", "Otto Live"))
    offered = httpx.post(f"{site}/v1/matches/{match_id}/rematch", headers=auth(opponent))
    assert offered.status_code == 200, offered.text
    offer = page.wait_for_selector("[data-testid=rematch-offer]", timeout=SHOWN_WITHIN_MS)
    assert offer is not None and f"{opponent['name']} offers a rematch" in offer.inner_text()
    # Withdrawn: it leaves the table as soon.
    table_id = offered.json()["table_id"]
    cancelled = httpx.post(f"{site}/v1/challenges/{table_id}/cancel", headers=auth(opponent))
    assert cancelled.status_code == 200, cancelled.text
    page.wait_for_selector("[data-testid=rematch-offer]", state="detached", timeout=SHOWN_WITHIN_MS)
    assert page.locator("[data-testid=rematch]").count() == 1  # ours may be offered still
    assert troubles.seen == [], troubles.seen


def test_the_answer_to_our_rematch_offer_opens_the_new_match_at_once(site: str, page: Page) -> None:  # noqa: F811
    opponent, match_id, troubles = over_with_timers_stopped(page, site, ("Pia Live", "Quin Live"))
    page.click("[data-testid=rematch]")
    page.wait_for_selector("[data-testid=rematch-mine]")
    accepted = httpx.post(f"{site}/v1/matches/{match_id}/rematch", headers=auth(opponent))
    assert accepted.status_code == 200, accepted.text
    new_match = accepted.json()["match_id"]
    assert new_match and new_match != match_id
    opened = f"#/match/{new_match}"
    run_until(page, lambda: page.evaluate("location.hash") == opened, SHOWN_WITHIN_MS)
    assert page.evaluate("location.hash") == opened
    assert troubles.seen == [], troubles.seen


OFFER = "[data-testid=rematch-offer]"


def next_ask_held(page: Page) -> list[tuple[Route, APIResponse]]:  # noqa: F811
    """The page's next ask of the challenges (16 s of its time on), read from the server
    at once and held: ``answer_late`` answers it, with what the server said then."""
    held: list[tuple[Route, APIResponse]] = []

    def read_now_answer_later(route: Route) -> None:
        held.append((route, route.fetch()))

    page.route("**/v1/challenges", read_now_answer_later)
    page.clock.run_for(16_000)
    run_until(page, lambda: bool(held), SHOWN_WITHIN_MS)
    assert held, "the page asks now and then"
    return held


def answer_late(page: Page, held: list[tuple[Route, APIResponse]], offers_shown: int) -> None:  # noqa: F811
    """Answer the held asks, then give the page time to do wrong, showing other than
    ``offers_shown`` offers (a request's answer, not a timer: it needs no clock; a fixed
    500 ms passed unseen on a loaded machine, before the page had read the answer)."""
    for route, answer in held:
        with page.expect_request_finished():
            route.fulfill(response=answer)
    run_until(page, lambda: page.locator(OFFER).count() != offers_shown, 2000)
    page.unroute("**/v1/challenges")


def test_an_answer_read_before_the_offer_was_withdrawn_does_not_bring_it_back(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The page still asks now and then (GET /v1/challenges): an answer read while the
    offer was open, arriving after the stream said it was withdrawn, showed it again
    until the next ask, 15 s on."""
    opponent, match_id, troubles = over_with_timers_stopped(page, site, ("Ria Live", "Sam Live"))
    offered = httpx.post(f"{site}/v1/matches/{match_id}/rematch", headers=auth(opponent))
    assert offered.status_code == 200, offered.text
    page.wait_for_selector(OFFER, timeout=SHOWN_WITHIN_MS)
    held = next_ask_held(page)
    assert any(
        c["table_id"] == offered.json()["table_id"] for c in held[0][1].json()["challenges"]
    ), "the answer held was read while the offer was open"
    cancelled = httpx.post(
        f"{site}/v1/challenges/{offered.json()['table_id']}/cancel", headers=auth(opponent)
    )
    assert cancelled.status_code == 200, cancelled.text
    page.wait_for_selector(OFFER, state="detached", timeout=SHOWN_WITHIN_MS)
    answer_late(page, held, offers_shown=0)
    assert page.locator(OFFER).count() == 0
    assert troubles.seen == [], troubles.seen


def test_an_answer_read_before_the_offer_came_does_not_take_it_away(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The mirror of the test above: an answer read before the opponent offered, arriving
    after the stream showed the offer, took it away again until the next ask, 15 s on."""
    opponent, match_id, troubles = over_with_timers_stopped(page, site, ("Tia Live", "Uma Live"))
    held = next_ask_held(page)
    assert not [c for c in held[0][1].json()["challenges"] if c.get("rematch_of") == match_id], (
        "the answer held was read before the offer"
    )
    offered = httpx.post(f"{site}/v1/matches/{match_id}/rematch", headers=auth(opponent))
    assert offered.status_code == 200, offered.text
    page.wait_for_selector(OFFER, timeout=SHOWN_WITHIN_MS)
    answer_late(page, held, offers_shown=1)
    assert page.locator(OFFER).count() == 1
    assert troubles.seen == [], troubles.seen


def streams_of(page: Page) -> list[WebSocket]:  # noqa: F811
    """The page's player streams, in the order it opens them."""
    opened: list[WebSocket] = []
    page.on("websocket", lambda ws: opened.append(ws) if ws.url.endswith("/v1/me/live") else None)
    return opened


def asks_of(page: Page) -> list[str]:  # noqa: F811
    """The page's reads of the challenges (the rematch watch's asks, among others)."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/v1/challenges") else None)
    return asked


def test_the_stream_is_held_only_while_the_tab_is_shown_and_asked_for_again_once_dropped(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """An open player stream counts as present in the player's other matches: a hidden tab
    closes it, and the tab shown again follows anew. One that drops is made up for at once
    (an ask, and a new stream), not at the 15 s pace the stream allowed."""
    page.add_init_script(HIDDEN_TAB)
    routes: list[WebSocketRoute] = []

    def through(route: WebSocketRoute) -> None:
        routes.append(route)
        route.connect_to_server()

    page.route_web_socket("**/v1/me/live", through)
    streams = streams_of(page)
    asked = asks_of(page)
    over_with_timers_stopped(page, site, ("Xia Live", "Uri Live"))
    assert len(streams) == 1 and not streams[0].is_closed()

    page.evaluate(HIDE)
    run_until(page, streams[0].is_closed, SHOWN_WITHIN_MS)
    assert streams[0].is_closed(), "a hidden tab holds no stream"
    page.evaluate(SHOW)
    page.clock.run_for(100)  # shown again, the page asks at once, and follows again
    run_until(page, lambda: len(streams) == 2, SHOWN_WITHIN_MS)
    assert len(streams) == 2 and not streams[1].is_closed()

    run_until(page, lambda: len(routes) == 2, SHOWN_WITHIN_MS)
    before = len(asked)
    routes[1].close(code=1001, reason="dropped by the test")  # as a proxy's restart
    for _ in range(20):  # at most 1 s of the page's time: its next planned ask is 15 s on
        if len(asked) > before and len(streams) == 3:
            break
        page.clock.run_for(50)
        page.wait_for_timeout(50)
    assert len(asked) > before, "a dropped stream is made up for by an ask at once"
    assert len(streams) == 3, "and followed again"
    page.evaluate("location.hash = '#/history'")  # the finished match is left
    run_until(page, streams[2].is_closed, SHOWN_WITHIN_MS)
    assert streams[2].is_closed(), "leaving the match, the page closes its stream"


def test_a_stream_the_server_refuses_is_not_asked_for_again(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Refused (4401, 4429, 4503), it would be refused again: the page asks every 2 s
    instead, as without a stream, and opens no other."""
    page.add_init_script(HIDDEN_TAB)
    refuse = threading.Event()
    routed: list[WebSocketRoute] = []  # a socket refused here is no page "websocket" event

    def route(socket: WebSocketRoute) -> None:
        routed.append(socket)
        if refuse.is_set():
            socket.close(code=4503, reason="store_unavailable")
        else:
            socket.connect_to_server()

    page.route_web_socket("**/v1/me/live", route)
    asked = asks_of(page)
    over_with_timers_stopped(page, site, ("Val Live", "Wim Live"))
    refuse.set()
    page.evaluate(HIDE)  # the stream closes; shown again, the next one is refused
    page.evaluate(SHOW)
    page.clock.run_for(100)
    run_until(page, lambda: len(routed) == 2, SHOWN_WITHIN_MS)
    assert len(routed) == 2, "shown again, the page follows again (and is refused)"
    before = len(asked)
    for _ in range(40):  # 10 s of the page's time, each step's asks answered
        page.clock.run_for(250)
        page.wait_for_timeout(20)
    assert len(routed) == 2, "a refused stream is not asked for again"
    assert len(asked) - before >= 3, "the page asks every 2 s instead of every 15 s"
