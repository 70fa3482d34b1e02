"""A table whose socket comes back far behind is caught up by a snapshot, and told so.

A socket that reconnects more than half its queue behind (``GINRUMMY_WS_QUEUE_SIZE``) is
sent a snapshot, not the events it missed. The page showed a settled snapshot silently:
the table said the match was over while the narration kept the last card move it had
told. It now says how the match ended, as it does for a match opened over. Real server (a
queue of 2 frames: two versions behind is far), real headless Chromium; the page's socket
stops hearing frames while the opponent moves and resigns over HTTP (a stalled link), then
drops and reconnects.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, WebSocket

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    run_until,
    served_site,
    settle,
    wait_until,
)
from tests.e2e.test_page_friends import joined, make_player, private_table
from tests.e2e.test_page_match_end import act, open_waiting, simple_move, waiting_and_acting
from tests.e2e.test_page_match_end_reopened import final_score, narration, view_of

# Each socket the page opens, kept; while ``__deaf`` the page hears none of its frames
# (the server still sends them: a link that has stalled).
DEAF_SOCKETS = r"""
(() => {
  const Real = window.WebSocket;
  window.__sockets = [];
  window.__deaf = false;
  window.WebSocket = class extends Real {
    constructor(url, protocols) {
      super(url, protocols);
      window.__sockets.push(this);
    }
    addEventListener(type, listener, options) {
      const heard = type === 'message' ? (event) => { if (!window.__deaf) listener(event); } : listener;
      super.addEventListener(type, heard, options);
    }
  };
})();
"""


@pytest.fixture(scope="module")
def short_queue_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served_site(tmp_path_factory.mktemp("far-behind"), GINRUMMY_WS_QUEUE_SIZE="2") as url:
        yield url


def frame_types(socket: WebSocket, into: list[str]) -> None:
    def heard(payload: str | bytes) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        with contextlib.suppress(ValueError):
            into.append(json.loads(text).get("type", ""))

    socket.on("framereceived", heard)


def test_a_socket_back_far_behind_a_settled_match_says_how_it_ended(
    short_queue_site: str,
    page: Page,  # noqa: F811
) -> None:
    site = short_queue_site
    page.add_init_script(DEAF_SOCKETS)
    frames: list[list[str]] = []
    page.on("websocket", lambda ws: (frames.append([]), frame_types(ws, frames[-1])))
    host, guest = make_player(site, "Una"), make_player(site, "Vic")
    match_id = joined(site, private_table(site, host, hints=True), guest)
    waiting, acting = waiting_and_acting(site, host, guest, match_id)
    open_waiting(page, site, waiting, match_id)
    wait_until(page, "window.__sockets.length === 1 && window.__sockets[0].readyState === 1")
    before = narration(page)

    page.evaluate("window.__deaf = true")
    act(site, acting, match_id, simple_move(view_of(site, acting, match_id), knock=False))
    act(site, acting, match_id, {"type": "resign"})
    view = view_of(site, waiting, match_id)
    assert narration(page) == before, "the page heard nothing meanwhile"

    page.evaluate("window.__deaf = false; window.__sockets[0].close()")
    page.wait_for_selector("body[data-phase=match_over] [data-testid=settlement]")
    settle(page)
    # The match's second socket (the page opens others once the match is over).
    assert "snapshot" in frames[1], f"caught up by a snapshot: {frames}"
    assert "event" not in frames[1], f"not by the events missed: {frames}"
    expected = f"You won the match ({acting['name']} resigned), {final_score(view)}."
    run_until(page, lambda: narration(page) == expected, 5000)  # once the claim is looked up
    assert narration(page) == expected, f"said before: {before!r}"
