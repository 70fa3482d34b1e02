"""The page's countdown is the server's, whatever the computer's clock says.

The view's clock gives deadlines on the server's clock. The page subtracted its own
``Date.now()`` from them, so a player whose computer ran 30 s fast was shown 30 s less
than they had (and one 30 s slow, 30 s more, then lost the turn at "30 s"). Here the
page's ``Date`` is shifted by an init script; the time shown must still be the server's
(the server runs on this machine: its time is this test's ``time.time()``).
"""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    browser,
    page,
    site,
    wait_until,
)

PER_MOVE_MS = 60_000
TOLERANCE_S = 2.5  # the display's whole seconds, a tick of 250 ms, and a busy machine

SKEWED_DATE = """
(() => {
  const skew = %d;
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + skew);
      else super(...args);
    }
    static now() { return realNow() + skew; }
  }
  globalThis.Date = SkewedDate;
})();
"""


def shown_seconds(text: str, prefix: str) -> int:
    found = re.match(rf"{prefix} time: (?:(\d+):(\d\d)|(\d+) s)", text)
    assert found, text
    minutes, seconds, plain = found.groups()
    return int(plain) if plain is not None else int(minutes) * 60 + int(seconds)


def servers_seconds_left(base: str, headers: dict[str, str], match_id: str) -> float:
    clock = httpx.get(f"{base}/v1/matches/{match_id}", headers=headers).json()["view"]["clock"]
    return float(clock["deadline_ms"] / 1000 - time.time())


@pytest.mark.parametrize("skew_s", [30, -30])
def test_a_skewed_computer_clock_shows_the_servers_time_left(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    skew_s: int,
) -> None:
    player = httpx.post(f"{site}/v1/players", json={"name": "Skewed"}).json()
    headers = {"Authorization": f"Bearer {player['token']}"}
    started = httpx.post(
        f"{site}/v1/matches", json={"clock": {"per_move_ms": PER_MOVE_MS}}, headers=headers
    )
    assert started.status_code == 201, started.text
    match_id = started.json()["match_id"]
    page.add_init_script(SKEWED_DATE % (skew_s * 1000))
    page.goto(f"{site}/")
    assert abs(page.evaluate("Date.now()") / 1000 - time.time() - skew_s) < 2  # it is skewed
    saved = {"id": player["id"], "name": player["name"], "token": player["token"]}
    page.evaluate(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(saved))})")

    page.goto(f"{site}/?delay=0#/match/{match_id}")
    page.wait_for_selector("#clock:not([hidden])")
    shown = shown_seconds(page.inner_text("#clock"), "Your")
    left = servers_seconds_left(site, headers, match_id)
    assert abs(shown - left) <= TOLERANCE_S, (skew_s, shown, left)

    # a move made elsewhere: its view, and the clock's next deadline, come by the socket
    answer = httpx.get(f"{site}/v1/matches/{match_id}", headers=headers).json()
    legal = answer["view"]["legal"][0]
    action = {k: v for k, v in legal.items() if k != "seat" and v is not None}
    body = {"action": action, "version": answer["version"]}
    acted = httpx.post(f"{site}/v1/matches/{match_id}/actions", json=body, headers=headers)
    assert acted.status_code == 200, acted.text
    wait_until(page, f"document.body.dataset.version === '{acted.json()['version']}'")
    page.wait_for_timeout(1500)  # and it keeps counting on its own
    shown = shown_seconds(page.inner_text("#clock"), "Your")
    left = servers_seconds_left(site, headers, match_id)
    assert abs(shown - left) <= TOLERANCE_S, (skew_s, shown, left)

    page.goto(f"{site}/#/watch/{match_id}")  # a spectator's page: the same clock
    page.wait_for_selector("[data-testid=watch-clock]:not([hidden])")
    shown = shown_seconds(page.inner_text("[data-testid=watch-clock]"), "Skewed's")
    left = servers_seconds_left(site, headers, match_id)
    assert abs(shown - left) <= TOLERANCE_S, (skew_s, shown, left)
