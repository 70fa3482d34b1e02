"""The page follows an opponent who leaves on their turn and comes back, as the server
sees it: told at once, on this process (the socket once waited for its next look at the
presence rows, a quarter of the grace: Claim stayed offered for 18 s after the opponent
was back, and was refused with the server's rule text). While the opponent is away and a
claim is not yet accepted, the page says so and from when it will be (it once showed
only "Ada to play…" for the whole grace). Real server, real headless Chromium.

The grace here is 40 s, so the server looks at presence every 10 s on its own: an answer
within a few seconds can only come from being told of the socket opening or closing.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, WebSocket

from server.claim_watch import leave_settle_ms
from tests.e2e.test_page import DELAY_MS, TIMEOUT_MS, browser, served_site, stored  # noqa: F401
from tests.e2e.test_page_a11y import LIVE_RECORDER, said
from tests.e2e.test_page_claim import meet_at_a_table
from tests.e2e.test_page_lobby import pages  # noqa: F401  (fixture)

GRACE_S = 40
PROMPT_S = 3.0  # page load and socket included; the server's own look would take 10 s
# a socket that closes may be back at once: its leaving is told a little later
AWAY_S = leave_settle_ms(GRACE_S * 1000) / 1000 + 2

PRESENCE = ("opponent_away", "opponent_back", "claimable")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("claim-presence")
    with served_site(folder, GINRUMMY_ABSENCE_GRACE_S=str(GRACE_S)) as url:
        yield url


def count_presence_frames(tab: Page) -> Counter[str]:
    """The presence frames the page's match sockets receive from now on, by type (its
    player stream, ``/v1/me/live``, says them too, for a bot: not counted here)."""
    heard: Counter[str] = Counter()

    def on_socket(socket: WebSocket) -> None:
        if "/v1/matches/" not in socket.url:
            return

        def received(payload: str | bytes) -> None:
            kind = json.loads(payload).get("type")
            if kind in PRESENCE:
                heard[kind] += 1

        socket.on("framereceived", received)

    tab.on("websocket", on_socket)
    return heard


SOCKET_OPEN = """async () => {
  const { game } = await import('/js/matchstate.js');
  while (!(game.feed && game.feed.open)) await new Promise((done) => setTimeout(done, 50));
}"""


def until_opponent_connected(site: str, tab: Page) -> None:
    """Until ``tab``'s match socket is open and the server counts its opponent as there
    (a page closed as its socket opens would leave twice: before it is counted, and as
    it is)."""
    tab.evaluate(SOCKET_OPEN)
    token, match_id = stored(tab)
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        answer = httpx.get(
            f"{site}/v1/matches/{match_id}/claim", headers={"Authorization": f"Bearer {token}"}
        )
        if answer.json()["opponent_connected"]:
            return
        time.sleep(0.1)
    raise AssertionError("the opponent never connected")


def timed(action: Callable[[], object]) -> float:
    start = time.monotonic()
    action()
    return time.monotonic() - start


def test_the_page_says_at_once_that_the_opponent_left_and_came_back(
    site: str,
    browser: Browser,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    first, second, _ = pages
    for tab in (first, second):
        tab.add_init_script(LIVE_RECORDER)
    heard = {tab: count_presence_frames(tab) for tab in (first, second)}

    leaver, stayer = meet_at_a_table(first, second, site, ("Ada", "Bob"))
    leaver_player = leaver.evaluate("localStorage.getItem('ginrummy.player')")
    name = json.loads(leaver_player)["name"]
    match_id = stayer.evaluate("localStorage.getItem('ginrummy.match')")
    until_opponent_connected(site, stayer)
    assert stayer.query_selector("[data-testid=away-notice]") is None  # there: not away

    def leave() -> None:
        leaver.context.close()
        stayer.wait_for_selector("[data-testid=away-notice]", timeout=AWAY_S * 1000)

    # Left: said soon, calmly, with the local time from which a claim is accepted.
    away_after = timed(leave)
    note = stayer.inner_text("[data-testid=away-notice]")
    assert note.startswith(f"{name} seems to have left the table."), note
    assert "you may claim the match from" in note, note
    assert stayer.query_selector("[data-testid=claim]") is None  # not before the grace
    assert stayer.get_attribute("[data-testid=away-notice]", "role") is None
    stayer.wait_for_timeout(1500)  # redrawn meanwhile (the clock line): said only once
    assert len([t for _, t in said(stayer) if "seems to have left" in t]) == 1, said(stayer)

    # Back (a new tab of the same player): the note goes at once, and a screen reader is told.
    context = browser.new_context(viewport={"width": 1000, "height": 860})
    try:
        back = context.new_page()
        back.set_default_timeout(TIMEOUT_MS)
        back.goto(f"{site}/")
        back.evaluate("p => localStorage.setItem('ginrummy.player', p)", leaver_player)

        def come_back() -> None:
            back.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
            stayer.wait_for_selector(
                "[data-testid=away-notice]", state="detached", timeout=PROMPT_S * 1000
            )

        back_after = timed(come_back)
        assert [t for _, t in said(stayer) if "is back" in t] == [
            f"{name} is back: the match goes on."
        ]
        print(f"away told after {away_after:.2f} s, back after {back_after:.2f} s")
        stayer.wait_for_timeout(1500)  # anything said twice would have come by now
        assert heard[stayer] == {"opponent_away": 1, "opponent_back": 1}, heard[stayer]
    finally:
        context.close()


def test_a_claim_refused_as_too_early_takes_the_offer_back(
    site: str,
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """Offered on an older word (here one the socket never took back: as when the opponent
    came back on another server process, told at its next look), the claim is
    refused: the page asks the server where things stand, drops the offer, and says in
    plain words that the opponent is there, not the server's rule text."""
    first, second, _ = pages
    present, stayer = meet_at_a_table(first, second, site, ("Cy", "Di"))
    until_opponent_connected(site, stayer)
    name = json.loads(present.evaluate("localStorage.getItem('ginrummy.player')"))["name"]
    stayer.evaluate(
        """async () => {
          const { game } = await import('/js/matchstate.js');
          const { presenceFrame } = await import('/js/claimwatch.js');
          presenceFrame({ type: 'claimable', match_id: game.open.id, version: game.view.version,
                          now_ms: Date.now(), reason: 'absence' });
        }"""
    )
    stayer.click("[data-testid=claim]")
    stayer.wait_for_selector("[data-testid=claim]", state="detached")
    toast = stayer.inner_text("#toast")
    assert toast == f"{name} is back: the match goes on.", toast
    assert stayer.get_attribute("body", "data-phase") != "match_over"
