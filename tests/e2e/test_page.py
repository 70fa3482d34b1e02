"""The web page at `/`, driven in Debian's headless Chromium against a real server.

A server subprocess runs on a free port with a throwaway SQLite database; Playwright
drives the system browser (`scripts/install-browser.sh` installs it; nothing is
downloaded). The tests play a whole hand by clicking the page, check what the page
shows against the API's view for the same token, and step through a replay.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Request,
    WebSocketRoute,
    sync_playwright,
)

from domain.rules import PRESETS
from tests.e2e.harness import SITE_LOGS, accepting, answers_ok, as_action

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The committed screenshots are rewritten only on request (UPDATE_SCREENSHOTS=1), so a
# plain test run leaves the work tree clean; otherwise they go to a temporary folder.
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# The page's pause before each AI move, shortened so a hand plays in seconds.
DELAY_MS = 40
TIMEOUT_MS = 20_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_site(port: int, db: Path, log: Path, **settings: str) -> subprocess.Popen[bytes]:
    """`ginrummy serve` on 127.0.0.1:``port`` with the SQLite file ``db``, once it answers;
    ``settings``: more of its environment (``GINRUMMY_…``)."""
    env = {**os.environ, "GINRUMMY_DATABASE_URL": f"sqlite+aiosqlite:///{db}", **settings}
    command = [
        str(Path(sys.executable).parent / "ginrummy"),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        listening = accepting(port)  # cheap, so asked often; the GET only once it listens
        if listening and answers_ok(port, "/healthz", timeout=2):
            return process
        if process.poll() is not None or time.monotonic() > deadline:
            stop_site(process)
            raise RuntimeError(f"server did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2 if listening else 0.02)


def stop_site(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def served_site(folder: Path, **settings: str) -> Iterator[str]:
    """A server with its own SQLite file in ``folder`` (and ``settings``), for a module's
    tests; its base URL, stopped on the way out."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = start_site(port, folder / "page.db", folder / "server.log", **settings)
    SITE_LOGS[url] = folder / "server.log"
    try:
        yield url
    finally:
        SITE_LOGS.pop(url, None)
        stop_site(process)


class RestartableSite:
    """A server on a port of its own that a test stops and starts again (same port, same
    SQLite file), with one browser tab: what every restart test sets up."""

    def __init__(self, folder: Path, context: BrowserContext) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.folder = folder
        self.process = start_site(self.port, folder / "page.db", folder / "server.log")
        self.page = context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)

    def stop(self) -> None:
        stop_site(self.process)

    def start(self) -> None:
        """Again, on the same port and file, once it answers."""
        self.process = start_site(self.port, self.folder / "page.db", self.folder / "server.log")


@contextlib.contextmanager
def restartable_site(browser: Browser, folder: Path) -> Iterator[RestartableSite]:
    context = browser.new_context(viewport={"width": 1000, "height": 860})
    site: RestartableSite | None = None
    try:
        site = RestartableSite(folder, context)
        yield site
    finally:
        context.close()
        if site is not None:
            site.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`ginrummy serve` on 127.0.0.1 with its own SQLite file; yields the base URL."""
    with served_site(tmp_path_factory.mktemp("page")) as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("UPDATE_SCREENSHOTS"):
        return DOCS_SCREENSHOTS
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


DESKTOP = {"width": 1000, "height": 860}


@contextlib.contextmanager
def checked_tab(
    browser: Browser, viewport: dict[str, int] = DESKTOP, clock: bool = False
) -> Iterator[Page]:
    """A tab in a browser context of its own, whose JavaScript errors and content policy
    refusals fail the test once it is done; ``clock``: its timers run by Playwright's
    clock (``page.clock.run_for``)."""
    context = browser.new_context(viewport=viewport)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda message: errors.extend(refused_by_policy(message.text)))
    tab.set_default_timeout(TIMEOUT_MS)
    if clock:
        tab.clock.install()
    try:
        yield tab
    finally:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with checked_tab(browser) as tab:
        yield tab


def wait_until(page: Page, expression: str, timeout: float | None = None) -> None:
    """Wait until the JavaScript ``expression`` is true. Playwright evaluates a bare
    expression with ``eval``, which the page's content security policy forbids; a
    function it calls directly."""
    page.wait_for_function(f"() => ({expression})", timeout=timeout)


def run_until(page: Page, done: Callable[[], bool], timeout_ms: int) -> None:
    """Let the page run until ``done()`` holds or ``timeout_ms`` have passed, whichever
    comes first (the test's assertion follows: the wait does not assert). A request or
    console handler only runs while the page waits, so this waits in short steps, where
    a fixed wait sat out its whole time after ``done()`` held."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not done() and time.monotonic() < deadline:
        page.wait_for_timeout(50)


def pass_page_time(
    page: Page, ms: int, done: Callable[[], bool] = lambda: False, step_ms: int = 250
) -> None:
    """On a tab whose timers Playwright's clock runs (``checked_tab(clock=True)``), let
    ``ms`` of the page's time pass (or less, once ``done()`` holds), without sitting it
    out: the clock is moved on ``step_ms`` at a time, and after each step the requests
    the page sent are let finish before the next. So every timer of the page fires, in
    order, as in ``ms`` of real time, and each request's answer arrives before the page's
    time moves on (as if the server answered at once): a poll planned after an answer
    is planned, and fires, within the ``ms`` too. The server is real, and so is its time.
    The test's assertion follows: this waits, it does not assert."""
    in_flight: set[Request] = set()

    def started(request: Request) -> None:
        in_flight.add(request)

    def ended(request: Request) -> None:
        in_flight.discard(request)

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    try:
        for passed in range(0, ms, step_ms):
            if done():
                return
            page.clock.run_for(min(step_ms, ms - passed))
            _answered(page, in_flight)
        _answered(page, in_flight)
    finally:
        page.remove_listener("request", started)
        page.remove_listener("requestfinished", ended)
        page.remove_listener("requestfailed", ended)


def _answered(page: Page, in_flight: set[Request]) -> None:
    """Wait until no request the page sent is unanswered (a request is told to the test
    some milliseconds after the timer that sent it fired, hence the first wait)."""
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    page.wait_for_timeout(30)
    while in_flight:
        assert time.monotonic() < deadline, f"unanswered: {[r.url for r in in_flight]}"
        page.wait_for_timeout(20)


def refused_by_policy(console_text: str) -> list[str]:
    """What the page's content security policy refused (Chromium says so on the console):
    the page must need nothing it forbids."""
    return [console_text] if "Content Security Policy" in console_text else []


def api_view(base: str, token: str, match_id: str) -> dict[str, Any]:
    answer = httpx.get(
        f"{base}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
    )
    answer.raise_for_status()
    view: dict[str, Any] = answer.json()["view"]
    return view


def set_prefs(page: Page, **prefs: Any) -> None:
    """Set some of the page's preferences (prefs.js), keeping the others, as the page does."""
    page.evaluate(
        "prefs => localStorage.setItem('ginrummy.prefs', JSON.stringify("
        "{...JSON.parse(localStorage.getItem('ginrummy.prefs') || '{}'), ...prefs}))",
        prefs,
    )


def hints_on(page: Page) -> None:
    """Switch the page's hints on (they are off by default), as the tick box would."""
    set_prefs(page, hints=True)


def tour_dismissed(page: Page) -> None:
    """As if this browser had closed the first-match tour (tour.js keeps ``tourSeen``)."""
    set_prefs(page, tourSeen=True)


def screenshot(page: Page, path: Path, full_page: bool = False) -> None:
    """A picture for docs/screenshots: of the page itself, never under the tour's overlay."""
    assert page.locator("[data-testid=tour]").count() == 0, f"the tour covers {path.name}"
    page.screenshot(path=str(path), full_page=full_page, animations="disabled")


def stored(page: Page) -> tuple[str, str]:
    """The token and current match the page keeps in localStorage."""
    player = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))
    match_id = page.evaluate("localStorage.getItem('ginrummy.match')")
    return player["token"], match_id


def settle(page: Page) -> None:
    """Wait until no request is in flight and every queued AI move has been shown."""
    page.wait_for_selector("body[data-busy=false]", state="attached")


def shown_hand(page: Page) -> list[str]:
    return page.eval_on_selector_all("#hand [data-card]", "els => els.map(e => e.dataset.card)")


# The page's own buttons, most decisive first: the test never decides what is legal.
PREFERENCE = [
    "gin",
    "big-gin",
    "knock",
    "layoff-best",
    "finish-layoffs",
    "next-hand",
    "pass",
    "draw-stock",
    "discard",
]


# Some actions are taken with their keyboard shortcut, so the keys are exercised too.
KEYS = {"draw-stock": "s", "pass": "x"}


def click_next_legal_action(page: Page, allow_knock: bool = True) -> str:
    discard = page.query_selector("#actions [data-testid=discard]")
    if discard is not None and discard.is_disabled():
        # No card chosen yet (hints off, or no hint sent): the buttons name no card ("Knock
        # with " read as cut off); choose one, as a player would.
        labels = page.eval_on_selector_all(
            "#actions :is([data-testid=discard], [data-testid=knock], [data-testid=gin])",
            "buttons => buttons.map((b) => b.firstChild.textContent)",
        )
        if page.query_selector("#hand .card.selected") is None:
            assert labels == ["Discard", "Knock", "Gin"], labels
        page.click("#hand .card.playable")
    for testid in PREFERENCE:
        if not allow_knock and testid in ("gin", "big-gin", "knock"):
            continue
        button = page.query_selector(f"#actions [data-testid={testid}]:not([disabled])")
        if button is not None:
            if testid in KEYS:
                page.keyboard.press(KEYS[testid])
            else:
                button.click()
            if (
                testid == "discard"
                and page.locator("#actions [data-testid=discard]:has-text('Really')").count()
            ):
                page.click("#actions [data-testid=discard]")  # a knock given up is asked about once
            return testid
    raise AssertionError(f"no enabled action on my turn: {page.inner_text('#actions')!r}")


# Records every state the table shows, to see the AI's moves shown one at a time.
RECORD_STATES = """
window.__shown = [];
document.addEventListener('DOMContentLoaded', () => {
  new MutationObserver(() => {
    const d = document.body.dataset;
    const entry = `${d.version}:${d.phase}:${d.myTurn}`;
    if (window.__shown[window.__shown.length - 1] !== entry) window.__shown.push(entry);
  }).observe(document.body, { attributes: true });
});
"""


def test_a_whole_hand_is_played_from_the_page(site: str, page: Page, shots: Path) -> None:
    page.add_init_script(RECORD_STATES)
    page.goto(f"{site}/?delay={DELAY_MS}")
    hints_on(page)  # this hand plays the engine's suggestions
    tour_dismissed(page)  # the screenshots show the table, not the first-match tour
    page.fill("#name", "Ada")
    page.select_option("#level", "easy")
    page.select_option("#preset", "arcadia")
    page.check("#hints")  # the engine's best discard is offered only with hints
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    token, match_id = stored(page)
    assert match_id
    assert page.inner_text("[data-testid=preset]") == "Rules: arcadia"

    checked = 0
    my_turns = 0
    for _ in range(400):
        settle(page)
        phase = page.get_attribute("body", "data-phase")
        if phase in ("hand_over", "match_over"):
            break
        # The tab's title says whose turn it is (read with the turn, in one go)
        my_turn, title = page.evaluate("[document.body.dataset.myTurn, document.title]")
        assert title == ("Your turn · " if my_turn == "true" else "") + "Your match · Gin Rummy"
        if my_turn != "true":
            page.wait_for_timeout(50)
            continue
        view = api_view(site, token, match_id)
        assert int(page.get_attribute("body", "data-version") or -1) == view["version"]
        assert sorted(shown_hand(page)) == sorted(view["hand"])
        deadwood = page.inner_text("[data-testid=deadwood]")
        assert int(deadwood) == view["arrangement"]["deadwood_points"]
        assert int(page.inner_text("[data-testid=stock-count]")) == view["stock_size"]
        checked += 1
        if phase == "discard":
            my_turns += 1
            chosen = page.query_selector("#hand .card.selected")
            if view["best_discard"]:  # hints on in the page, and sent by the server
                assert chosen is not None, "the engine's best discard is offered"
                assert chosen.get_attribute("data-card") == view["best_discard"][0]
            else:  # a match dealt without hints: nothing is chosen, the player chooses
                assert chosen is None
                page.click("#hand .card.playable")
            selected = page.get_attribute("#hand .card.selected", "data-card")
            if my_turns == 3:
                page.click(".log-box summary")  # show the hand's moves in the picture
                screenshot(page, shots / "table-mid-hand.png")
            if my_turns in (1, 2):
                if my_turns == 1:  # drag the chosen card onto the pile
                    discarded = selected
                    page.drag_and_drop(f"#hand [data-card='{selected}']", "[data-testid=pile]")
                else:  # choose another card with the arrow keys, discard it with D
                    page.keyboard.press("ArrowRight")
                    discarded = page.get_attribute("#hand .card.selected", "data-card")
                    assert discarded != selected
                    page.keyboard.press("d")
                    # A discard that gives up a knock with that card is asked about once.
                    if page.locator("[data-testid=discard]:has-text('Really')").count():
                        page.keyboard.press("d")
                settle(page)
                moves = api_view(site, token, match_id)["moves"]
                assert [0, "discard", discarded] in moves
                continue
        # No knock in the first two turns, so the AI surely takes a turn of its own.
        click_next_legal_action(page, allow_knock=my_turns >= 3)
    else:
        raise AssertionError("the hand did not end")

    settle(page)
    view = api_view(site, token, match_id)
    assert view["phase"] in ("hand_over", "match_over")
    # The AI's draw and its discard were shown as two steps: the table was seen while
    # the AI held eleven cards, a state no single HTTP answer ever returns to us.
    shown = page.evaluate("window.__shown")
    assert any(entry.endswith(":discard:false") for entry in shown), shown
    assert checked >= 2
    assert int(page.inner_text("[data-testid=score-me]")) == view["scores"][0]
    assert int(page.inner_text("[data-testid=score-opponent]")) == view["scores"][1]
    result = page.inner_text("[data-testid=hand-result]")
    last = view["last_result"]
    if last["type"] == "hand_scored":
        assert f"= {last['points']}" in page.inner_text("[data-testid=result-sum]")
        assert str(last["knocker_deadwood"]) in result
        assert str(last["defender_deadwood"]) in result
    else:
        assert "washed" in result
    screenshot(page, shots / "hand-end.png", full_page=True)
    # The hand's moves are all listed, from the up-card on.
    assert page.locator("#moves li").count() == len(view["moves"])
    # The next hand is one click (or key) away, and a reload resumes the same match.
    page.reload()
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    assert page.get_attribute("body", "data-version") == str(view["version"])
    if view["phase"] == "hand_over":
        page.keyboard.press("n")
        wait_until(page, f"document.body.dataset.version > {view['version']}")
        settle(page)
        after = api_view(site, token, match_id)
        assert after["hand_number"] == view["hand_number"] + 1
        assert f"hand {after['hand_number']}" in page.inner_text("#scorebar")
        assert sorted(shown_hand(page)) == sorted(after["hand"])
    # Phone width: everything still fits, nothing scrolls sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(100)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, shots / "table-phone.png", full_page=True)
    page.click("#nav-new")
    page.wait_for_selector("body[data-screen=start]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_ais_steps_are_shown_when_the_socket_lags_behind_the_answer(
    site: str, page: Page
) -> None:
    """The answer to our discard carries only the last view; the AI's draw and discard
    between arrive with the socket's frames. Held back until after the answer, they are
    still shown one at a time: before, a busy server's late frames made the page skip
    the AI's steps (a CI failure of the test above)."""
    lag: dict[str, Any] = {"holding": False, "held": [], "route": None}

    def through(route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        lag["route"] = route

        def from_server(message: str | bytes) -> None:
            if lag["holding"]:
                lag["held"].append(message)
            else:
                route.send(message)

        server.on_message(from_server)
        route.on_message(server.send)

    page.route_web_socket("**/live", through)
    page.add_init_script(RECORD_STATES)
    page.goto(f"{site}/?delay={DELAY_MS}")
    tour_dismissed(page)
    page.fill("#name", "Lag")
    page.select_option("#level", "easy")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    for _ in range(200):
        settle(page)
        if page.get_attribute("body", "data-my-turn") != "true":
            page.wait_for_timeout(50)
            continue
        if page.get_attribute("body", "data-phase") == "discard":
            break
        click_next_legal_action(page, allow_knock=False)
    else:
        raise AssertionError("no discard turn came")
    page.evaluate("window.__shown = []")
    lag["holding"] = True
    with page.expect_response(lambda r: r.url.endswith("/actions")):
        assert click_next_legal_action(page, allow_knock=False) == "discard"
    page.wait_for_timeout(200)  # the answer is in; the page has only its last view
    lag["holding"] = False
    assert lag["held"], "no frame was held back"
    for message in lag["held"]:
        lag["route"].send(message)
    settle(page)
    shown = page.evaluate("window.__shown")
    assert any(entry.endswith(":discard:false") for entry in shown), shown


def play_out_by_api(base: str, token: str, match_id: str) -> dict[str, Any]:
    """Play the human seat through the API until the match is settled (simple, legal moves)."""
    headers = {"Authorization": f"Bearer {token}"}
    view = api_view(base, token, match_id)
    for _ in range(2000):
        if view["phase"] == "match_over":
            return view
        legal = view["legal"]
        if not legal:
            view = api_view(base, token, match_id)
            continue
        by_type = {cmd["type"]: cmd for cmd in legal}
        best = view["best_discard"][0] if view["best_discard"] else None
        knocks = [c for c in legal if c["type"] in ("gin", "knock") and c["card"] == best]
        for choice in (
            by_type.get("big_gin"),
            knocks[0] if knocks else None,
            next((c for c in legal if c["type"] == "discard" and c["card"] == best), None),
            by_type.get("pass_up_card"),
            by_type.get("draw_stock"),
            by_type.get("finish_layoffs"),
            by_type.get("next_hand"),
            legal[0],
        ):
            if choice is not None:
                break
        action = {k: v for k, v in choice.items() if k != "seat"}
        answer = httpx.post(
            f"{base}/v1/matches/{match_id}/actions", json={"action": action}, headers=headers
        )
        answer.raise_for_status()
        view = answer.json()["view"]
    raise AssertionError("the match did not end")


def test_replay_of_a_finished_match_steps_forward_and_back(
    site: str, page: Page, shots: Path
) -> None:
    player = httpx.post(f"{site}/v1/players", json={"name": "Grace"}).json()
    token = player["token"]
    created = httpx.post(
        f"{site}/v1/matches",
        json={"level": "easy", "rules": {"preset": "arcadia", "target": 1}, "seed": "page-replay"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    final = play_out_by_api(site, token, match_id)
    events = httpx.get(
        f"{site}/v1/matches/{match_id}/events?after=0&limit=1000",
        headers={"Authorization": f"Bearer {token}"},
    ).json()["events"]
    last = events[-1]["version"]

    page.goto(f"{site}/")
    page.evaluate(
        "p => localStorage.setItem('ginrummy.player', JSON.stringify(p))",
        {"id": player["id"], "name": "Grace", "token": token},
    )
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("[data-testid=settlement]")
    settlement = final["settlement"]
    assert int(page.inner_text("[data-testid=total-0]")) == settlement["totals"][0]
    assert int(page.inner_text("[data-testid=total-1]")) == settlement["totals"][1]

    assert page.query_selector("[data-testid=open-replay]") is not None
    # A seeded match to a custom target is practice: listed as such, in no statistics.
    stats: dict[str, Any] = httpx.get(
        f"{site}/v1/players/{player['id']}/stats",
        headers={"Authorization": f"Bearer {token}"},
    ).json()
    # The history lists the match, finished, with its settled totals; its replay opens there.
    page.click("#nav-history")
    row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
    assert row is not None
    totals = settlement["totals"]
    assert f"{totals[0]} : {totals[1]}" in row.inner_text()
    won = settlement["winner"] == 0
    assert row.query_selector("[data-testid=history-result]").inner_text() == (
        "won" if won else "lost"
    )
    assert row.query_selector("[data-testid=practice]") is not None
    assert int(page.inner_text("[data-testid=stat-played]")) == stats["matches_played"] == 0
    assert int(page.inner_text("[data-testid=stat-won]")) == stats["matches_won"] == 0
    row.query_selector("[data-testid=replay-link]").click()
    viewer = page.wait_for_selector("#replay[data-shown='2']")
    assert viewer is not None
    assert page.inner_text("[data-testid=replay-position]") == f"Event 2 of {last}"
    assert "dealt" in page.inner_text("[data-testid=replay-event]")
    # Both hands are visible: ten face-up cards for each seat after the deal.
    seats = page.query_selector_all("#replay .replay-seat")
    assert [len(s.query_selector_all(".card")) for s in seats] == [10, 10]
    # ...each in the melds and deadwood the server's arrangement gives (seat 1 is on top).
    dealt = httpx.get(
        f"{site}/v1/matches/{match_id}/replay?at=2",
        headers={"Authorization": f"Bearer {token}"},
    ).json()["arrangements"]
    for row, shown in zip(seats, [dealt[1], dealt[0]], strict=True):
        melds = [
            [c.get_attribute("data-card") for c in group.query_selector_all(".card")]
            for group in row.query_selector_all(".group.meld")
        ]
        assert melds == shown["melds"]
        loose = row.query_selector_all(".group.deadwood .card")
        assert sorted(c.get_attribute("data-card") for c in loose) == sorted(shown["deadwood"])
        assert f"deadwood {shown['deadwood_points']}" in row.inner_text()

    page.click("[data-testid=replay-forward]")
    page.wait_for_selector("#replay[data-shown='3']")
    third = page.inner_text("[data-testid=replay-event]")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-shown='4']")
    assert page.inner_text("[data-testid=replay-event]") != third
    page.click("[data-testid=replay-back]")
    page.wait_for_selector("#replay[data-shown='3']")
    assert page.inner_text("[data-testid=replay-event]") == third
    page.keyboard.press("End")
    page.wait_for_selector(f"#replay[data-shown='{last}']")
    assert "won the match" in page.inner_text("[data-testid=replay-event]")
    assert page.query_selector("#replay [data-testid=settlement]") is not None
    page.keyboard.press("Home")
    page.wait_for_selector("#replay[data-shown='1']")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-shown='6']")
    # The screenshot shows the hands as they stood when the first hand ended.
    ending = next(e["version"] for e in events if e["event"]["type"] in ("knocked", "hand_washed"))
    page.keyboard.press("Home")
    page.wait_for_selector("#replay[data-shown='1']")
    for _ in range(ending - 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#replay[data-shown='{ending}']")
    screenshot(page, shots / "replay.png", full_page=True)


def play_until_defending(base: str, token: str, match_id: str) -> dict[str, Any] | None:
    """Never knock, so the AI does: play by the API until the human must lay off with
    at least one card the engine would lay off; None if the match ends first."""
    headers = {"Authorization": f"Bearer {token}"}
    view = api_view(base, token, match_id)
    for _ in range(3000):
        if view["phase"] == "match_over":
            return None
        legal = view["legal"]
        by_type = {cmd["type"]: cmd for cmd in legal}
        defending = view["phase"] == "layoff" and 0 in view["to_act"]
        if defending and view["suggested_layoffs"]["layoffs"]:
            return view
        best = view["best_discard"][0] if view["best_discard"] else None
        choice = (
            next((c for c in legal if c["type"] == "discard" and c["card"] == best), None)
            or by_type.get("pass_up_card")
            or by_type.get("draw_stock")
            or by_type.get("finish_layoffs")
            or by_type.get("next_hand")
            or legal[0]
        )
        action = {k: v for k, v in choice.items() if k != "seat"}
        answer = httpx.post(
            f"{base}/v1/matches/{match_id}/actions", json={"action": action}, headers=headers
        )
        answer.raise_for_status()
        view = answer.json()["view"]
    raise AssertionError("the match went on for too long")


@pytest.mark.parametrize("hints", [True, False], ids=["hints", "no-hints"])
def test_defending_a_knock_lays_off_the_best_from_the_page(
    site: str, page: Page, shots: Path, hints: bool
) -> None:
    """The engine offers every defender the best layoffs (docs/rules.md, "Laying off"): in
    a match with hints and the page's Hints on, and in a match without hints (the page's
    Hints tick then off and unavailable) just the same."""
    name = "Hedy" if hints else "Grace"
    player = httpx.post(f"{site}/v1/players", json={"name": name}).json()
    token = player["token"]
    defending = None
    for attempt in range(8):
        created = httpx.post(
            f"{site}/v1/matches",
            json={
                "level": "easy",
                "rules": "arcadia",
                "seed": f"page-layoff-{attempt}",
                "hints": hints,
            },
            headers={"Authorization": f"Bearer {token}"},
        )
        match_id = created.json()["match_id"]
        defending = play_until_defending(site, token, match_id)
        if defending is not None:
            break
    assert defending is not None, "the AI never knocked against cards that could be laid off"
    plan = defending["suggested_layoffs"]
    assert plan["layoffs"]

    page.goto(f"{site}/")
    page.evaluate(
        "p => localStorage.setItem('ginrummy.player', JSON.stringify(p))",
        {"id": player["id"], "name": name, "token": token},
    )
    if hints:
        hints_on(page)
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-phase=layoff][data-my-turn=true]")
    settle(page)
    assert page.is_checked("[data-testid=hints-toggle]") is hints
    knock_area = page.inner_text("#knockarea")
    assert f"with {defending['knock']['deadwood_points']} deadwood" in knock_area
    offered = page.eval_on_selector_all(
        "#actions [data-testid=layoff]", "els => els.map(e => e.textContent)"
    )
    legal_layoffs = [c for c in defending["legal"] if c["type"] == "lay_off"]
    assert len(offered) == len(legal_layoffs)
    assert (
        int(page.inner_text("[data-testid=deadwood]"))
        == (defending["arrangement"]["deadwood_points"])
    )
    if hints:
        screenshot(page, shots / "layoff.png", full_page=True)
    n = len(plan["layoffs"])
    assert f"Lay off the best ({n}) and finish" in page.inner_text("[data-testid=layoff-best]")

    page.click("[data-testid=layoff-best]")
    page.wait_for_selector("[data-testid=hand-result]")
    settle(page)
    result = api_view(site, token, match_id)["last_result"]
    assert [list(x) for x in result["layoffs"]] == [list(x) for x in plan["layoffs"]]
    assert result["defender_deadwood"] == plan["arrangement"]["deadwood_points"]
    assert int(page.inner_text("[data-testid=score-me]")) == result["scores"][0]


def test_the_start_form_changes_single_rules_of_a_preset(site: str, page: Page) -> None:
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.fill("#name", "Edsger")
    page.select_option("#level", "easy")
    page.select_option("#preset", "arkadium")
    page.click("#custom-rules summary")
    # Out of range: the form says so and nothing is created, not even the player.
    page.fill("#rule-knock-limit", "11")
    page.click("[data-testid=start]")
    assert page.evaluate("document.querySelector('#rule-knock-limit').validity.valid") is False
    page.wait_for_timeout(200)
    assert page.get_attribute("body", "data-screen") != "table"
    assert page.evaluate("localStorage.getItem('ginrummy.player')") is None

    page.fill("#rule-knock-limit", "5")
    page.fill("#rule-target", "50")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    # The score bar says what the custom set changed, and what the preset has instead.
    assert page.inner_text("[data-testid=preset]") == "Rules: arkadium, changed:"
    changes = page.inner_text("[data-testid=rule-changes]")
    assert "knock ≤ 5 (was knock ≤ 10)" in changes and "to 50 (was to 100)" in changes, changes
    assert "gin bonus" not in changes, changes
    rules = api_view(site, *stored(page))["rules"]
    preset = msgspec.to_builtins(PRESETS["arkadium"])
    changed = {field for field in preset if rules[field] != preset[field]}
    assert changed == {"name", "knock_limit", "target"}
    assert (rules["knock_limit"], rules["target"]) == (5, 50)


def start_from_the_form(page: Page, site: str, name: str) -> tuple[str, str]:
    """Deal a match against easy from the start form; the stored token and match id."""
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.fill("#name", name)
    page.select_option("#level", "easy")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    return stored(page)


def test_a_new_name_renames_the_player_and_keeps_its_matches(site: str, page: Page) -> None:
    token, first = start_from_the_form(page, site, "Ada")
    page.click("#nav-new")
    page.wait_for_selector("#resume:not([hidden])")
    assert "against Computer (easy) (arcadia to 100)" in page.inner_text("#resume")

    page.fill("#name", "Ada Lovelace")
    page.click("[data-testid=start]")
    wait_until(page, f"localStorage.getItem('ginrummy.match') !== {json.dumps(first)}")
    same_token, second = stored(page)
    assert same_token == token and second != first
    player = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))
    profile = httpx.get(
        f"{site}/v1/players/{player['id']}", headers={"Authorization": f"Bearer {token}"}
    )
    assert profile.json()["name"] == "Ada Lovelace"
    assert "Ada Lovelace" in page.inner_text("#who")
    # Only the hash changes, so the table is on screen already: wait for the match itself.
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{first}")
    wait_until(page, f"localStorage.getItem('ginrummy.match') === {json.dumps(first)}")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    assert stored(page) == (token, first), "the first match still opens for the renamed player"
    assert page.is_hidden("#toast"), page.inner_text("#toast")


def test_signing_out_asks_first_and_can_be_called_off(site: str, page: Page) -> None:
    token, _ = start_from_the_form(page, site, "Grace")
    page.click("#nav-signout")
    page.wait_for_selector("#signout-confirm:not([hidden])")
    assert "cannot be opened again" in page.inner_text("#signout-confirm")
    page.keyboard.press("Enter")  # the focused choice is to keep playing
    assert page.is_hidden("#signout-confirm")
    assert stored(page)[0] == token

    page.click("#nav-signout")
    version = page.get_attribute("body", "data-version")
    page.keyboard.press("Tab")  # wherever focus goes, the question is still open
    page.keyboard.press("Tab")
    for key in "xts":  # the table's shortcuts are off while the question is open
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert page.get_attribute("body", "data-version") == version
    page.keyboard.press("Escape")
    assert page.is_hidden("#signout-confirm")

    page.click("#nav-signout")
    page.click("[data-testid=signout-yes]")
    page.wait_for_selector("body[data-screen=start]")
    assert page.evaluate("localStorage.getItem('ginrummy.player')") is None
    assert page.inner_text("#who") == "Not signed in"


def test_dealing_from_the_keyboard_puts_focus_on_the_table(site: str, page: Page) -> None:
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.fill("#name", "Ada")
    page.press("#name", "Enter")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    assert page.evaluate(
        "document.getElementById('screen-table').contains(document.activeElement)"
    ), page.evaluate("document.activeElement.outerHTML")


def test_a_keyboard_player_keeps_focus_on_the_table_after_acting(site: str, page: Page) -> None:
    start_from_the_form(page, site, "Alan")
    page.wait_for_selector("#actions button:not([disabled])")
    version = page.get_attribute("body", "data-version")
    page.focus("#actions button:not([disabled])")
    page.keyboard.press("Enter")
    wait_until(page, f"document.body.dataset.version !== {json.dumps(version)}")
    settle(page)
    focus = page.evaluate(
        """() => { const el = document.activeElement;
                   return [el !== document.body && document.getElementById('screen-table').contains(el),
                           el.tagName, el.disabled === true]; }"""
    )
    assert focus[0] is True and focus[2] is False, focus


def test_an_unreachable_server_is_said_plainly(site: str, page: Page) -> None:
    start_from_the_form(page, site, "Barbara")
    version = page.get_attribute("body", "data-version")
    page.route("**/v1/matches/*/actions", lambda route: route.abort("connectionrefused"))
    page.click("#actions button:not([disabled])")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast").startswith("Cannot reach the server")
    assert page.get_attribute("body", "data-version") == version


def test_the_moves_say_gin_and_big_gin_not_knock(site: str, page: Page) -> None:
    page.goto(f"{site}/?delay={DELAY_MS}")
    told = page.evaluate(
        """async () => {
             const { describeMove } = await import('/js/movelist.js');
             const view = (kind) => ({ players: ['Ada', 'Computer (hard)'], seat: 0, knock: { kind } });
             return [describeMove(view('gin'), [1, 'knock', '3S']),
                     describeMove(view('big_gin'), [1, 'knock', null]),
                     describeMove(view('knock'), [0, 'knock', '3S'])];
           }"""
    )
    assert "went gin, discarding 3" in told[0], told
    assert told[1].endswith("declared big gin."), told
    assert "knocked, discarding 3" in told[2], told


def test_the_page_catches_up_after_the_server_restarts(browser: Browser, tmp_path: Path) -> None:
    """The socket drops with the server; the page reconnects asking for what it missed
    (``after``) and shows the move made on the restarted server, which it never fetched
    itself (whether those events reach it replayed or live depends on the reconnect's
    timing; test_protocol.py checks the replay itself)."""
    with restartable_site(browser, tmp_path) as served:
        base, page = served.base, served.page
        token, match_id = start_from_the_form(page, base, "Grace")
        served.stop()
        served.start()
        view = api_view(base, token, match_id)
        moved = httpx.post(
            f"{base}/v1/matches/{match_id}/actions",
            json={"action": as_action(view["legal"][0])},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert moved.status_code == 200, moved.text
        version = str(moved.json()["version"])
        wait_until(page, f"document.body.dataset.version === {json.dumps(version)}")
        settle(page)
        after = moved.json()["view"]
        assert page.evaluate("document.body.dataset.phase") == after["phase"]
        if after["phase"] not in ("hand_over", "match_over"):  # the AI's reply may end the
            assert sorted(shown_hand(page)) == sorted(after["hand"])  # hand: no hand shown
