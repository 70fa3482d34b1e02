"""A rematch offer states its terms before it is accepted.

The rematch of a match is a new match under terms the server sets (the rules, rated or
not, the clock, raised to today's floor): the player offered one saw only "Fay offers a
rematch" and learned the clock once it ran. In real Chromium against a real server (the
fixtures of test_page.py); the terms shown are the offer's own, as GET …/rematch gives
them to the player offered it.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated  # noqa: F401


def test_the_rematch_offered_says_its_rules_rating_and_clock_before_it_is_accepted(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    fay, gus, _ = pages
    enter_lobby(fay, site, "Fay Terms")
    fay.select_option("[data-testid=table-clock]", "bank-5-5")
    assert fay.is_checked("[data-testid=table-rated]")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(gus, site, "Gus Terms")
    gus.click("[data-testid=open-tables] li:has-text('Fay Terms') [data-testid=join]")
    seated(fay, gus)
    gus.click("[data-testid=resign]")
    gus.click("[data-testid=resign-confirm]")
    for tab in (fay, gus):
        tab.wait_for_selector("body[data-phase=match_over]")
    fay.click("[data-testid=rematch]")
    offer = gus.wait_for_selector("[data-testid=rematch-offer]")
    assert offer is not None
    words = offer.inner_text()
    assert "Fay Terms offers a rematch" in words
    assert "arcadia to 100 · rated · 5 min each + 5 s a move" in words, words
    # What a screen reader is given: Accept is described by the terms it accepts.
    accept = gus.get_by_role("button", name="Accept the rematch")
    described = accept.evaluate(
        "b => (b.getAttribute('aria-describedby') || '').split(' ')"
        ".map((id) => document.getElementById(id)?.textContent || '').join(' ')"
    )
    assert "rated · 5 min each + 5 s a move" in described, described
    # and the narration (a live region) says them with the offer
    assert "rated · 5 min each + 5 s a move" in gus.inner_text("[data-testid=narration]")


def test_your_own_rematch_offer_says_its_terms_while_it_waits(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    # The side that offers saw only "Rematch offered: waiting…", and learned the clock
    # the server set (raised to today's floor, maybe) only once the match began.
    fay, gus, _ = pages
    enter_lobby(fay, site, "Fay Offers")
    fay.select_option("[data-testid=table-clock]", "bank-5-5")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(gus, site, "Gus Offered")
    gus.click("[data-testid=open-tables] li:has-text('Fay Offers') [data-testid=join]")
    seated(fay, gus)
    gus.click("[data-testid=resign]")
    gus.click("[data-testid=resign-confirm]")
    for tab in (fay, gus):
        tab.wait_for_selector("body[data-phase=match_over]")
    fay.click("[data-testid=rematch]")
    mine = fay.wait_for_selector("[data-testid=rematch-mine]")
    assert mine is not None
    words = mine.inner_text()
    assert "You offered a rematch" in words and "Gus Offered" in words, words
    assert "arcadia to 100 · rated · 5 min each + 5 s a move" in words, words
    # the waiting button is described by the terms offered, and the narration says them
    waiting = fay.get_by_role("button", name="Rematch offered: waiting…")
    described = waiting.evaluate(
        "b => (b.getAttribute('aria-describedby') || '').split(' ')"
        ".map((id) => document.getElementById(id)?.textContent || '').join(' ')"
    )
    assert "rated · 5 min each + 5 s a move" in described, described
    assert "rated · 5 min each + 5 s a move" in fay.inner_text("[data-testid=narration]")
