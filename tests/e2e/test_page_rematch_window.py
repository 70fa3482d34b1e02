"""The rematch stream is held for 10 minutes after the match's own end, not the page's.

At a match's end against a person the page follows the player stream (WS /v1/me/live)
for the rematch, and an open stream counts as present in the player's other matches, so
it is held only for 10 minutes after the end. Those 10 minutes began when the page saw
the match over: a match opened from History days after it ended was followed for 10
minutes too. The window now starts at the match's ``finished_at_ms`` (its answer, GET
/v1/matches/{id}). Here that answer is rewritten to say the match ended longer ago than
it did; the rest is a real server and headless
Chromium, on Playwright's clock.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

from playwright.sync_api import Page, Route

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    pass_page_time,
    run_until,
    site,
)
from tests.e2e.test_page_friends import make_player, resigned_match, signed_in
from tests.e2e.test_page_match_end import page  # noqa: F401 (a tab on Playwright's clock)
from tests.e2e.test_page_rematch_live import SHOWN_WITHIN_MS, asks_of, streams_of


def ended_ago(page: Page, match_id: str, ago: timedelta) -> list[int]:  # noqa: F811
    """The page's next answer for ``match_id`` says it finished ``ago`` before it was sent
    (on the server's clock); gives the ``finished_at_ms`` so rewritten."""
    said: list[int] = []

    def rewrite(route: Route) -> None:
        answer = route.fetch()
        body = answer.json()
        body["finished_at_ms"] = body["now_ms"] - int(ago.total_seconds() * 1000)
        said.append(body["finished_at_ms"])
        route.fulfill(response=answer, body=json.dumps(body))

    # Once: the page reads when the match ended as it opens it. A handler left in place
    # fetched every later read too, inside the page's clock runs (one timed out in CI).
    page.route(re.compile(rf"/v1/matches/{match_id}$"), rewrite, times=1)
    return said


def reopened(
    page: Page,  # noqa: F811
    site: str,  # noqa: F811
    names: tuple[str, str],
    ago: timedelta,
) -> tuple[list[int], list[str]]:
    """A match between two friends that the second resigned, opened on the first's page
    once its answer says it ended ``ago``. Gives the ``finished_at_ms`` the page was told and
    its asks of the challenges (the rematch watch's, each of which follows the stream
    again if it may), as they come."""
    host, guest = make_player(site, names[0]), make_player(site, names[1])
    match_id = resigned_match(site, host, guest)
    said = ended_ago(page, match_id, ago)
    asked = asks_of(page)
    signed_in(page, site, host)
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-phase=match_over] [data-testid=settlement]")
    run_until(page, lambda: bool(said), SHOWN_WITHIN_MS)  # the page reads when it ended
    return said, asked


def test_a_match_that_ended_over_ten_minutes_ago_opens_no_stream(site: str, page: Page) -> None:  # noqa: F811
    streams = streams_of(page)
    said, asked = reopened(page, site, ("Olga Old", "Pete Old"), timedelta(minutes=11))
    # The rematch watch asks at once, then every 15 s once the end is read (the window is
    # over), and each ask follows again if it may: two more asks after the end was read.
    before = len(asked)
    pass_page_time(page, 31_000, lambda: len(asked) >= before + 2, step_ms=500)
    assert len(asked) >= before + 2, "the rematch watch still asks"
    assert streams == [], "a match over for 11 minutes is not followed"
    assert said, "as the match's answer says it ended"


def test_a_match_that_ended_nine_minutes_ago_is_followed_for_the_last_minute(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    streams = streams_of(page)
    reopened(page, site, ("Rhea Recent", "Sid Recent"), timedelta(minutes=9, seconds=30))
    run_until(page, lambda: len(streams) == 1, SHOWN_WITHIN_MS)
    assert len(streams) == 1, "a match over for 9.5 minutes is followed"
    assert not streams[0].is_closed()
    # 40 s of the page's time: past the window's end, 30 s on (and past the next ask
    # of the rematch watch, 15 s on), where the page's own 10 minutes were not.
    page.clock.run_for(40_000)
    run_until(page, streams[0].is_closed, SHOWN_WITHIN_MS)
    assert streams[0].is_closed(), "the stream is closed 10 minutes after the match's end"
    assert len(streams) == 1, "and not opened again"


# Page time counted over, and the most reads of the challenges in it at the 15 s pace: the
# rematch watch's and the challenge notice's (challengenotice.js, off the lobby), each one
# more for an ask due as the count starts; the rematch watch alone asked 30 times.
COUNTED_MS = 60_000
SELDOM_ASKS = 2 * (COUNTED_MS // 15_000 + 1)


def test_a_match_over_long_ago_is_asked_for_its_rematch_seldom(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """No stream, and no window to make up for: the rematch watch asks every 15 s (the
    server still takes an offer of a match long over, so it asks), not every 2 s."""
    _, asked = reopened(page, site, ("Vera Old", "Walt Old"), timedelta(minutes=11))
    pass_page_time(page, 1_000, step_ms=500)  # the end read, the first ask answered
    before = len(asked)
    pass_page_time(page, COUNTED_MS, step_ms=500)
    assert 0 < len(asked) - before <= SELDOM_ASKS, f"{len(asked) - before} asks in a minute"


def test_the_rematch_watch_asks_seldom_once_the_window_is_over(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Followed for the window's last 30 s; once it is over the stream closes and the
    rematch watch goes on asking every 15 s, not every 2 s for as long as it is shown."""
    streams = streams_of(page)
    _, asked = reopened(page, site, ("Xena Late", "Yuri Late"), timedelta(minutes=9, seconds=30))
    run_until(page, lambda: len(streams) == 1, SHOWN_WITHIN_MS)
    assert len(streams) == 1, "a match over for 9.5 minutes is followed"
    pass_page_time(page, 40_000, streams[0].is_closed, step_ms=500)
    run_until(page, streams[0].is_closed, SHOWN_WITHIN_MS)
    assert streams[0].is_closed(), "the stream is closed 10 minutes after the match's end"
    before = len(asked)
    pass_page_time(page, COUNTED_MS, step_ms=500)
    assert 0 < len(asked) - before <= SELDOM_ASKS, f"{len(asked) - before} asks in a minute"
    assert len(streams) == 1, "and the stream is not opened again"
