"""The page holds one player stream, so the server's presence frames reach it once.

Two parts of the page follow the player stream (WS /v1/me/live): the lobby, which holds
it off the lobby while a table of the player's waits (its match opens wherever the
player is), and the table at the end of a match against a person (the rematch). Each
opened a socket of its own: a match that ended while a table of ours waited left the
page with two streams, and the server, rightly, said everything on each, so each
presence frame of the player's other matches (``opponent_away``, ``claimable``), and
each challenge, reached the page twice. The server sends each once a stream; the page
now shares one stream between its followers (playerstream.js). Real server, real
headless Chromium; the others play over HTTP.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.sync_api import Page, WebSocket

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    run_until,
    settle,
    site,
)
from tests.e2e.test_page_friends import auth, joined, make_player, private_table, signed_in
from tests.e2e.test_page_match_end import act, simple_move, waiting_and_acting
from tests.e2e.test_page_rematch_live import SHOWN_WITHIN_MS


class PlayerStreams:
    """Every player stream the page opens, and the frames each receives (pings aside)."""

    def __init__(self, page: Page) -> None:  # noqa: F811
        self.sockets: list[WebSocket] = []
        self.frames: list[tuple[int, dict[str, Any]]] = []
        page.on("websocket", self._opened)

    def _opened(self, socket: WebSocket) -> None:
        if not socket.url.endswith("/v1/me/live"):
            return
        n = len(self.sockets)
        self.sockets.append(socket)
        socket.on("framereceived", lambda payload: self._heard(n, payload))

    def _heard(self, n: int, payload: str | bytes) -> None:
        frame = json.loads(payload)
        if frame.get("type") != "ping":
            self.frames.append((n, frame))

    def of(self, kind: str, match_id: str | None = None) -> list[tuple[int, dict[str, Any]]]:
        return [
            (n, f)
            for n, f in self.frames
            if f["type"] == kind and (match_id is None or f.get("match_id") == match_id)
        ]

    def open(self) -> list[WebSocket]:
        return [s for s in self.sockets if not s.is_closed()]


def test_a_match_ending_while_a_table_waits_leaves_one_stream_and_each_frame_once(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    host = make_player(site, "Hanna One")
    gone, rex = make_player(site, "Gone Guest"), make_player(site, "Rex Resigns")
    # A match whose opponent joined over HTTP and never came, and is to play: the
    # player's stream says it is away.
    away_match = joined(site, private_table(site, host), gone)
    waiting, _ = waiting_and_acting(site, host, gone, away_match)
    if waiting is gone:  # the host speaks first to the up-card: then the guest is to play
        view = httpx.get(f"{site}/v1/matches/{away_match}", headers=auth(host)).json()["view"]
        act(site, host, away_match, simple_move(view, knock=False))
    ending = joined(site, private_table(site, host), rex)

    streams = PlayerStreams(page)
    signed_in(page, site, host)
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.click("[data-testid=open-table]")  # a table that waits: the stream stays off the lobby
    page.wait_for_selector("[data-testid=waiting]:not([hidden])")
    run_until(page, lambda: bool(streams.of("opponent_away", away_match)), SHOWN_WITHIN_MS)
    assert len(streams.of("opponent_away", away_match)) == 1, "the lobby's stream says it"

    page.evaluate(f"location.hash = '#/match/{ending}'")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    resigned = httpx.post(
        f"{site}/v1/matches/{ending}/actions",
        json={"action": {"type": "resign"}},
        headers=auth(rex),
    )
    assert resigned.status_code == 200, resigned.text
    page.wait_for_selector("body[data-phase=match_over]")
    offered = httpx.post(f"{site}/v1/matches/{ending}/rematch", headers=auth(rex))
    assert offered.status_code == 200, offered.text
    page.wait_for_selector("[data-testid=rematch-offer]", timeout=SHOWN_WITHIN_MS)

    # The rematch is followed once the newest stream has said the offer.
    def offer_heard_on_the_newest() -> bool:
        newest = len(streams.sockets) - 1
        return any(
            n == newest and f["challenge"].get("rematch_of") == ending
            for n, f in streams.of("challenge")
        )

    run_until(page, offer_heard_on_the_newest, SHOWN_WITHIN_MS)
    assert offer_heard_on_the_newest(), "the offer came on the player stream"
    assert len(streams.of("opponent_away", away_match)) == 1, "the presence frame came once"
    offers = [f for _, f in streams.of("challenge") if f["challenge"].get("rematch_of") == ending]
    assert len(offers) == 1, "and so did the offer"
    assert len(streams.open()) == 1, "the page holds one player stream"
