"""A lobby read that changes nothing leaves its lists as they are (js/keepfocus.js).

The lobby reads its lists every 5 s and drew each of them anew at every read: a Join or
Cancel pressed just as a read came was lost (the press on the old button, the release
on the new one), and the page rebuilt every row for nothing. In real Chromium against a
real server (the fixtures of test_page.py).
"""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import FloatRect, Page

from tests.e2e.test_page import browser, run_until, site  # noqa: F401 (fixtures)
from tests.e2e.test_page_lobby import enter_lobby, pages, token_of  # noqa: F401

JOIN = "[data-testid=open-tables] li:has-text('Ada Stays') [data-testid=join]"
CANCEL = "[data-testid=my-table] [data-testid=cancel-table]"
MARK = "button => { button.drawnBefore = true; }"  # a property: not in the page's markup
STILL_THERE = "button => button.drawnBefore === true"


def test_a_read_that_changes_nothing_keeps_the_buttons_shown(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada, bob, _ = pages
    enter_lobby(ada, site, "Ada Stays")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector(CANCEL)
    enter_lobby(bob, site, "Bob Stays")
    bob.wait_for_selector(JOIN)
    bob.locator(JOIN).evaluate(MARK)
    ada.locator(CANCEL).evaluate(MARK)
    reads: dict[str, list[str]] = {"ada": [], "bob": []}
    for name, tab in (("ada", ada), ("bob", bob)):
        tab.on(
            "request",
            lambda r, name=name: reads[name].append(r.url) if "/v1/challenges" in r.url else None,
        )
    # Two more reads on each page: the first was answered and drawn before the second
    # went out, 5 s later. (Bob's open tables are drawn from his list socket's frames
    # while it is open, not from reads: the second table below is what redraws them.)
    run_until(bob, lambda: min(len(each) for each in reads.values()) >= 2, 15_000)
    assert min(len(each) for each in reads.values()) >= 2, reads
    assert bob.locator(JOIN).evaluate(STILL_THERE), "Bob's Join was drawn again"
    assert ada.locator(CANCEL).evaluate(STILL_THERE), "Ada's Cancel was drawn again"
    # A list that changes is drawn again, its rows that did not change kept: Ada's second
    # table comes to Bob above her first, whose Join stays the button it was.
    first = bob.locator(JOIN).evaluate("button => button.closest('li').dataset.table")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector("[data-testid=my-table] >> nth=1")
    bob.wait_for_selector(f"{JOIN} >> nth=1")
    kept = f"[data-testid=open-tables] li[data-table='{first}'] [data-testid=join]"
    assert bob.locator(kept).evaluate(STILL_THERE), "Bob's first Join was drawn again"


def test_a_join_held_down_as_another_table_goes_still_joins(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """The press and the release of a Join with a list frame between them (another
    table, below it, taken away): the click is not lost. A kept row taken out of the
    list and put back, as replaceChildren does, lost it as a new row did."""
    ada, bob, _ = pages
    enter_lobby(ada, site, "Ada Pressed")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector(CANCEL)
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector(f"{CANCEL} >> nth=1")
    enter_lobby(bob, site, "Bob Pressed")
    rows = "[data-testid=open-tables] li:has-text('Ada Pressed')"
    bob.wait_for_selector(f"{rows} >> nth=1")
    box = bob.locator(f"{rows} >> nth=0 >> [data-testid=join]").bounding_box()
    assert box
    bob.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    bob.mouse.down()
    ada.locator(CANCEL).first.click()  # her first table, below the newest in Bob's list
    run_until(bob, lambda: bob.locator(rows).count() == 1, 15_000)
    assert bob.locator(rows).count() == 1
    bob.mouse.up()
    bob.wait_for_selector("body[data-screen=table]")


@pytest.mark.parametrize("scrolled", [0, 420], ids=["at-the-top", "scrolled"])
def test_a_join_under_the_mouse_stays_there_as_rows_come_above_it(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
    scrolled: int,
) -> None:
    """A challenge arriving above the open tables, a table opened above the one Bob points
    at, and his own table opened elsewhere ("Your table", above them all) move nothing
    under his mouse: the page scrolls by what they add
    (js/keeppointer.js). They moved his Join a row down each, and a press just then
    landed on what had come under the pointer. Also with the page scrolled so far that
    the challenges are above the window, where Chromium's own scroll anchoring acts too:
    the two must not both scroll."""
    ada, bob, _ = pages
    enter_lobby(ada, site, f"Ada Aimed {scrolled}")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector(CANCEL)
    enter_lobby(bob, site, f"Bob Aiming {scrolled}")
    join = f"[data-testid=open-tables] li:has-text('Ada Aimed {scrolled}') [data-testid=join]"
    bob.wait_for_selector(join)
    bob.evaluate(f"() => window.scrollTo(0, {scrolled})")
    box = bob.locator(join).bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    bob.mouse.move(x, y)
    under = (
        "([x, y]) => (document.elementFromPoint(x, y).closest('li') || {dataset: {}}).dataset.table"
    )
    table = bob.locator(join).evaluate("button => button.closest('li').dataset.table")

    me = httpx.get(f"{site}/v1/me", headers={"Authorization": f"Bearer {token_of(bob)}"}).json()
    cy = httpx.post(f"{site}/v1/players", json={"name": f"Cy Sends {scrolled}"}).json()
    sent = httpx.post(
        f"{site}/v1/challenges",
        json={"to": me["id"]},
        headers={"Authorization": f"Bearer {cy['token']}"},
    )
    assert sent.status_code == 201, sent.text
    bob.wait_for_selector("[data-testid=incoming] li")
    assert bob.evaluate(under, [x, y]) == table, "a challenge moved the Join Bob points at"
    assert _moved(bob.locator(join).bounding_box(), box) < 1  # a scroll lands on whole pixels

    ada.click("[data-testid=open-table]")  # listed above her first
    bob.wait_for_selector(f"[data-testid=open-tables] li:has-text('Ada Aimed {scrolled}') >> nth=1")
    assert bob.evaluate(under, [x, y]) == table, "a new table moved the Join Bob points at"
    assert (
        _moved(bob.locator(f"li[data-table='{table}'] [data-testid=join]").bounding_box(), box) < 1
    )

    # Bob's own table, opened elsewhere (another tab, a script): "Your table" shows above.
    mine = httpx.post(
        f"{site}/v1/tables", json={}, headers={"Authorization": f"Bearer {token_of(bob)}"}
    )
    assert mine.status_code == 201, mine.text
    bob.wait_for_selector("[data-testid=my-table]")
    assert bob.evaluate(under, [x, y]) == table, "Bob's own table moved the Join he points at"
    assert (
        _moved(bob.locator(f"li[data-table='{table}'] [data-testid=join]").bounding_box(), box) < 1
    )
    assert bob.evaluate("() => scrollY") > scrolled  # the page made the room, not the rows


def _moved(now: FloatRect | None, before: FloatRect) -> float:
    assert now
    return abs(now["x"] - before["x"]) + abs(now["y"] - before["y"])
