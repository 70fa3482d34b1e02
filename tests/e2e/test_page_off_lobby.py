"""What the page keeps asking once the player has left the lobby, or a match is over.

The player stream (WS /v1/me/live) counts as presence in every match of the player, so
an opponent could not claim a match by absence from someone whose page merely kept it
open: off the lobby it stays open only while a table or challenge of the player waits,
and closes once nothing does (looked at on each closed challenge, and every 30 s for a
table closed elsewhere, which sends no frame). At a match's end the rematch offer is
asked for every 2 s (among the open challenges), but never of the house AI (it offers
none) and never by a tab nobody looks at. Real server, real headless Chromium; the
sockets and requests are the browser's own, as Playwright sees them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Request, WebSocket

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    checked_tab,
    page,
    pass_page_time,
    restartable_site,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_claim import start_and_resign
from tests.e2e.test_page_lobby import enter_lobby, seated
from tests.e2e.test_page_rematch_live import player_streams_refused_once_set
from tests.e2e.test_page_socketless import REFUSED_SOCKETS

STREAM = "/v1/me/live"


class Streams:
    """The page's player-stream sockets, and which of them are closed."""

    def __init__(self, page: Page) -> None:  # noqa: F811
        self.sockets: list[WebSocket] = []
        self.closed: list[WebSocket] = []
        page.on("websocket", self.opened)

    def opened(self, socket: WebSocket) -> None:
        if STREAM in socket.url:
            self.sockets.append(socket)
            socket.on("close", lambda ws: self.closed.append(ws))

    def open(self) -> int:
        return len([s for s in self.sockets if s not in self.closed])

    def until_closed(self, page: Page) -> None:  # noqa: F811
        """Wait (a while) until no stream is open."""
        for _ in range(TIMEOUT_MS // 100):
            if not self.open():
                return
            page.wait_for_timeout(100)


def api_player(site: str, name: str) -> httpx.Client:  # noqa: F811
    created = httpx.post(f"{site}/v1/players", json={"name": name}).json()
    return httpx.Client(base_url=site, headers={"Authorization": f"Bearer {created['token']}"})


def leave_the_lobby(page: Page) -> None:  # noqa: F811
    page.click("#nav-history")
    page.wait_for_selector("body[data-screen=history]")


@pytest.fixture
def clocked(browser: Browser) -> Iterator[Page]:  # noqa: F811
    """A page whose timers Playwright's clock runs (``page.clock.run_for``,
    ``pass_page_time``): the page's waits pass at once, not sat out."""
    with checked_tab(browser, clock=True) as tab:
        yield tab


def test_off_the_lobby_the_stream_closes_when_the_last_challenge_closes(
    site: str,  # noqa: F811
    clocked: Page,
) -> None:
    page = clocked  # noqa: F811
    streams = Streams(page)
    bo = api_player(site, "Bo Declines")
    enter_lobby(page, site, "Ann Challenges")
    page.fill("[data-testid=find-name]", "Bo Declines")
    page.click("[data-testid=find]")
    page.click("[data-testid=found] li:has-text('Bo Declines') [data-testid=challenge]")
    page.wait_for_selector("[data-testid=sent-challenge]")
    wait_until(page, "document.body.dataset.screen === 'lobby'")
    assert streams.open() == 1
    leave_the_lobby(page)
    pass_page_time(page, 1500)
    assert streams.open() == 1, "a challenge waits: the stream stays open off the lobby"

    (challenge,) = bo.get("/v1/challenges").json()["challenges"]
    assert bo.post(f"/v1/challenges/{challenge['table_id']}/decline").status_code == 200
    streams.until_closed(page)
    assert streams.open() == 0, "nothing waits any more: the stream must close off the lobby"
    bo.close()


def test_off_the_lobby_the_stream_closes_within_30_s_of_a_table_closed_elsewhere(
    site: str,  # noqa: F811
    clocked: Page,
) -> None:
    streams = Streams(clocked)
    enter_lobby(clocked, site, "Cid Cancels Elsewhere")
    clocked.click("[data-testid=open-table]")
    row = clocked.wait_for_selector("[data-testid=my-table]")
    table_id = row.get_attribute("data-table")  # type: ignore[union-attr]
    leave_the_lobby(clocked)
    clocked.clock.run_for(31_000)
    clocked.wait_for_timeout(500)
    assert streams.open() == 1, "its table waits: the stream stays open off the lobby"

    # Cancelled in another browser: no frame says so; the next look (30 s) sees it.
    token = json.loads(clocked.evaluate("localStorage.getItem('ginrummy.player')"))["token"]
    cancelled = httpx.post(
        f"{site}/v1/tables/{table_id}/cancel", headers={"Authorization": f"Bearer {token}"}
    )
    assert cancelled.status_code == 200, cancelled.text
    clocked.clock.run_for(10_000)
    clocked.wait_for_timeout(500)
    assert streams.open() == 1, "not looked at yet"
    clocked.clock.run_for(21_000)
    streams.until_closed(clocked)
    assert streams.open() == 0, "nothing waits any more: the stream must close off the lobby"


def test_the_rematch_offer_is_not_asked_of_the_house_ai_nor_by_a_hidden_tab(
    site: str,  # noqa: F811
    clocked: Page,
) -> None:
    """Its waits are the page's time, passed at once (``pass_page_time``). Against a
    person, with the player stream refused: the page then asks every 2 s (the stream
    says an offer at once: test_page_rematch_live.py)."""
    dee = clocked
    refuse_stream = player_streams_refused_once_set(dee)
    asked: list[str] = []

    def note(request: Request) -> None:
        # the opponent's offer is looked for among the open challenges (GET …/rematch,
        # asked before, is a 404 until one is offered: a console error each time)
        if request.url.endswith(("/rematch", "/v1/challenges")):
            asked.append(request.url)

    dee.on("request", note)
    sockets: list[str] = []
    dee.on("websocket", lambda socket: sockets.append(socket.url))
    start_and_resign(dee, site, "Dee Resigns")
    asked.clear()
    pass_page_time(dee, 4500)  # two of the page's 2 s polls
    # The challenges for the player are read every 15 s off the lobby too
    # (challengenotice.js): once at most in these 4.5 s, where a 2 s poll reads twice.
    assert len(asked) <= 1, "the house AI offers no rematch: nothing to ask for"
    assert not [url for url in sockets if url.endswith("/v1/me/live")], "nor to follow"

    # Against a person the page asks; hidden, it stops; looked at again, it asks again.
    eve = api_player(site, "Eve Waits")
    dee.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    dee.click("[data-testid=open-table]")
    row = dee.wait_for_selector("[data-testid=my-table]")
    table_id = row.get_attribute("data-table")  # type: ignore[union-attr]
    assert eve.post(f"/v1/tables/{table_id}/join", json={}).status_code == 200
    seated(dee)
    refuse_stream.set()
    dee.click("[data-testid=resign]")
    dee.click("[data-testid=resign-confirm]")
    dee.wait_for_selector("body[data-phase=match_over]")
    asked.clear()  # the lobby's own reads of the challenges, before the match
    # Two reads at least: the challenge notice (challengenotice.js) reads the same list,
    # but once in 15 s; only the rematch poll reads it twice in 10 s. Its first read goes
    # as the match ends, often before the clear above, and each next one 2 s after an
    # answer: 4.5 s left room for two answers of 0.25 s, too little on a loaded machine
    # (the page's time passes a step at a time, each step's answers awaited).
    pass_page_time(dee, 10_000, lambda: len(asked) >= 2)
    assert len(asked) >= 2, "against a person the page asks for the opponent's rematch offer"
    dee.evaluate(HIDE)
    pass_page_time(dee, 2500)  # a poll already on its way may still land
    before = len(asked)
    pass_page_time(dee, 4500)
    assert len(asked) == before, "a tab nobody looks at asks nothing"
    dee.evaluate(SHOW)
    # Shown again, the notice reads at once too: the rematch poll's own reads make two.
    pass_page_time(dee, 4500, lambda: len(asked) >= before + 2)
    assert len(asked) >= before + 2, "looked at again, the page asks again"
    eve.close()
    # the page signs its sockets in with a first message: no token in a URL a proxy logs
    assert sockets and not [url for url in sockets if "token" in url], sockets


# The page is hidden (another tab in front) or shown again, as the browser tells it.
HIDE = """() => {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
  document.dispatchEvent(new Event('visibilitychange'));
}"""
SHOW = """() => {
  delete document.hidden;
  delete document.visibilityState;
  document.dispatchEvent(new Event('visibilitychange'));
}"""


def test_a_table_taken_and_over_while_the_stream_was_down_is_told_not_opened(
    site: str,  # noqa: F811
    clocked: Page,
) -> None:
    """Back in the lobby, the host's read no longer lists its table and looks it up: a
    match started from it was opened, even one that had ended while the host was away
    (its socket refused, so nothing said it started), which took the host from the
    lobby it had just chosen to a finished table. Now the lobby stays and says so."""
    page = clocked  # noqa: F811
    page.add_init_script(REFUSED_SOCKETS)
    enter_lobby(page, site, "Hal Away")
    page.click("[data-testid=open-table]")
    row = page.wait_for_selector("[data-testid=my-table]")
    table_id = row.get_attribute("data-table")  # type: ignore[union-attr]
    leave_the_lobby(page)

    with api_player(site, "Ida Quick") as ida:
        joined = ida.post(f"/v1/tables/{table_id}/join", json={"client_seed": "ab" * 16})
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        resigned = ida.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
        assert resigned.status_code == 200, resigned.text

    page.click("#nav-lobby")
    page.wait_for_selector("body[data-screen=lobby]")
    link = page.wait_for_selector("#toast:not([hidden]) [data-testid=ended-link]")
    assert link.get_attribute("href") == f"#/match/{match_id}"  # type: ignore[union-attr]
    assert "that match is over" in page.inner_text("#toast")
    pass_page_time(page, 6000)  # a later read of the lobby opens nothing either
    assert page.get_attribute("body", "data-screen") == "lobby", page.url
    assert match_id not in page.url


def test_a_host_off_the_lobby_is_taken_to_the_match_after_its_server_restarts(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    """From a QA of two people on two server processes: the host's server was killed and
    started again while the host looked at History, its table waiting; the player stream
    dropped with it and nothing opened it again, so when the guest sat down (on the other
    process) the host stayed on History for good while the match's clock ran."""
    with restartable_site(browser, tmp_path) as served:
        base, tab = served.base, served.page
        enter_lobby(tab, base, "Hana Waits")
        tab.click("[data-testid=open-table]")
        row = tab.wait_for_selector("[data-testid=my-table]")
        table_id = row.get_attribute("data-table")  # type: ignore[union-attr]
        leave_the_lobby(tab)
        served.stop()
        served.start()
        with api_player(base, "Ivo Joins") as ivo:
            joined = ivo.post(f"/v1/tables/{table_id}/join", json={})
            assert joined.status_code == 200, joined.text
            match_id = joined.json()["match"]["match_id"]
        tab.wait_for_selector("body[data-screen=table]")  # at once; the match is read after
        wait_until(tab, f"localStorage.getItem('ginrummy.match') === {json.dumps(match_id)}")


def test_a_cancel_refused_as_started_says_the_match_started_once(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A host whose table was taken while nothing told it (its sockets refused) presses
    Cancel: the refusal, ``table_started``, is said in the toast as its title and detail,
    and the detail repeated the title ("The table's match has started: its match has
    started: ..."). It now says it once, and what to do instead."""
    page.add_init_script(REFUSED_SOCKETS)
    enter_lobby(page, site, "Kai Late")
    page.click("[data-testid=open-table]")
    row = page.wait_for_selector("[data-testid=my-table]")
    table_id = row.get_attribute("data-table")  # type: ignore[union-attr]
    # Hidden, the lobby reads nothing that could drop the row before Cancel is pressed;
    # and its look-up of the table, after the refusal, finds nothing to open.
    page.evaluate(HIDE)
    page.route(f"**/v1/tables/{table_id}", lambda route: route.abort())
    page.wait_for_timeout(500)  # a read already on its way lands, the table still listed
    with api_player(site, "Lia First") as lia:
        joined = lia.post(f"/v1/tables/{table_id}/join", json={"client_seed": "ab" * 16})
        assert joined.status_code == 200, joined.text
    page.click("[data-testid=my-table] [data-testid=cancel-table]")
    page.wait_for_selector("#toast:not([hidden])")
    told = page.inner_text("#toast")
    assert "resign the match" in told, told
    assert told.lower().count("started") == 1, told
