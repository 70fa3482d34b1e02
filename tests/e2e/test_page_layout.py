"""The page's table at real screen sizes, and a hand the player arranges (issue 23).

Driven in Debian's headless Chromium against a real server (the fixtures of
test_page.py): the cards are measured where the browser lays them out, sorted and dragged
with a real mouse, a real touch sequence (Chrome's DevTools touch input) and the keyboard.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from playwright.sync_api import Browser, Page

from domain.rules import PRESETS
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    api_view,
    browser,
    hints_on,
    screenshot,
    settle,
    shots,
    shown_hand,
    site,
    wait_until,
)

RANKS = "A23456789TJQK"
SUITS = "CDHS"


def by_rank(cards: list[str]) -> list[str]:
    return sorted(cards, key=lambda c: (RANKS.index(c[0]), SUITS.index(c[1])))


def by_suit(cards: list[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


def act(base: str, token: str, match_id: str, cmd: dict[str, Any]) -> dict[str, Any]:
    action = {k: v for k, v in cmd.items() if k != "seat"}
    answer = httpx.post(
        f"{base}/v1/matches/{match_id}/actions",
        json={"action": action},
        headers={"Authorization": f"Bearer {token}"},
    )
    answer.raise_for_status()
    view: dict[str, Any] = answer.json()["view"]
    return view


# Where matches are dealt with or without the engine's advice (a ``hints`` field of the
# request, in the generated OpenAPI document), these tests ask for it: the page's own
# Hints setting is what they check, and it needs advice to show.
_REQUEST = json.loads(
    (Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text()
)
ADVICE = (
    {"hints": True}
    if "hints" in _REQUEST["components"]["schemas"]["CreateMatchRequest"]["properties"]
    else {}
)


def new_match(
    base: str, name: str, seed: str, rules: Any = "arcadia"
) -> tuple[dict[str, Any], str]:
    player: dict[str, Any] = httpx.post(f"{base}/v1/players", json={"name": name}).json()
    created = httpx.post(
        f"{base}/v1/matches",
        json={"level": "easy", "rules": rules, "seed": seed, **ADVICE},
        headers={"Authorization": f"Bearer {player['token']}"},
    )
    assert created.status_code == 201, created.text
    return player, created.json()["match_id"]


def advance_until(
    base: str,
    token: str,
    match_id: str,
    done: Callable[[dict[str, Any]], bool],
    preferred: Sequence[str],
    steps: int = 10,
) -> dict[str, Any]:
    """Play seat 0 through the API until ``done(view)``: each step, the first legal command
    (as the engine lists them) of the first type in ``preferred`` that it offers."""
    view = api_view(base, token, match_id)
    for _ in range(steps):
        if done(view):
            return view
        offered = [
            next(cmd for cmd in view["legal"] if cmd["type"] == kind)
            for kind in preferred
            if any(cmd["type"] == kind for cmd in view["legal"])
        ]
        assert offered, f"none of {list(preferred)} is legal: {view['legal']}"
        view = act(base, token, match_id, offered[0])
    raise AssertionError(f"not there after {steps} steps: {view['phase']}, {view['to_act']}")


def my_turn_to(phase: str) -> Callable[[dict[str, Any]], bool]:
    return lambda view: view["phase"] == phase and 0 in view["to_act"]


def to_my_discard(base: str, token: str, match_id: str) -> dict[str, Any]:
    """Pass or draw from the stock until the human seat holds eleven cards and must discard."""
    return advance_until(
        base, token, match_id, my_turn_to("discard"), ("pass_up_card", "draw_stock")
    )


def to_hand_over(base: str, token: str, match_id: str) -> dict[str, Any]:
    """Play the best discard, knocking when allowed, until the first hand is over."""
    view = api_view(base, token, match_id)
    for _ in range(500):
        if view["phase"] in ("hand_over", "match_over"):
            return view
        legal = view["legal"]
        by_type = {cmd["type"]: cmd for cmd in legal}
        best = view["best_discard"][0] if view["best_discard"] else None
        choice = (
            next((c for c in legal if c["type"] in ("gin", "knock") and c["card"] == best), None)
            or next((c for c in legal if c["type"] == "discard" and c["card"] == best), None)
            or by_type.get("pass_up_card")
            or by_type.get("draw_stock")
            or by_type.get("finish_layoffs")
            or legal[0]
        )
        view = act(base, token, match_id, choice)
    raise AssertionError("the hand did not end")


def sign_in(
    page: Page, base: str, player: dict[str, Any], prefs: dict[str, Any] | None = None
) -> None:
    page.goto(f"{base}/")
    page.evaluate(
        "([p, prefs]) => { localStorage.setItem('ginrummy.player', JSON.stringify(p));"
        " if (prefs) localStorage.setItem('ginrummy.prefs', JSON.stringify(prefs)); }",
        [{"id": player["id"], "name": player["name"], "token": player["token"]}, prefs],
    )


def open_match(page: Page, base: str, match_id: str) -> None:
    page.goto(f"{base}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-screen=table]")
    page.wait_for_selector("#hand [data-card]")
    settle(page)


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:  # noqa: F811
    context = browser.new_context(viewport={"width": 1280, "height": 800}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def overflow(page: Page) -> int:
    """How far the page scrolls sideways (0: it fits)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    return int(width) - int(inner)


# For each card of the hand: the largest square, anchored at the card's top-left corner,
# whose corners (3 px in, past the rounded corner) and centre all hit that card: another
# card lying over it cuts it short.
TAP_SQUARES = """
() => [...document.querySelectorAll('#hand [data-card]')].map((el) => {
  const r = el.getBoundingClientRect();
  const hits = (x, y) => { const at = document.elementFromPoint(x, y); return !!at && at.closest('[data-card]') === el; };
  let side = 0;
  for (let s = 6; s <= Math.min(r.width, r.height); s++) {
    const x0 = r.left + 3, y0 = r.top + 3, x1 = r.left + s - 3, y1 = r.top + s - 3;
    if (hits(x0, y0) && hits(x1, y0) && hits(x0, y1) && hits(x1, y1) && hits((x0 + x1) / 2, (y0 + y1) / 2)) side = s;
    else break;
  }
  return [el.dataset.card, side];
})
"""


def test_the_presets_on_the_page_are_the_engines(site: str, tab: Page) -> None:  # noqa: F811
    tab.goto(f"{site}/")
    shown = tab.evaluate("async () => (await import('/js/presets.js')).PRESETS")
    assert shown == {name: msgspec.to_builtins(rules) for name, rules in PRESETS.items()}


@pytest.mark.parametrize(
    ("width", "height"), [(1920, 1080), (1280, 800), (390, 844)], ids=["1920", "1280", "phone"]
)
def test_the_table_fits_the_screen(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
    width: int,
    height: int,
) -> None:
    phone = width < 500
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        player, match_id = new_match(site, "Ada", f"layout-{width}")
        view = to_my_discard(site, player["token"], match_id)
        sign_in(page, site, player)
        open_match(page, site, match_id)
        assert len(shown_hand(page)) == len(view["hand"]) == 11
        assert overflow(page) == 0, "the table scrolls sideways"
        widths = page.eval_on_selector_all(
            "#hand [data-card]", "els => els.map(e => e.getBoundingClientRect().width)"
        )
        if width == 1920:
            assert min(widths) >= 110, widths
            screenshot(page, shots / "table-desktop.png")
        if phone:
            page.locator("#hand").scroll_into_view_if_needed()
            squares = dict(page.evaluate(TAP_SQUARES))
            assert min(squares.values()) >= 44, squares
            # The sort buttons are tap targets too.
            for box in page.eval_on_selector_all(
                "#hand-tools button", "els => els.map(e => e.getBoundingClientRect().height)"
            ):
                assert box >= 44
            screenshot(page, shots / "table-phone-hand.png", full_page=True)
        # The start form and the history fit as well.
        page.click("#nav-new")
        page.wait_for_selector("body[data-screen=start]")
        assert overflow(page) == 0
        page.click("#nav-history")
        page.wait_for_selector("[data-testid=history]")
        assert overflow(page) == 0, "the history table is wider than the screen"
    finally:
        context.close()


def test_the_rules_drop_down_shows_its_whole_text_on_a_phone(browser: Browser, site: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{site}/")
        # Each option's text, measured in the select's own font, fits inside the select
        # (less its padding and the arrow, 2.5 em).
        fits = page.evaluate(
            """() => {
                 const out = [];
                 for (const sel of document.querySelectorAll('#start-form select')) {
                   const style = getComputedStyle(sel);
                   const ctx = document.createElement('canvas').getContext('2d');
                   ctx.font = `${style.fontSize} ${style.fontFamily}`;
                   const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 2.5 * parseFloat(style.fontSize);
                   for (const o of sel.options) out.push([o.text, ctx.measureText(o.text).width <= room]);
                 }
                 return out;
               }"""
        )
        assert fits and all(ok for _, ok in fits), fits
        # The details the options no longer carry are written under the drop-down.
        page.select_option("#preset", "arkadium")
        assert "shutout 200" in page.inner_text("[data-testid=preset-about]")
    finally:
        context.close()


def test_the_hand_sorts_by_rank_suit_or_melds_and_the_choice_is_remembered(
    site: str,  # noqa: F811
    tab: Page,
) -> None:
    player, match_id = new_match(site, "Grace", "sorting")
    view = to_my_discard(site, player["token"], match_id)
    sign_in(tab, site, player)
    open_match(tab, site, match_id)
    hand = view["hand"]
    melds = [list(m) for m in view["arrangement"]["melds"]]
    grouped = [c for m in melds for c in m] + by_rank(view["arrangement"]["deadwood"])
    assert shown_hand(tab) == grouped, "by default the engine's melds come first"
    tab.click("[data-testid=sort-rank]")
    assert shown_hand(tab) == by_rank(hand)
    assert tab.get_attribute("[data-testid=sort-rank]", "aria-pressed") == "true"
    tab.click("[data-testid=sort-suit]")
    assert shown_hand(tab) == by_suit(hand)
    tab.reload()
    tab.wait_for_selector("#hand [data-card]")
    settle(tab)
    assert shown_hand(tab) == by_suit(hand), "the sort is remembered"
    tab.click("[data-testid=sort-melds]")
    groups = tab.eval_on_selector_all(
        "#hand .group.meld",
        "gs => gs.map(g => [...g.querySelectorAll('[data-card]')].map(c => c.dataset.card))",
    )
    assert groups == melds, "melds still grouped on request"


def card_centre(page: Page, card: str) -> tuple[float, float]:
    box = page.locator(f"#hand [data-card='{card}']").bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_dragging_reorders_the_hand_with_a_mouse_by_touch_and_from_the_keyboard(
    site: str,  # noqa: F811
    tab: Page,
) -> None:
    player, match_id = new_match(site, "Hedy", "dragging")
    token = player["token"]
    view = to_my_discard(site, token, match_id)
    sign_in(tab, site, player, {"sort": "rank"})
    open_match(tab, site, match_id)
    start = shown_hand(tab)
    assert start == by_rank(view["hand"])
    types = "window.__kinds"  # the pointerType of every press, to see each input really used
    tab.evaluate(
        "window.__kinds = []; document.addEventListener('pointerdown',"
        " (e) => window.__kinds.push(e.pointerType), true)"
    )

    # Mouse: the first card dropped just right of the fourth's centre lands after it.
    first, fourth = start[0], start[3]
    x, y = card_centre(tab, first)
    tx, ty = card_centre(tab, fourth)
    tab.mouse.move(x, y)
    tab.mouse.down()
    for step in range(1, 11):
        tab.mouse.move(x + (tx + 8 - x) * step / 10, y)
    tab.mouse.up()
    after_mouse = shown_hand(tab)
    assert after_mouse == [*start[1:4], first, *start[4:]], after_mouse
    assert tab.is_visible("[data-testid=own-order]")
    assert tab.query_selector("#hand .card.selected") is None, "a drag does not choose a card"

    # Touch: real touch points (Chrome turns them into pointer events of type "touch").
    cdp = tab.context.new_cdp_session(tab)
    last, second = after_mouse[-1], after_mouse[1]
    x, y = card_centre(tab, last)
    tx, ty = card_centre(tab, second)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 11):
        point = {"x": x + (tx - 8 - x) * step / 10, "y": y + (ty - y) * step / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    wait_until(
        tab,
        f"document.querySelectorAll('#hand [data-card]')[1].dataset.card === {json.dumps(last)}",
    )
    after_touch = shown_hand(tab)
    assert tab.evaluate(types) == ["mouse", "touch"]
    assert after_touch == [after_mouse[0], last, *after_mouse[1:-1]], after_touch

    # Keyboard: focus a card, Shift+→ moves it one place right, Shift+← back.
    card = after_touch[2]
    tab.focus(f"#hand [data-card='{card}']")
    tab.keyboard.press("Shift+ArrowRight")
    assert shown_hand(tab).index(card) == 3
    assert tab.evaluate("document.activeElement.dataset.card") == card, "focus stays on it"
    assert "place 4 of 11" in tab.inner_text("#narration")
    tab.keyboard.press("Shift+ArrowRight")
    tab.keyboard.press("Shift+ArrowLeft")
    assert shown_hand(tab).index(card) == 3
    assert api_view(site, token, match_id)["version"] == view["version"], "arranging sends nothing"
    arranged = shown_hand(tab)
    tab.reload()
    tab.wait_for_selector("#hand [data-card]")
    settle(tab)
    assert shown_hand(tab) == arranged, "a reload keeps the hand's order"

    # The order survives the discard (the card leaves it) and the next draw.
    mine = tab.get_attribute("body", "data-version")
    tab.click(f"#hand [data-card='{card}']")
    tab.click(f"#hand [data-card='{card}']")  # the second click discards it
    wait_until(tab, f"document.body.dataset.version !== {json.dumps(mine)}")
    settle(tab)
    now = shown_hand(tab)
    assert card not in now
    assert [c for c in now if c in arranged] == [c for c in arranged if c != card], now


def test_the_drawn_card_is_marked_until_the_discard(site: str, tab: Page) -> None:  # noqa: F811
    # The house AI may end the hand on its turn (a knock): then another match is dealt.
    for attempt in range(4):
        player, match_id = new_match(site, "Barbara", f"drawn-mark-{attempt}")
        token = player["token"]
        view = to_my_discard(site, token, match_id)
        sign_in(tab, site, player)
        open_match(tab, site, match_id)
        seat, action, drawn = view["moves"][-1]
        assert seat == 0 and action in ("draw_stock", "take_up_card") and drawn
        marked = tab.eval_on_selector_all(
            "#hand .card.drawn", "els => els.map(e => e.dataset.card)"
        )
        assert marked == [drawn]
        other = next(c for c in view["hand"] if c != drawn)
        tab.click(f"#hand [data-card='{other}']")
        tab.click(f"#hand [data-card='{other}']")
        wait_until(tab, f"document.body.dataset.version !== {json.dumps(str(view['version']))}")
        settle(tab)
        assert tab.query_selector("#hand .card.drawn") is None, "unmarked once the turn is over"
        if tab.get_attribute("body", "data-phase") != "draw":
            continue  # the AI knocked
        tab.click("[data-testid=draw-stock]")
        tab.wait_for_selector("body[data-phase=discard][data-my-turn=true]")
        settle(tab)
        drew = api_view(site, token, match_id)["moves"][-1]
        assert drew[:2] == [0, "draw_stock"]
        marked = tab.eval_on_selector_all(
            "#hand .card.drawn", "els => els.map(e => e.dataset.card)"
        )
        assert marked == [drew[2]]
        break
    else:
        raise AssertionError("the AI ended every hand before a second draw")


def test_the_best_discard_is_a_hint_off_by_default(site: str, tab: Page) -> None:  # noqa: F811
    player, match_id = new_match(site, "Alan", "hints")
    token = player["token"]
    view = to_my_discard(site, token, match_id)
    sign_in(tab, site, player)
    open_match(tab, site, match_id)
    # Off: no card is chosen for the player, no hint is shown, and D discards nothing.
    assert tab.query_selector("#hand .card.selected") is None
    assert tab.query_selector("[data-testid=best-discard]") is None
    assert not tab.is_checked("[data-testid=hints-toggle]")
    tab.keyboard.press("d")
    tab.wait_for_selector("#toast:not([hidden])")
    assert "Choose a card" in tab.inner_text("#toast")
    assert api_view(site, token, match_id)["version"] == view["version"]
    # On: the engine's best discard is chosen and named; the setting is remembered.
    tab.check("[data-testid=hints-toggle]")
    best, left = view["best_discard"]
    assert tab.get_attribute("#hand .card.selected", "data-card") == best
    assert f"leaving {left}" in tab.inner_text("[data-testid=best-discard]")
    tab.reload()
    tab.wait_for_selector("#hand .card.selected")
    assert tab.is_checked("[data-testid=hints-toggle]")
    # A match whose server sends no hints (no best discard; outside a defence there are
    # no suggested layoffs either, hints or not): nothing chosen, nothing named.
    tab.route(
        f"**/v1/matches/{match_id}",
        lambda route: route.fulfill(
            response=(resp := route.fetch()),
            json={
                **resp.json(),
                "view": {
                    **resp.json()["view"],
                    "best_discard": None,
                    "suggested_layoffs": None,
                    "hints": False,  # how a match dealt without hints says so
                },
            },
        ),
    )
    tab.route_web_socket("**/live*", lambda ws: ws.close())
    tab.reload()
    tab.wait_for_selector("#hand [data-card]")
    settle(tab)
    assert tab.query_selector("#hand .card.selected") is None
    assert tab.query_selector("[data-testid=best-discard]") is None
    assert tab.is_disabled("[data-testid=hints-toggle]")
    assert "off in this match" in tab.inner_text("#hand-tools")
    tab.keyboard.press("d")
    tab.wait_for_selector("#toast:not([hidden])")
    assert api_view(site, token, match_id)["version"] == view["version"]


def test_the_four_colour_deck_is_a_remembered_setting(site: str, tab: Page) -> None:  # noqa: F811
    player, match_id = new_match(site, "Edsger", "colours")
    to_my_discard(site, player["token"], match_id)
    sign_in(tab, site, player, {"sort": "suit"})
    open_match(tab, site, match_id)
    colour = "async (card) => getComputedStyle(document.querySelector(`#hand [data-card='${card}']`)).color"
    hand = shown_hand(tab)
    clubs = [c for c in hand if c[1] == "C"] or [None]
    diamonds = [c for c in hand if c[1] == "D"] or [None]
    before = [tab.evaluate(colour, c) for c in (clubs[0], diamonds[0]) if c]
    tab.check("[data-testid=four-colour-toggle]")
    after = [tab.evaluate(colour, c) for c in (clubs[0], diamonds[0]) if c]
    assert before and all(a != b for a, b in zip(before, after, strict=True)), (before, after)
    tab.reload()
    tab.wait_for_selector("#hand [data-card]")
    assert tab.evaluate("document.body.classList.contains('four-colour')")
