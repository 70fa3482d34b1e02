"""A version a client sends is quoted as any other input: 64 characters at most (QA);
and an ``after`` past the match's end is refused alike, over HTTP and on every socket.

A move's ``version`` of 4,000 digits came back whole in its ``stale_version`` detail
(cut at 500 characters only by the problem's own cap), and a socket's ``resume`` past
the match quoted its ``after`` whole, where every other detail quotes at most 64
characters of what a client sent, as the README says.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, next_frame, opened

LONG = "9" * 4000
SHOWN = "9" * 64 + "\u2026"
NOT_A_VERSION = "after: must be a version, a whole number from 0 to 9223372036854775807; got"
HUGE = "100000000000000000000000"  # past a 64-bit integer


def past_the_end(after: int, latest: int) -> str:
    return (
        f"after: {after} is past the match's last version, {latest}; "
        f"ask for a version from 0 to {latest}"
    )


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
        assert frame["problem"]["detail"] == f"{NOT_A_VERSION} '{SHOWN}'", frame
        await ws.send(json.dumps({"type": "resume", "after": match["version"] + 1}))
        frame = await next_frame(ws)  # a short one is quoted whole, as before
        assert frame["problem"]["detail"] == past_the_end(match["version"] + 1, match["version"])
    assert (await ada.view(match["match_id"]))["view"]["phase"] != "match_over"
    await ada.close()


async def refused_as_it_opens(url: str, first: dict[str, Any] | None = None) -> dict[str, Any]:
    """A socket's one frame, its refusal, then close 4422 (as any refused ``after``)."""
    async with websockets.connect(url) as ws:
        if first is not None:
            await ws.send(json.dumps(first))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert frame["type"] == "error", frame
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4422
        problem: dict[str, Any] = frame["problem"]
        return problem


async def test_an_after_past_the_end_is_refused_alike_everywhere(
    sqlite_site: ServerProcess,
) -> None:
    """A huge or past-the-end ``after`` was read three ways (QA): ``/events?after=`` with
    one past the end, however large, answered 200 and no events; a socket's ``?after=``
    refused more than 18 digits (4422) and answered a smaller one past the end with a
    snapshot; a ``resume`` past the end was a ``version_out_of_range``. Now one past the
    match's last version is a 422 ``version_out_of_range`` everywhere, one that no 64-bit
    integer holds a 422 ``invalid_request``, both naming ``after`` in the same words;
    the last version itself is read everywhere, and nothing changes."""
    ada = await Player.create(sqlite_site.url, "Ada After")
    match = await ada.new_match(seed="after-the-end")
    match_id, latest = match["match_id"], match["version"]
    past = past_the_end(latest + 1, latest)
    huge = f"{NOT_A_VERSION} '{HUGE}'"
    events = f"/v1/matches/{match_id}/events"
    for after, rule, detail in (
        (latest + 1, "version_out_of_range", past),
        (HUGE, "invalid_request", huge),
        ("9223372036854775808", "invalid_request", f"{NOT_A_VERSION} '9223372036854775808'"),
    ):
        answer = await ada.client.get(events, params={"after": after})
        assert answer.status_code == 422, (after, answer.text)
        assert (answer.json()["rule"], answer.json()["detail"]) == (rule, detail), answer.text
    at_the_end = await ada.client.get(events, params={"after": latest})
    assert at_the_end.status_code == 200, at_the_end.text
    assert at_the_end.json()["events"] == [], at_the_end.text

    base = f"{sqlite_site.ws_url}/v1/matches/{match_id}"
    live = f"{base}/live?token={ada.token}"
    for url, first in (
        (f"{live}&after={latest + 1}", None),
        (f"{base}/live", {"type": "auth", "token": ada.token, "after": latest + 1}),
        (f"{base}/watch?after={latest + 1}&watch_code={match['watch_code']}", None),
    ):
        problem = await refused_as_it_opens(url, first)
        assert (problem["rule"], problem["detail"]) == ("version_out_of_range", past), url
    for url, first in (
        (f"{live}&after={HUGE}", None),
        (f"{base}/live", {"type": "auth", "token": ada.token, "after": int(HUGE)}),
    ):
        problem = await refused_as_it_opens(url, first)
        assert (problem["rule"], problem["detail"]) == ("invalid_request", huge), url

    async with websockets.connect(f"{live}&after={latest}") as ws:  # the end itself: read
        seats = await next_frame(ws)
        assert (seats["type"], seats["version"]) == ("seats", latest), seats
        for after, rule, detail in (
            (latest + 1, "version_out_of_range", past),
            (int(HUGE), "invalid_request", huge),
        ):
            await ws.send(json.dumps({"type": "resume", "after": after}))
            frame = await next_frame(ws)
            assert frame["type"] == "error", frame
            assert (frame["problem"]["rule"], frame["problem"]["detail"]) == (rule, detail)
        await ws.send(json.dumps({"type": "ping"}))  # a refused resume leaves it open
        assert (await next_frame(ws))["type"] == "pong"
    assert (await ada.view(match_id))["version"] == latest  # nothing changed
    await ada.close()
