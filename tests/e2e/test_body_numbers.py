"""The same unreadable input gets the same problem over HTTP as on the socket (QA).

A move whose ``version`` was ``1e400`` (or an integer of 4,400 digits) was a 400
``bad_request`` over HTTP, "Number out of range - at `$[...]`", naming no field, and on
the live socket a 422 ``invalid_request`` "version: Number out of range" (but
"action[...]: …" for a number inside the action); a chat message whose bytes were not
UTF-8 was a 400 ``bad_request`` over HTTP and a ``malformed_json`` on the socket. Now
both answer alike, naming the field, and nothing changes.
"""

from __future__ import annotations

import websockets

from tests.e2e.harness import Player, ServerProcess, next_frame, opened

HUGE = "9" * 4400
LONG_KEY = "k" * 3000  # a key the schema has not: its path is the client's, quoted as such
REFUSALS = {  # a message's text: the rule, the status and the detail, on either channel
    '{"action": {"type": "resign"}, "version": 1e400}': (
        "invalid_request",
        422,
        "version: Number out of range",
    ),
    f'{{"action": {{"type": "resign"}}, "version": {HUGE}}}': (
        "invalid_request",
        422,
        "version: Integer value out of range",
    ),
    '{"action": {"type": "lay_off", "card": "AS", "meld": -1e999}}': (
        "invalid_request",
        422,
        "action.meld: Number out of range",
    ),
    f'{{"action": {{"type": "resign", "{LONG_KEY}": [1e400]}}, "version": 1}}': (
        "invalid_request",
        422,
        f"action.{LONG_KEY[:57]}…: Number out of range",  # 64 characters of it at most
    ),
}


async def test_a_number_out_of_range_or_bytes_not_utf8_are_refused_alike(
    sqlite_site: ServerProcess,
) -> None:
    ada = await Player.create(sqlite_site.url, "Ada Range")
    match = await ada.new_match(seed="out-of-range")
    match_id = match["match_id"]
    json_body = {"content-type": "application/json"}
    live = f"{sqlite_site.ws_url}/v1/matches/{match_id}/live?token={ada.token}"
    async with websockets.connect(live) as ws:
        await opened(ws)
        for body, (rule, status, detail) in REFUSALS.items():
            answer = await ada.client.post(
                f"/v1/matches/{match_id}/actions", content=body, headers=json_body
            )
            problem = answer.json()
            assert (problem["rule"], answer.status_code) == (rule, status), (body, answer.text)
            assert problem["detail"] == detail, problem
            await ws.send('{"type": "action", "action": ' + body.split(":", 1)[1][1:])
            framed = (await next_frame(ws))["problem"]
            assert (framed["rule"], framed["status"], framed["detail"]) == (rule, status, detail)

        not_utf8 = b'{"text": "caf\xe9"}'  # Latin-1, sent as UTF-8 JSON
        answer = await ada.client.post(
            f"/v1/matches/{match_id}/chat", content=not_utf8, headers=json_body
        )
        assert (answer.status_code, answer.json()["rule"]) == (400, "malformed_json"), answer.text
        assert "not valid UTF-8" in answer.json()["detail"], answer.text
        await ws.send(b'{"type": "chat", "text": "caf\xe9"}')
        framed = (await next_frame(ws))["problem"]
        assert (framed["status"], framed["rule"]) == (400, "malformed_json"), framed
    view = await ada.view(match_id)
    assert (view["version"], view["view"]["phase"]) == (match["version"], match["view"]["phase"])
    chat = await ada.client.get(f"/v1/matches/{match_id}/chat")
    assert chat.json()["messages"] == [], chat.text
    await ada.close()
