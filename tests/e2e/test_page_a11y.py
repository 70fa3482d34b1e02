"""The table for a person who plays by keyboard alone, or with a screen reader.

In Debian's headless Chromium against a real server (the fixtures of test_page.py). What
a screen reader is given is read from the browser itself: accessible names and roles from
its accessibility tree (Playwright's ARIA snapshot and role locators), and what a live
region would announce from the changes made inside it (a MutationObserver records every
text added within an ``aria-live``, ``status``, ``alert`` or ``log`` region). Nothing is
clicked with the mouse where a keyboard player would press a key.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_knock_layout import SEED as LAYOUT_SEED
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    api_view,
    browser,
    page,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_layout import (
    act,
    advance_until,
    my_turn_to,
    new_match,
    open_match,
    sign_in,
    to_hand_over,
    to_my_discard,
)

SUITS = "♣♦♥♠"
RANK_WORDS = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

# Every text added inside a live region, as [region, text]: what a screen reader is told.
LIVE_RECORDER = """
window.__said = [];
const liveRegion = (node) => {
  const el = node.nodeType === 1 ? node : node.parentElement;
  return el && el.closest('[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log]');
};
document.addEventListener('DOMContentLoaded', () => new MutationObserver((records) => {
  for (const r of records) {
    const region = liveRegion(r.target);
    if (!region) continue;
    const added = r.type === 'characterData' ? r.target.textContent : [...r.addedNodes].map((n) => n.textContent).join('');
    if (added.trim()) window.__said.push([region.id || region.dataset.testid || region.className, added.trim()]);
  }
}).observe(document.body, { childList: true, subtree: true, characterData: true }));
"""


def spoken(card: str) -> str:
    """A card as a screen reader should say it: "seven of spades"."""
    return f"{RANK_WORDS[card[0]]} of {SUIT_WORDS[card[1]]}"


def said(tab: Page) -> list[list[str]]:
    entries: list[list[str]] = tab.evaluate("window.__said")
    return entries


def focused(tab: Page) -> dict[str, Any]:
    """The focused element: its data-testid and data-card, whether in the tour, on the table."""
    info: dict[str, Any] = tab.evaluate(
        "() => { const a = document.activeElement;"
        " return { testid: a.dataset.testid || null, card: a.dataset.card || null, tag: a.tagName,"
        " inTour: !!a.closest('[data-testid=tour]'), onTable: !!a.closest('#screen-table') }; }"
    )
    return info


def at_the_table(page: Page, site: str, name: str, seed: str) -> tuple[dict[str, Any], str]:  # noqa: F811
    """A new match against the easy AI, open on the page with the live recorder on."""
    player, match_id = new_match(site, name, seed)
    page.add_init_script(LIVE_RECORDER)
    sign_in(page, site, player, {"tourSeen": True})
    return player, match_id


def test_cards_and_keys_are_named_in_words(site: str, page: Page) -> None:  # noqa: F811
    """The accessibility tree of the table names every card in words: the pile, the
    action buttons, the narration; no suit symbol is left to be read as "black spade
    suit", and a button's name is not run into its key ("PassX")."""
    player, match_id = at_the_table(page, site, "Nia", "a11y-names")
    view = advance_until(
        site,
        player["token"],
        match_id,
        lambda v: v["phase"] == "draw" and 0 in v["to_act"],
        ("pass_up_card", "draw_stock", "discard"),
    )
    open_match(page, site, match_id)
    tree = page.locator("#screen-table").aria_snapshot()
    assert not any(suit in tree for suit in SUITS), tree
    top = view["discard_pile"][-1]
    pile = page.get_by_role("button", name=f"Discard pile, {spoken(top)} on top: take it")
    assert pile.count() == 1, tree
    assert page.get_by_role("button", name="Draw from stock", exact=True).count() == 1, tree
    assert page.get_by_role("button", name="Take from pile", exact=True).count() == 1, tree
    assert (
        page.get_by_role("button", name="Draw from stock").get_attribute("aria-keyshortcuts") == "S"
    )

    page.keyboard.press("s")
    wait_until(page, "document.body.dataset.phase === 'discard'")
    settle(page)
    drawn = api_view(site, player["token"], match_id)["moves"][-1][2]
    assert page.locator("#narration").get_by_role("img", name=spoken(drawn)).count() == 1
    page.keyboard.press("ArrowRight")
    chosen = page.get_attribute("#hand .card.selected", "data-card")
    assert chosen
    discard = page.get_by_role("button", name=f"Discard {spoken(chosen)}", exact=True)
    assert discard.count() == 1, page.locator("#actions").aria_snapshot()
    tree = page.locator("#screen-table").aria_snapshot()
    assert not any(suit in tree for suit in SUITS), tree
    # The score is said with its words: "0 points, 0 boxes", not "0 0 boxes".
    score = page.locator("[data-testid=pill-me]").aria_snapshot()
    assert "0 points, 0 boxes" in " ".join(score.split()), score


def test_the_live_regions_say_each_thing_once(site: str, page: Page) -> None:  # noqa: F811
    """Choosing a card with the arrows announces nothing (the turn line was written
    anew, and read again, at every key), and going on to the next hand does not read the
    last hand's whole result out again (it was a live region, redrawn at every step)."""
    player, match_id = at_the_table(page, site, "Lev", "a11y-live")
    to_my_discard(site, player["token"], match_id)
    open_match(page, site, match_id)
    page.evaluate("window.__said = []")
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    page.wait_for_timeout(200)
    assert said(page) == []

    over = to_hand_over(site, player["token"], match_id)
    assert over["phase"] == "hand_over"
    # The page is at this match already (a goto to the same address would not reload
    # it), and at the hand's end its hand may be drawn empty: wait for the result itself.
    page.reload()
    page.wait_for_selector("body[data-phase=hand_over] [data-testid=hand-result]")
    settle(page)
    headline = page.inner_text("[data-testid=result-headline]")
    page.evaluate("window.__said = []")
    page.keyboard.press("n")
    wait_until(page, "document.body.dataset.phase !== 'hand_over'")
    settle(page)
    told = said(page)
    assert told, "the next hand is told"
    assert not [entry for entry in told if "Deadwood" in entry[1] or headline in entry[1]], told


def test_a_refusal_is_said_through_a_region_always_there(site: str, page: Page) -> None:  # noqa: F811
    """A toast came from a hidden element, shown with its words already in: a screen
    reader was never told. The words now go to a live region that is rendered before."""
    player, match_id = at_the_table(page, site, "Ros", "a11y-toast")
    advance_until(site, player["token"], match_id, my_turn_to("draw"), ("pass_up_card", "discard"))
    open_match(page, site, match_id)
    rendered = (
        "el => !!el && getComputedStyle(el).display !== 'none' && el.getClientRects().length > 0"
    )
    assert page.evaluate(f"({rendered})(document.querySelector('#said'))")
    page.keyboard.press("d")  # nothing drawn yet: the page says why
    page.wait_for_selector("#toast:not([hidden])")
    assert "Draw first" in page.inner_text("#said")
    assert ["said", page.inner_text("#toast")] in [[r, t] for r, t in said(page)]


def test_a_control_used_from_the_keyboard_keeps_the_focus(site: str, page: Page) -> None:  # noqa: F811
    """A Sort button, a tick box or Resign pressed from the keyboard keeps the focus
    (the table is redrawn under it: focus went to a card, and the player lost their place)."""
    player, match_id = at_the_table(page, site, "Kit", "a11y-focus")
    to_my_discard(site, player["token"], match_id)
    open_match(page, site, match_id)
    page.focus("[data-testid=sort-rank]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=sort-rank][aria-pressed=true]")
    assert focused(page)["testid"] == "sort-rank"
    page.focus("[data-testid=four-colour-toggle]")
    page.keyboard.press("Space")
    wait_until(page, "document.body.classList.contains('four-colour')")
    assert focused(page)["testid"] == "four-colour-toggle"
    page.focus("[data-testid=resign]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=resign-confirm]")
    assert focused(page)["testid"] == "resign-confirm"


def test_the_knock_layout_is_chosen_with_the_arrow_keys(site: str, page: Page) -> None:  # noqa: F811
    """The layouts are radio buttons: one Tab stop, the arrows choose among them (they
    chose another card to discard instead), and the knock lays the one chosen."""
    player, match_id = at_the_table(page, site, "Lux", LAYOUT_SEED)
    token = player["token"]
    view = act(site, token, match_id, {"type": "take_up_card"})
    (option,) = [o for o in view["knock_layouts"] if o["discard"] == "9C"]
    other = option["layouts"][1]["melds"]
    open_match(page, site, match_id)
    page.focus("#hand [data-card='9C']")
    page.keyboard.press("Enter")  # chooses the card
    page.wait_for_selector("[data-testid=knock-layouts]")
    radios = page.locator("[data-testid=knock-layout]")
    assert [radios.nth(i).get_attribute("tabindex") for i in range(2)] == ["0", "-1"]
    page.focus("[data-testid=discard]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.layout") == "0"
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("[data-testid=knock-layout][aria-checked=true][data-layout='1']")
    assert page.evaluate("document.activeElement.dataset.layout") == "1"
    assert page.get_attribute("#hand .card.selected", "data-card") == "9C"
    page.keyboard.press("Tab")
    assert focused(page)["testid"] == "knock"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=hand-result]")
    events = httpx.get(
        f"{site}/v1/matches/{match_id}/events?after=0&limit=1000",
        headers={"Authorization": f"Bearer {token}"},
    ).json()["events"]
    knocked = next(e["event"] for e in events if e["event"]["type"] == "knocked")
    assert knocked["melds"] == other and knocked["discard"] == "9C"


def test_the_tour_takes_the_keyboard_and_gives_it_back(site: str, page: Page) -> None:  # noqa: F811
    """A first match dealt from the keyboard: the tour's dialog has the focus (it came
    unannounced above the table), its words describe it, and Escape closes it, the focus
    back on the table."""
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.focus("#name")
    page.keyboard.type("Tia")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=tour]")
    settle(page)
    wait_until(page, "!!document.activeElement.closest('[data-testid=tour]')")
    described = page.evaluate(
        "document.getElementById(document.querySelector('[data-testid=tour]')"
        ".getAttribute('aria-describedby')).textContent"
    )
    assert described.startswith("1 of 4.")
    page.keyboard.press("Enter")  # Next
    page.wait_for_selector("[data-testid=tour-step][data-step='2']")
    assert focused(page)["inTour"]
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=tour]", state="detached")
    where = focused(page)
    assert where["onTable"] and not where["inTour"], where


def test_a_hand_is_played_with_the_keyboard_alone(site: str, page: Page) -> None:  # noqa: F811
    """Name, deal, the up-card, draws, discards, a knock or the layoffs, and the result
    read from the accessibility tree: every step with a key, none with the mouse."""
    page.add_init_script(LIVE_RECORDER)
    page.goto(f"{site}/?delay={DELAY_MS}")
    page.evaluate("localStorage.setItem('ginrummy.prefs', JSON.stringify({tourSeen: true}))")
    page.reload()
    for _ in range(40):  # Tab to the name field, as a keyboard player would
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "name":
            break
    else:
        raise AssertionError("the name field is not reached with Tab")
    page.keyboard.type("Kai")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-screen=table]")
    for _ in range(300):
        settle(page)
        phase = page.get_attribute("body", "data-phase")
        if phase in ("hand_over", "match_over"):
            break
        if page.get_attribute("body", "data-my-turn") != "true":
            page.wait_for_timeout(50)
            continue
        version = page.get_attribute("body", "data-version")  # before the key: it may be quick
        if phase == "up_card":
            page.keyboard.press("x")
        elif phase == "draw":
            page.keyboard.press("s")
        elif phase == "discard":
            if not page.query_selector("#hand .card.selected"):
                page.keyboard.press("ArrowRight")
            enabled = page.eval_on_selector_all(
                "#actions button:not([disabled])", "els => els.map(e => e.dataset.testid)"
            )
            # Out when the chosen card goes out (a discard that gives up a gin or knock asks).
            keys = {"big-gin": "b", "gin": "g", "knock": "k"}
            page.keyboard.press(next((keys[t] for t in keys if t in enabled), "d"))
        elif phase == "layoff":
            page.keyboard.press("f")
        wait_until(page, f"document.body.dataset.version !== '{version}'")
    else:
        raise AssertionError("the hand did not end")
    settle(page)
    view = api_view(
        site,
        *page.evaluate(
            "[JSON.parse(localStorage.getItem('ginrummy.player')).token,"
            " localStorage.getItem('ginrummy.match')]"
        ),
    )
    tree = page.locator("#screen-table").aria_snapshot()
    assert f"{view['scores'][0]} points" in tree, tree
    result = page.locator("[data-testid=hand-result]").aria_snapshot()
    assert "heading" in result and not any(suit in result for suit in SUITS), result
    # The moves were told as they came: the opponent's included.
    assert any(entry[0] == "narration" for entry in said(page))
    assert focused(page)["onTable"], focused(page)  # the keyboard is still at the table
