"""A version a client sends is quoted as any other input: 64 characters at most (QA).

A move's ``version`` of 4,000 digits came back whole in its ``stale_version`` detail
(cut at 500 characters only by the problem's own cap), and a socket's ``resume`` past
the match quoted its ``after`` whole, where every other detail quotes at most 64
characters of what a client sent, as the README says.
"""

from __future__ import annotations

import json

import websockets

from tests.e2e.harness import Player, ServerProcess, next_frame, opened

LONG = "9" * 4000
SHOWN = "9" * 64 + "\u2026"


async def test_a_long_version_is_quoted_cut_short(sqlite_site: ServerProcess) -> None:
    ada = await Player.create(sqlite_site.url, "Ada Digits")
    match = await ada.new_match(seed="long-version")
    answer = await ada.client.post(
        f"/v1/matches/{match['match_id']}/actions",
        content=f'{{"action": {{"type": "resign"}}, "version": {LONG}}}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 409, answer.text
    detail = answer.json()["detail"]
    assert detail == f"you acted on version {SHOWN}; the match is at version {match['version']}"
    live = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}/live?token={ada.token}"
    async with websockets.connect(live) as ws:
        await opened(ws)
        await ws.send(f'{{"type": "resume", "after": {LONG}}}')
        frame = await next_frame(ws)
        assert frame["problem"]["detail"] == f"cannot resume after {SHOWN}", frame
        await ws.send(json.dumps({"type": "resume", "after": match["version"] + 1}))
        frame = await next_frame(ws)  # a short one is quoted whole, as before
        assert frame["problem"]["detail"] == f"cannot resume after {match['version'] + 1}"
    assert (await ada.view(match["match_id"]))["view"]["phase"] != "match_over"
    await ada.close()
