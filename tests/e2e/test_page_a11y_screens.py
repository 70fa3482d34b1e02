"""The page's other screens for a keyboard or screen-reader user: text contrast computed
from the colours the browser lays out, one heading and a title per screen, the replay, the
watch screen, the leaderboard, the sign-out question and the lobby.

In Debian's headless Chromium against a real server (the fixtures of test_page.py); what
a live region announces is recorded as in test_page_a11y.py.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    play_out_by_api,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_a11y import LIVE_RECORDER, focused, said
from tests.e2e.test_page_chat import seated_pair
from tests.e2e.test_page_layout import new_match, open_match, sign_in, to_my_discard
from tests.e2e.test_page_socketless import REFUSED_SOCKETS

# Every piece of visible text whose contrast with what lies behind it is under WCAG AA's
# 4.5:1 (3:1 for large text). The colour behind is the element's and its ancestors'
# backgrounds composed, white under all; a gradient counts with each of its colours (the
# worst kept); opacity along the way fades the text. Disabled controls are exempt.
LOW_CONTRAST = """
() => {
  const parse = (s) => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const behind = (el) => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let under = [[255, 255, 255, 1]];
    for (const e of chain) {
      const cs = getComputedStyle(e);
      const stops = /gradient/.test(cs.backgroundImage) ? (cs.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse) : [];
      if (stops.length) { under = stops.flatMap((c) => under.map((b) => over(c, b))); continue; }
      const c = parse(cs.backgroundColor);
      if (c && c[3] > 0) under = under.map((b) => over(c, b));
    }
    return under;
  };
  const low = [];
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    const box = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (box.width < 2 || box.height < 2 || cs.visibility === 'hidden') continue;
    if (el.closest('button:disabled, input:disabled, select:disabled, option, .visually-hidden')) continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const fg = parse(cs.color);
    fg[3] *= opacity;
    const size = parseFloat(cs.fontSize);
    const need = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
    const worst = Math.min(...behind(el).map((b) => ratio(over(fg, b), b)));
    if (worst < need) low.push(`${n.textContent.trim().slice(0, 40)} (${el.tagName}.${el.className}): ${worst.toFixed(2)} < ${need}`);
  }
  return low;
}
"""

H1S = "[...document.querySelectorAll('h1')].filter((e) => !e.closest('[hidden]')).map((e) => e.textContent)"


def finished_match(site: str, name: str, seed: str) -> tuple[dict[str, Any], str]:  # noqa: F811
    player, match_id = new_match(site, name, seed, rules={"preset": "arcadia", "target": 1})
    play_out_by_api(site, player["token"], match_id)
    return player, match_id


def test_every_screen_has_one_heading_a_title_and_enough_contrast(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Each screen: one visible h1 (the table had none, the replay an h2), a window title
    of its own (every screen was "Gin Rummy"), and no text under AA contrast (a hint's
    .8 opacity left it at 4.4:1 on the felt)."""
    player, done = finished_match(site, "Cato", "a11y-screens")
    code = httpx.get(  # a match from a chosen seed is watched with its watch code
        f"{site}/v1/matches/{done}", headers={"Authorization": f"Bearer {player['token']}"}
    ).json()["watch_code"]
    sign_in(page, site, player, {"tourSeen": True, "hints": True})
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.wait_for_selector("body[data-screen=start]")
    page.click("#custom-rules summary")
    page.click(".help summary")
    titles: dict[str, str] = {}
    low: dict[str, list[str]] = {}
    screens = [
        ("start", "#/"),
        ("lobby", "#/lobby"),
        ("history", "#/history"),
        ("leaderboard", "#/leaderboard"),
        ("live", "#/live"),
        ("rules", "#/rules"),
        ("replay", f"#/replay/{done}"),
        ("table", f"#/match/{done}"),
        ("watch", f"#/watch/{done}/{code}"),
        ("player", f"#/player/{player['id']}"),
    ]
    for screen, route in screens:
        page.evaluate(f"location.hash = {route!r}")
        page.wait_for_selector(f"body[data-screen={screen}]")
        page.wait_for_timeout(800)  # what the screen reads from the server is drawn
        settle(page)
        assert len(page.evaluate(H1S)) == 1, (screen, page.evaluate(H1S))
        titles[screen] = page.title()
        low[screen] = page.evaluate(LOW_CONTRAST)
    assert len(set(titles.values())) == len(titles), titles
    assert all(title.endswith("Gin Rummy") for title in titles.values()), titles
    assert {screen: found for screen, found in low.items() if found} == {}


def test_the_table_in_play_has_enough_contrast(site: str, page: Page) -> None:  # noqa: F811
    """A turn to discard, hints on, the hand's moves open: no text under AA contrast."""
    player, match_id = new_match(site, "Dora", "a11y-contrast")
    to_my_discard(site, player["token"], match_id)
    sign_in(page, site, player, {"tourSeen": True, "hints": True})
    open_match(page, site, match_id)
    page.click(".log-box summary")
    page.click("#hand .card.playable")
    assert page.evaluate(LOW_CONTRAST) == []


def test_the_replay_announces_each_event_not_the_whole_board(site: str, page: Page) -> None:  # noqa: F811
    """Stepping through a replay says the step's event ("Event 3 of 40: …"), once; the
    board (both hands, the piles, the score) was a live region, read out whole each step."""
    player, match_id = finished_match(site, "Emil", "a11y-replay")
    page.add_init_script(LIVE_RECORDER)
    sign_in(page, site, player)
    page.goto(f"{site}/#/replay/{match_id}")
    page.wait_for_selector("#replay[data-shown='2']")
    page.evaluate("window.__said = []")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-shown='3']")
    event = page.inner_text("[data-testid=replay-event]")
    told = said(page)
    last = page.inner_text("[data-testid=replay-position]").split()[-1]
    assert told == [["said", f"Event 3 of {last}: {event}"]], told


def test_a_spectator_is_told_each_move_and_whose_turn_it_is(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The watch screen is drawn anew at each event, and nothing on it was live: a
    spectator with a screen reader heard no move. Whose turn it is was a class no style
    showed: it is said beside the seat."""
    page.add_init_script(LIVE_RECORDER)
    page.goto(f"{site}/")
    page.fill("#name", "Fay")
    page.click("[data-testid=watch-house]")
    page.wait_for_selector("body[data-screen=watch] [data-testid=watch-score]")
    wait_until(page, "window.__said.filter((s) => s[0] === 'said').length >= 2")
    narrated = page.inner_text("[data-testid=watch-narration]")
    lines = [text for region, text in said(page) if region == "said"]
    assert narrated in lines[-3:], (narrated, lines)
    seats = page.eval_on_selector_all(
        "[data-testid=watch-seats] li", "els => els.map(e => e.textContent)"
    )
    if not page.query_selector("[data-testid=watch-over]"):
        assert sum("to play" in seat for seat in seats) >= 1, seats


def test_the_leaderboards_buttons_keep_the_focus(site: str, page: Page) -> None:  # noqa: F811
    """The board's tabs are drawn anew when pressed: the one pressed keeps the focus (it
    fell to the page's top, and the next Tab started from the header again)."""
    player = httpx.post(f"{site}/v1/players", json={"name": "Jon"}).json()
    sign_in(page, site, player)
    page.goto(f"{site}/#/leaderboard")
    page.wait_for_selector("[data-testid=leaderboard-empty], [data-testid=leaderboard]")
    page.focus("[data-testid=board-bot]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=board-bot][aria-pressed=true]")
    wait_until(page, "document.activeElement.dataset.testid === 'board-bot'")
    page.keyboard.press("Shift+Tab")
    assert focused(page)["testid"] == "board-person"


def test_the_sign_out_question_keeps_the_keyboard_until_answered(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Its question describes the dialog, Tab goes round its two buttons (it left for
    the page behind), Escape gives the focus back to Sign out."""
    player = httpx.post(f"{site}/v1/players", json={"name": "Gil"}).json()
    sign_in(page, site, player)
    page.goto(f"{site}/#/history")
    page.focus("#nav-signout")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("alertdialog", name="Sign out")
    dialog.wait_for()
    described = page.evaluate(
        "document.getElementById(document.querySelector('#signout-confirm')"
        ".getAttribute('aria-describedby')).textContent"
    )
    assert described.startswith("Sign out") and "Gil" in described
    assert focused(page)["testid"] == "signout-no"
    for expected in ("signout-yes", "signout-no", "signout-yes"):
        page.keyboard.press("Tab")
        assert focused(page)["testid"] == expected
    page.keyboard.press("Shift+Tab")
    assert focused(page)["testid"] == "signout-no"
    page.keyboard.press("Escape")
    assert dialog.is_hidden()
    assert page.evaluate("document.activeElement.id") == "nav-signout"


def test_the_lobby_keeps_the_keyboard_and_tells_a_challenge_that_comes(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Entering the lobby by name from the keyboard leaves the focus in the lobby (its
    form went, and the focus with it); a challenge that comes while it is open is said."""
    page.add_init_script(LIVE_RECORDER)
    page.goto(f"{site}/#/lobby")
    page.focus("[data-testid=lobby-name]")
    page.keyboard.type("Hal")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=lobby-name]", state="detached")
    wait_until(page, "document.activeElement !== document.body")
    assert page.evaluate("!!document.activeElement.closest('#screen-lobby')")
    me = page.evaluate("JSON.parse(localStorage.getItem('ginrummy.player'))")
    page.wait_for_selector("[data-testid=incoming] li")  # the lobby has read its lists
    ivy = httpx.post(f"{site}/v1/players", json={"name": "Ivy"}).json()
    sent = httpx.post(
        f"{site}/v1/challenges",
        json={"to": me["id"], "rules": "arcadia"},
        headers={"Authorization": f"Bearer {ivy['token']}"},
    )
    assert sent.status_code == 201, sent.text
    wait_until(
        page,
        "window.__said.some((s) => s[0] === 'said' && s[1].includes('Ivy challenges you'))",
        timeout=15_000,
    )
    page.wait_for_selector("[data-testid=accept]")
    page.focus("[data-testid=accept]")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-screen=table]")


def test_a_chat_message_is_said_once_and_the_history_not_at_all(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """The chat log was a live region written anew at each message: every message
    before it was read out again. A new message from the other seat is said alone; the
    history read when the table opens is not said."""
    contexts = [browser.new_context() for _ in range(2)]
    alice, bob = (context.new_page() for context in contexts)
    try:
        a, b, match_id = seated_pair(site, "Ann", "Ben")
        httpx.post(
            f"{site}/v1/matches/{match_id}/chat",
            json={"text": "said before"},
            headers={"Authorization": f"Bearer {a['token']}"},
        ).raise_for_status()
        bob.add_init_script(LIVE_RECORDER)
        for tab, who in ((alice, a), (bob, b)):
            sign_in(tab, site, who, {"tourSeen": True})
            tab.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
            tab.wait_for_selector("[data-testid=chat-input]")
        bob.wait_for_selector("[data-testid=chat-log] li:has-text('said before')")
        bob.wait_for_timeout(300)
        assert not [s for s in said(bob) if "said before" in s[1]], said(bob)
        for text in ("first", "second"):
            alice.fill("[data-testid=chat-input]", text)
            alice.press("[data-testid=chat-input]", "Enter")
            bob.wait_for_selector(f"[data-testid=chat-log] li:has-text('{text}')")
        wait_until(bob, "window.__said.some((s) => s[1].includes('second'))")
        chat = [
            text for _, text in said(bob) if "first" in text or "second" in text or "before" in text
        ]
        assert chat == ["Ann says: first", "Ann says: second"], said(bob)
    finally:
        for context in contexts:
            context.close()


def test_without_a_socket_a_history_read_late_is_not_said(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """A page without its socket reads new chat messages every few seconds and says them.
    If its first read of the history failed, the next read is of the history: before, it
    said every old message as if it had just been written."""
    context = browser.new_context()
    bob = context.new_page()
    try:
        a, b, match_id = seated_pair(site, "Ann", "Ben")
        ann = {"Authorization": f"Bearer {a['token']}"}
        chat_url = f"{site}/v1/matches/{match_id}/chat"
        httpx.post(chat_url, json={"text": "said before"}, headers=ann).raise_for_status()
        failed: list[str] = []  # the history's first read, answered as a failing proxy would

        def fail_once(route: Any) -> None:
            if failed:
                route.continue_()
                return
            failed.append(route.request.url)
            route.fulfill(status=502, body="bad gateway")

        bob.route("**/chat?after=0*", fail_once)
        bob.add_init_script(REFUSED_SOCKETS)
        bob.add_init_script(LIVE_RECORDER)
        sign_in(bob, site, b, {"tourSeen": True})
        bob.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
        bob.wait_for_selector("[data-testid=chat-log] li:has-text('said before')", timeout=30_000)
        assert failed, "the history's first read was not the one that failed"
        httpx.post(chat_url, json={"text": "said after"}, headers=ann).raise_for_status()
        wait_until(bob, "window.__said.some((s) => s[1].includes('said after'))", 30_000)
        chat = [text for _, text in said(bob) if "said" in text]
        assert chat == ["Ann says: said after"], said(bob)
    finally:
        context.close()


def test_new_match_at_a_matchs_end_gives_the_keyboard_to_the_start_form(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """N (New match) at a match's end: the table goes, and with it the focused button; the
    focus fell to <body> and a keyboard user had to Tab from the top of the page. The start
    screen's first control, the name, takes it."""
    player, done = finished_match(site, "Nell", "a11y-new-match")
    sign_in(page, site, player, {"tourSeen": True})
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{done}")
    page.wait_for_selector("body[data-phase=match_over]", state="attached")
    settle(page)
    page.focus("#actions [data-nav=new]")
    page.keyboard.press("n")
    page.wait_for_selector("body[data-screen=start]")
    wait_until(page, "document.activeElement && document.activeElement.id === 'name'")
    assert page.evaluate("document.activeElement.id") == "name"


def test_a_name_the_server_refuses_keeps_the_keyboard_on_the_name(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A name with no visible letter (U+2800, which the page's own check lets through) is
    refused by the server: its words show under the form, and the name field, in error,
    keeps the keyboard (the Deal button, disabled while it waited, let it fall to <body>)."""
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.wait_for_selector("body[data-screen=start]")
    page.fill("#name", "\u2800")
    page.focus("[data-testid=start]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=start-problem]:not([hidden])")
    settle(page)
    wait_until(page, "!document.querySelector('[data-testid=start]').disabled")
    assert page.evaluate("document.activeElement.id") == "name"
    assert page.get_attribute("body", "data-screen") == "start"
