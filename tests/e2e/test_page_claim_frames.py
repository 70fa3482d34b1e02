"""The page learns of a claim from its match socket: it asks ``GET …/claim`` at most once,
as it opens a match the opponent keeps waiting, never again.

The page once asked again and again (every half grace) while the opponent kept it
waiting, and each ask in flight as the opponent's deciding move landed came back 422.
Here the opponent leaves, comes back, and leaves for good, and the page follows each step
(the offer shown, taken back, shown again, then made and accepted) without asking.
Real server (a short absence grace), real headless Chromium.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from playwright.sync_api import Browser, Page, Request

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    page,
    settle,
)
from tests.e2e.test_page_claim import GRACE_S, meet_at_a_table, site  # noqa: F401  (fixture)
from tests.e2e.test_page_lobby import pages  # noqa: F401  (fixture)

CLAIM_STATUS = re.compile(r"/v1/matches/[^/]+/claim$")


def test_the_page_follows_the_opponents_presence_without_asking(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    first, second, _ = pages
    asked: dict[str, int] = {}  # by page: each opens the match once

    def counting(name: str) -> Callable[[Request], None]:
        def count(request: Request) -> None:
            if request.method == "GET" and CLAIM_STATUS.search(request.url.split("?")[0]):
                asked[name] = asked.get(name, 0) + 1

        return count

    for name, tab in (("first", first), ("second", second)):
        tab.on("request", counting(name))
    leaver, stayer = meet_at_a_table(first, second, site, ("Ada", "Bob"))
    leaver_player = leaver.evaluate("localStorage.getItem('ginrummy.player')")
    leaver_name = json.loads(leaver_player)["name"]
    match_id = stayer.evaluate("localStorage.getItem('ginrummy.match')")
    stayer.wait_for_timeout((GRACE_S + 1.5) * 1000)  # there, though slow: no offer
    assert stayer.query_selector("[data-testid=claim]") is None
    leaver.context.close()
    notice = stayer.wait_for_selector("[data-testid=claim-notice]")
    assert f"{leaver_name} seems to be away" in notice.inner_text()  # type: ignore[union-attr]

    # It comes back (a new tab of the same player, at the table): the offer goes.
    context = browser.new_context(viewport={"width": 1000, "height": 860})
    back = context.new_page()
    back.set_default_timeout(TIMEOUT_MS)
    back.on("request", counting("back"))
    back.goto(f"{site}/")
    back.evaluate("p => localStorage.setItem('ginrummy.player', p)", leaver_player)
    back.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    back.wait_for_selector("body[data-screen=table]")
    stayer.wait_for_selector("[data-testid=claim-notice]", state="detached")
    assert stayer.query_selector("[data-testid=claim]") is None

    context.close()  # and leaves for good: the offer is back, and the claim is accepted
    stayer.wait_for_selector("[data-testid=claim-notice]")
    stayer.click("[data-testid=claim]")
    stayer.wait_for_selector("body[data-phase=match_over]")
    claimed = stayer.wait_for_selector("[data-testid=settlement-claimed]").inner_text()  # type: ignore[union-attr]
    assert claimed.startswith(f"You claimed the match: {leaver_name} was away"), claimed
    assert stayer.is_hidden("#toast"), stayer.inner_text("#toast")
    stayer.wait_for_timeout(1000)  # anything still to ask after the end would be asked now
    assert all(n <= 1 for n in asked.values()), f"GET …/claim asked, by page: {asked}"


# The opponent left at the end of a hand, we acknowledged it (a new version), and the
# server, whose ``claim_at_ms`` that did not move, says only ``claimable`` for it.
AWAY_THEN_ACKNOWLEDGED = """async () => {
  const { game } = await import('/js/matchstate.js');
  const { presenceFrame, watchClaim } = await import('/js/claimwatch.js');
  const { claimOffer } = await import('/js/claim.js');
  const view = (version) => ({ version, phase: 'hand_over', seat: 0, to_act: [1],
                               players: ['Ada', 'Bob'], clock: null });
  const now = Date.now();
  Object.assign(game, { view: null, claimStatus: null, againstHouse: false });
  presenceFrame({ type: 'opponent_away', match_id: 'm', version: 7, now_ms: now,
                  seen_ms: now - 90000, claim_at_ms: now + 30000 });
  watchClaim(view(8));
  presenceFrame({ type: 'claimable', match_id: 'm', version: 8, now_ms: now, reason: 'absence' });
  return claimOffer(view(8), { againstHouse: false, status: game.claimStatus, now });
}"""


def test_an_absence_said_before_a_new_version_still_dates_the_offer(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The server says ``opponent_away`` again only when its ``claim_at_ms`` changes, so
    the page keeps it over a new view while the opponent is still to act: the offer says
    how long it has been away (here 90 s), not "0 s" as when the page dropped it."""
    page.goto(f"{site}/")
    offer = page.evaluate(AWAY_THEN_ACKNOWLEDGED)
    assert offer == "Bob seems to be away: not connected for 90 s.", offer
