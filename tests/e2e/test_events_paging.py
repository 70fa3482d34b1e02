"""Paging a match's log: ``more`` says whether a page is the last, ``complete`` does not.

``complete`` means "unredacted" (the match is over), so a client that stopped on it
would silently miss the rest of a long log; ``more`` is the field to page on.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.harness import Player, ServerProcess, play_out


async def _page(player: Player, match_id: str, after: int, limit: int) -> dict[str, Any]:
    response = await player.client.get(
        f"/v1/matches/{match_id}/events", params={"after": after, "limit": limit}
    )
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


async def test_more_is_true_on_every_page_but_the_last(server: ServerProcess) -> None:
    player = await Player.create(server.url)
    try:
        match = await player.new_match(seed="paging")
        match_id = match["match_id"]

        running = await _page(player, match_id, 0, 1)
        assert (running["complete"], running["more"]) == (False, True)
        assert await _page(player, match_id, 0, 1000) | {"events": None} == {
            "events": None,
            "complete": False,
            "more": False,
        }

        last = await play_out(player, match)
        pages, after = [], 0
        while True:
            page = await _page(player, match_id, after, 7)
            pages.append(page)
            assert page["complete"] is True, "a finished match's pages are all unredacted"
            if not page["more"]:
                break
            after = page["events"][-1]["version"]
        assert all(p["more"] for p in pages[:-1]) and len(pages) == -(-last // 7)
        versions = [e["version"] for p in pages for e in p["events"]]
        assert versions == list(range(1, last + 1)), "paging on `more` reads every event once"

        exact = await _page(player, match_id, last - 7, 7)
        assert exact["more"] is False, "a page ending on the last event is the last page"
        beyond = await _page(player, match_id, last, 7)
        assert (beyond["events"], beyond["more"]) == ([], False)

        whole = await player.events(match_id, limit=5)  # the harness pages the same way
        assert [e["version"] for e in whole["events"]] == versions
    finally:
        await player.close()
