"""Bad input a QA pass found taken, or refused unclearly, on a real server: each is now
refused with a problem that says what is wrong, and changes nothing."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess, as_action, chunked, opened
from tests.e2e.tables import open_table

DECOMPOSED_E = "e\u0301"  # "é" typed as a letter and a combining accent: one character shown


async def test_a_names_forty_characters_are_counted_as_they_show(
    sqlite_site: ServerProcess,
) -> None:
    """40 "é" typed decomposed (80 code points) were refused by the schema's maxLength,
    and the same name precomposed was taken: now both are taken, as typed, and a 41st
    character is refused either way, whichever route takes the name."""
    async with httpx.AsyncClient(base_url=sqlite_site.url) as anonymous:
        for name in (DECOMPOSED_E * 40, "\u00e9" * 40, DECOMPOSED_E * 20 + "\u00e9" * 20):
            created = await anonymous.post("/v1/players", json={"name": name})
            assert created.status_code == 201, created.text
            assert created.json()["name"] == name  # kept as typed, not composed
        for name in (DECOMPOSED_E * 41, "\u00e9" * 41, "x" * 41):
            refused = await anonymous.post("/v1/players", json={"name": name})
            assert refused.status_code == 422, refused.text
            assert refused.json()["rule"] == "invalid_request"
            assert refused.json()["detail"] == (
                "name: at most 40 characters (counted after NFC composition); this one has 41"
            )
        # what is sent is still capped, cheaply, by the schema
        huge = await anonymous.post("/v1/players", json={"name": "x" * 201})
        assert huge.status_code == 422 and huge.json()["rule"] == "invalid_request", huge.text

    ada = await Player.create(sqlite_site.url, "Ada")
    profile = f"/v1/players/{ada.id}"
    renamed = await ada.client.patch(profile, json={"name": DECOMPOSED_E * 40})
    assert renamed.status_code == 200, renamed.text
    refused = await ada.client.patch(profile, json={"name": DECOMPOSED_E * 41})
    assert refused.status_code == 422 and "at most 40 characters" in refused.json()["detail"]
    assert (await ada.client.get(profile)).json()["name"] == DECOMPOSED_E * 40

    found = await ada.client.get("/v1/players", params={"name": DECOMPOSED_E * 40})
    assert found.status_code == 200, found.text
    assert ada.id in [player["id"] for player in found.json()["players"]]
    too_long = await ada.client.get("/v1/players", params={"name": DECOMPOSED_E * 41})
    assert too_long.status_code == 422, too_long.text
    assert "at most 40 characters" in too_long.json()["detail"]
    await ada.close()


async def next_frame(ws: Any, wanted: str | None = None) -> dict[str, Any]:
    """The socket's next frame that is no ping (of type ``wanted``, if given)."""
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] != "ping" and wanted in (None, frame["type"]):
            return frame


def refused_as_signed_in_already(frame: dict[str, Any]) -> str:
    assert frame["type"] == "error", frame
    problem = frame["problem"]
    assert (problem["status"], problem["rule"]) == (422, "invalid_request"), problem
    detail: str = problem["detail"]
    assert detail.startswith("auth: "), detail
    return detail


async def test_an_auth_message_on_a_signed_in_socket_is_refused_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    """A second ``auth`` (another player's token, or its own again) was ignored without a
    word on every socket: the client believed it had switched players. Now an error
    frame says so; the socket stays open and signed in as the same player."""
    ada = await Player.create(sqlite_site.url, "Ada Signed")
    bob = await Player.create(sqlite_site.url, "Bob Signed")
    match = await ada.new_match(seed="second-auth")
    live = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}/live"
    for url, first in ((f"{live}?token={ada.token}", None), (live, ada.token)):
        async with websockets.connect(url) as ws:
            if first is not None:
                await ws.send(json.dumps({"type": "auth", "token": first}))
            await opened(ws)
            for token in (bob.token, ada.token):
                await ws.send(json.dumps({"type": "auth", "token": token}))
                detail = refused_as_signed_in_already(await next_frame(ws))
                assert ada.id in detail and "nothing changed" in detail, detail
            # still Ada's seat: her move is taken, and its events come as frames
            before = await ada.view(match["match_id"])
            action = as_action(before["view"]["legal"][0])
            await ws.send(json.dumps({"type": "action", "action": action}))
            assert (await next_frame(ws, "event"))["version"] == before["version"] + 1
    code = (await ada.view(match["match_id"]))["watch_code"]  # a match against the AI's
    async with websockets.connect(f"{live.replace('/live', '/watch')}?watch_code={code}") as ws:
        await opened(ws)
        await ws.send(json.dumps({"type": "auth", "token": ada.token}))
        detail = refused_as_signed_in_already(await next_frame(ws))
        assert "spectator" in detail, detail
        await ws.send('{"type": "ping"}')
        assert (await next_frame(ws))["type"] == "pong"

    # the player stream and the lobby's list: Ada's frames still come after the refusal
    async with (
        websockets.connect(f"{sqlite_site.ws_url}/v1/me/live") as stream,
        websockets.connect(f"{sqlite_site.ws_url}/v1/tables/live") as lobby,
    ):
        for ws in (stream, lobby):
            await ws.send(json.dumps({"type": "auth", "token": ada.token}))
        await next_frame(lobby, "tables")
        for ws in (stream, lobby):
            await ws.send(json.dumps({"type": "auth", "token": bob.token}))
            refused_as_signed_in_already(await next_frame(ws, "error"))
        challenge = await bob.client.post("/v1/challenges", json={"to": ada.id})
        assert challenge.status_code == 201, challenge.text
        told = await next_frame(stream, "challenge")
        assert told["challenge"]["invitee"]["id"] == ada.id, told
        table = await open_table(bob)
        listed = await next_frame(lobby, "table")
        assert listed["table"]["table_id"] == table["table_id"], listed
    await ada.close()
    await bob.close()


def repeated(key: str, *values: object) -> str:
    """A JSON object that gives ``key`` once for each of ``values``."""
    return "{" + ", ".join(f"{json.dumps(key)}: {json.dumps(value)}" for value in values) + "}"


async def test_a_key_given_twice_is_refused_over_http_and_on_the_socket(
    sqlite_site: ServerProcess,
) -> None:
    """msgspec keeps a repeated key's last value: ``{"type": "draw_stock", "type":
    "pass_up_card"}`` passed, though a proxy or a log may have read the first. Now the
    body or message is refused, naming the key, and the match does not move."""
    ada = await Player.create(sqlite_site.url, "Ada Twice")
    match = await ada.new_match(seed="twice")
    match_id = match["match_id"]
    before = await ada.view(match_id)
    legal = before["view"]["legal"][0]["type"]
    headers = {"content-type": "application/json"}
    url = f"/v1/matches/{match_id}/actions"
    bodies = [
        '{"action": ' + repeated("type", legal, legal) + "}",
        repeated("action", {"type": legal}, {"type": "draw_stock"}),
        '{"action": {"type": ' + json.dumps(legal) + ', "typ\\u0065": "draw_stock"}}',
    ]
    for body in bodies:
        response = await ada.client.post(url, content=body, headers=headers)
        assert response.status_code == 422, response.text
        problem = response.json()
        assert problem["rule"] == "invalid_request", problem
        assert "appears twice in one object" in problem["detail"], problem
    named = await ada.client.post(
        "/v1/players", content='{"name": "Eve", "name": "Mallory"}', headers=headers
    )
    assert named.status_code == 422, named.text
    assert named.json()["detail"] == "the key 'name' appears twice in one object: send it once"
    assert (await ada.view(match_id))["version"] == before["version"]  # nothing was done

    live = f"{sqlite_site.ws_url}/v1/matches/{match_id}/live"
    async with websockets.connect(f"{live}?token={ada.token}") as ws:
        await opened(ws)
        await ws.send('{"type": "action", "action": ' + repeated("type", legal, legal) + "}")
        frame = await next_frame(ws)
        assert frame["type"] == "error", frame
        assert frame["problem"]["rule"] == "invalid_request", frame
        assert "'type' appears twice" in frame["problem"]["detail"], frame
        # a key given once in each of two objects is no repeat: the move is made
        await ws.send(json.dumps({"type": "action", "action": {"type": legal}}))
        assert (await next_frame(ws, "event"))["version"] == before["version"] + 1
    moved = await ada.view(match_id)
    async with websockets.connect(live) as ws:  # which token would sign in is no guess
        await ws.send(repeated("token", ada.token, ada.token).replace("{", '{"type": "auth", ', 1))
        frame = await next_frame(ws)
        assert frame["problem"]["rule"] == "invalid_request", frame
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4422
    assert (await ada.view(match_id))["version"] == moved["version"]
    await ada.close()


async def test_an_error_quotes_at_most_64_characters_of_what_was_sent(
    sqlite_site: ServerProcess,
) -> None:
    """A 5,000-character id was echoed in the problem's detail (500 characters of it)."""
    ada = await Player.create(sqlite_site.url, "Ada Long")
    long = "x" * 5000
    shown = "x" * 64 + "\u2026"
    answers = [
        (await ada.client.get(f"/v1/matches/{long}"), 404),
        (await ada.client.get(f"/v1/players/{long}"), 404),
        (await ada.client.get(f"/v1/players/ai:{long}/stats"), 404),
        (await ada.client.get(f"/v1/players/ai:{long}"), 404),
        (await ada.client.post(f"/v1/tables/{long}/join", json={}), 404),
        (await ada.client.post("/v1/challenges", json={"to": "x" * 100}), 404),
        (await ada.client.get(f"/v1/nowhere/{long}"), 404),
        (await ada.client.get(f"/problems/{long}"), 404),
    ]
    for response, status in answers:
        assert response.status_code == status, response.text
        detail = response.json()["detail"]
        assert "x" * 65 not in detail and len(detail) < 200, detail
        assert "x\u2026" in detail, detail  # cut, and said to be

    live = f"{sqlite_site.ws_url}/v1/matches/{long}/live?token={ada.token}"
    async with websockets.connect(live.replace(long, "nope") + f"&after={'9' * 5000}") as ws:
        frame = await next_frame(ws)
        assert "9" * 65 not in frame["problem"]["detail"], frame
        assert "9" * 64 + "\u2026" in frame["problem"]["detail"], frame
    match = await ada.new_match(seed="long-type")
    live = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}/live?token={ada.token}"
    async with websockets.connect(live) as ws:
        await opened(ws)
        await ws.send(json.dumps({"type": long}))
        frame = await next_frame(ws)
        assert frame["problem"]["detail"] == f"unknown message type '{shown}'", frame
    await ada.close()


async def test_a_chunked_body_over_the_limit_is_refused_as_any_body_over_it(
    sqlite_site: ServerProcess,
) -> None:
    """Sent without a Content-Length to a route that reads its body, a body over the limit
    got Litestar's "Request Entity Too Large"; with one, the server's own words."""
    ada = await Player.create(sqlite_site.url, "Ada Chunks")
    match = await ada.new_match(seed="chunks")
    url = f"/v1/matches/{match['match_id']}/actions"
    json_label = {"content-type": "application/json"}
    declared = await ada.client.post(url, content=b"[" * 20000, headers=json_label)
    streamed = await ada.client.post(
        url, content=chunked(b"[" * 10000, b"[" * 10000), headers=json_label
    )
    for response in (declared, streamed):
        assert response.status_code == 413, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
    assert streamed.json() == declared.json()
    assert declared.json()["detail"].startswith("the request body is over ")
    assert (await ada.view(match["match_id"]))["version"] == match["version"]
    await ada.close()


async def test_a_schema_refusal_quotes_at_most_64_characters_of_a_key_or_value_sent(
    sqlite_site: ServerProcess,
) -> None:
    """msgspec's own words quote what was sent whole: an unknown field's name ("Object
    contains unknown field `…`"), a value none of the allowed ones ("Invalid enum value
    '…'", "Invalid value '…'"). A 5,000-character key or value came back whole, in the
    detail of a body's 422 and of a socket's error frame."""
    ada = await Player.create(sqlite_site.url, "Ada Keys")
    long = "x" * 5000
    match = await ada.new_match(seed="long-keys")
    answers = [
        await ada.client.post("/v1/players", json={"name": "Eve", long: 1}),
        await ada.client.post("/v1/matches", json={"rules": long}),
        await ada.client.post(
            f"/v1/matches/{match['match_id']}/actions", json={"action": {"type": long}}
        ),
    ]
    live = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}/live?token={ada.token}"
    async with websockets.connect(live) as ws:
        await opened(ws)
        problems = [response.json() for response in answers]
        for message in ({"type": "ping", long: 1}, {"type": "action", "action": {"type": long}}):
            await ws.send(json.dumps(message))
            problems.append((await next_frame(ws, "error"))["problem"])
    for problem in problems:
        assert problem["status"] == 422 and problem["rule"] == "invalid_request", problem
        detail = problem["detail"]
        assert "x" * 65 not in detail and len(detail) < 200, detail[:300]
        assert "x" * 64 + "\u2026" in detail, detail
    await ada.close()


async def closed_with(ws: Any) -> tuple[dict[str, Any], int]:
    """The refusal a socket sends (its ``error`` frame's problem) and the code it closes with."""
    frame = await next_frame(ws)
    assert frame["type"] == "error", frame
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None
    return frame["problem"], closed.value.rcvd.code


async def test_an_auth_message_of_the_wrong_shape_is_a_4422_that_names_the_field(
    sqlite_site: ServerProcess,
) -> None:
    """An ``auth`` first message with ``"after": "1"`` or ``1.5`` was a 4401 saying the
    token was missing (it was not), and a misspelt ``aftr`` was dropped: the client got
    a snapshot in place of the replay it asked for. Now an ``auth`` message of the wrong
    shape is a 4422 ``invalid_request`` naming the field, as any client message, on every
    socket that takes one; one that is no ``auth`` message, or has no token, is a 4401."""
    ada = await Player.create(sqlite_site.url, "Ada Shape")
    match = await ada.new_match(seed="auth-shape")
    base = sqlite_site.ws_url
    live = f"{base}/v1/matches/{match['match_id']}/live"
    token = ada.token
    wrong: list[tuple[str, dict[str, Any], str]] = [
        (live, {"after": "1"}, "after"),
        (live, {"after": 1.5}, "after"),
        (live, {"after": -3}, "after"),
        (live, {"aftr": 1}, "aftr"),
        (live, {"version": 1}, "version"),  # a field of other messages, not of auth
        (live, {"token": 7}, "token"),
    ]
    for path in ("/v1/me/live", "/v1/tables/live"):  # no replay there: no ``after`` either
        wrong += [(base + path, {"after": 1}, "after"), (base + path, {"aftr": 1}, "aftr")]
    for url, fields, field in wrong:
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "auth", "token": token} | fields))
            problem, code = await closed_with(ws)
            assert (code, problem["rule"], problem["status"]) == (4422, "invalid_request", 422)
            assert field in problem["detail"], (url, fields, problem)
    for url in (live, base + "/v1/me/live", base + "/v1/tables/live"):
        for first in (
            {"type": "ping", "token": token},
            {"type": "auth"},
            {"type": "auth", "token": ""},
            [1],
        ):
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps(first))
                problem, code = await closed_with(ws)
                assert (code, problem["rule"]) == (4401, "unauthorized"), (url, first, problem)
    async with websockets.connect(live) as ws:  # a good one is still taken, ``after`` and all
        await ws.send(json.dumps({"type": "auth", "token": token, "after": 0}))
        replayed = await next_frame(ws)  # the events after version 0, no snapshot
        assert (replayed["type"], replayed["version"]) == ("event", 1), replayed
    assert (await ada.view(match["match_id"]))["version"] == match["version"]
    await ada.close()


async def raw_get(site: ServerProcess, target: str) -> tuple[bytes, bytes]:
    """The status line and the rest of the answer to ``GET target``, sent by hand: httpx
    refuses to send a query over 64 KiB."""
    host, port = site.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    status, _, rest = answer.partition(b"\r\n")
    return status, rest


async def test_an_address_too_long_is_a_414_problem_however_long(
    sqlite_site: ServerProcess,
) -> None:
    """A 100,000-byte query was answered ``400 text/plain`` "Invalid HTTP request
    received." by the HTTP parser (httptools reads no URL over 65,535 bytes), where a
    60,000-byte one got a 422 problem. Now a path and query over 8,192 bytes is a 414
    problem, however long, with its page, and no handler reads it."""
    async with httpx.AsyncClient(base_url=sqlite_site.url) as anonymous:
        short = await anonymous.get("/v1/leaderboard", params={"kind": "x" * 8000})
        assert short.status_code == 422, short.text  # read, and refused for what it says
        for size in (9000, 60_000):
            refused = await anonymous.get("/v1/leaderboard", params={"kind": "x" * size})
            assert refused.status_code == 414, (size, refused.text)
            assert refused.headers["content-type"] == "application/problem+json"
            problem = refused.json()
            assert (problem["rule"], problem["type"]) == ("uri_too_long", "/problems/uri-too-long")
            assert "8192 bytes" in problem["detail"], problem
        for size in (65_600, 100_000, 1_000_000):  # past what the HTTP parser reads
            status, rest = await raw_get(sqlite_site, "/v1/leaderboard?kind=" + "x" * size)
            assert status == b"HTTP/1.1 414 Request-URI Too Long", (size, status, rest[:300])
            assert b"content-type: application/problem+json" in rest.lower(), rest[:300]
            assert b'"rule":"uri_too_long"' in rest, rest[-300:]
        created = await anonymous.post(f"/v1/players?{'x' * 10_000}", json={"name": "Longa"})
        assert created.status_code == 414, created.text  # nothing was done
        page = await anonymous.get("/problems/uri-too-long")
        assert page.status_code == 200 and "too long" in page.text
    for size in (9000, 100_000):  # a socket's handshake: refused by the WebSocket layer
        with pytest.raises(websockets.InvalidStatus) as handshake:  # (its 8 KiB line limit)
            async with websockets.connect(f"{sqlite_site.ws_url}/v1/tables/live?pad={'x' * size}"):
                pass
        assert handshake.value.response.status_code == 414, size  # no URL reaches it cut short


async def test_a_body_with_a_content_encoding_is_a_415_that_says_so(
    sqlite_site: ServerProcess,
) -> None:
    """``Content-Encoding: gzip`` on a plain body was ignored and the player created (201),
    and a body really gzipped was refused as malformed JSON: the server decodes no content
    coding. Now any coding but ``identity`` is a 415 that names it, and changes nothing."""
    plain = b'{"name": "Zipped"}'
    json_label = {"content-type": "application/json"}
    async with httpx.AsyncClient(base_url=sqlite_site.url) as anonymous:
        for coding, body in (
            ("gzip", plain),
            ("gzip", gzip.compress(plain)),
            ("br", plain),
            ("identity, gzip", plain),
        ):
            headers = json_label | {"content-encoding": coding}
            refused = await anonymous.post("/v1/players", content=body, headers=headers)
            assert refused.status_code == 415, (coding, refused.text)
            problem = refused.json()
            assert problem["rule"] == "unsupported_media_type", problem
            assert "Content-Encoding" in problem["detail"], problem
            assert coding.split(", ")[-1] in problem["detail"], problem
            assert refused.headers["accept-encoding"] == "identity"
        for coding in ("identity", "Identity"):  # no coding at all: taken
            headers = json_label | {"content-encoding": coding}
            taken = await anonymous.post("/v1/players", content=plain, headers=headers)
            assert taken.status_code == 201, (coding, taken.text)
    ada = await Player.create(sqlite_site.url, "Ada Zipped")
    match = await ada.new_match(seed="zipped")
    action = json.dumps({"action": as_action(match["view"]["legal"][0])}).encode()
    refused = await ada.client.post(
        f"/v1/matches/{match['match_id']}/actions",
        content=action,
        headers=json_label | {"content-encoding": "gzip"},
    )
    assert refused.status_code == 415, refused.text
    assert (await ada.view(match["match_id"]))["version"] == match["version"]  # not played
    await ada.close()


async def test_a_body_with_no_content_type_is_a_415_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    """A body with no ``Content-Type`` was read as JSON and acted on, where ``text/plain``
    was a 415: no documented client sends one unlabelled (curl labels ``-d`` as a form).
    Now it is a 415 too, on every route that reads a body; a request with no body at all
    is still the 400 that says it is empty."""
    ada = await Player.create(sqlite_site.url, "Ada Unlabelled")
    match = await ada.new_match(seed="unlabelled")
    actions = f"/v1/matches/{match['match_id']}/actions"
    action = json.dumps({"action": as_action(match["view"]["legal"][0])}).encode()
    for path, body in ((actions, action), ("/v1/players", b'{"name": "Nolabel"}')):
        for sent in (body, chunked(body[:5], body[5:])):  # a declared length, or chunks
            refused = await ada.client.post(path, content=sent)
            assert "content-type" not in refused.request.headers
            assert refused.status_code == 415, (path, refused.text)
            problem = refused.json()
            assert problem["rule"] == "unsupported_media_type", problem
            assert "no Content-Type" in problem["detail"], problem
    assert (await ada.view(match["match_id"]))["version"] == match["version"]  # not played
    empty = await ada.client.post(actions, content=b"")
    assert empty.status_code == 400 and "empty" in empty.json()["detail"], empty.text
    labelled = await ada.client.post(
        actions, content=action, headers={"content-type": "application/json"}
    )
    assert labelled.status_code == 200, labelled.text
    await ada.close()


async def test_a_json_body_in_another_charset_is_a_415_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    """``application/json; charset=iso-8859-1`` was read as UTF-8 all the same (QA): the
    name "Zoé" sent in Latin-1 was refused as malformed JSON, and bytes that happen to be
    UTF-8 would be read as other characters than the client sent. JSON is UTF-8 (RFC
    8259), so a label naming another charset is a 415 that says so, on every route that
    reads a body, and nothing is done; ``utf-8`` in any case, quoted or not, and no
    charset are read as before."""
    ada = await Player.create(sqlite_site.url, "Ada Charset")
    match = await ada.new_match(seed="charset")
    actions = f"/v1/matches/{match['match_id']}/actions"
    action = json.dumps({"action": as_action(match["view"]["legal"][0])}).encode()
    zoe = '{"name": "Zoé"}'
    for label, path, body in (
        ("application/json; charset=iso-8859-1", "/v1/players", zoe.encode("latin-1")),
        ("application/json;charset=ISO-8859-1", "/v1/players", zoe.encode("latin-1")),
        ('application/json; charset="windows-1252"', "/v1/players", zoe.encode("cp1252")),
        ("application/json; charset=utf-16", "/v1/players", zoe.encode("utf-16")),
        ("application/json; charset=utf-16", actions, action.decode().encode("utf-16")),
        ("application/json; charset=no-such-charset", actions, action),
    ):
        refused = await ada.client.post(path, content=body, headers={"content-type": label})
        assert refused.status_code == 415, (label, path, refused.text)
        problem = refused.json()
        assert problem["rule"] == "unsupported_media_type", problem
        assert "only UTF-8 is accepted" in problem["detail"], problem
    assert (await ada.view(match["match_id"]))["version"] == match["version"]  # not played
    # An ASCII body is the same text in UTF-8, whatever ASCII-compatible charset labels
    # it: a client that labels its JSON Latin-1 (older HTTP libraries do) keeps working.
    named = await ada.client.post(
        "/v1/players",
        content=b'{"name": "Ascii Ann"}',
        headers={"content-type": "application/json; charset=iso-8859-1"},
    )
    assert named.status_code == 201, named.text
    for label in (
        "application/json; charset=utf-8",
        "application/json; charset=UTF-8",
        "application/json; charset=utf8",
        'application/json; charset="utf-8"',
        "application/json",
    ):
        made = await ada.client.post(
            "/v1/players", content='{"name": "Zoé"}'.encode(), headers={"content-type": label}
        )
        assert made.status_code == 201, (label, made.text)
        assert made.json()["name"] == "Zoé", made.text
    played = await ada.client.post(
        actions, content=action, headers={"content-type": "application/json; charset=UTF-8"}
    )
    assert played.status_code == 200, played.text
    await ada.close()


async def raw_answer(site: ServerProcess, head: bytes) -> tuple[bytes, bytes]:
    """The status line and the rest of the answer to a request head sent by hand, whole:
    httpx adds headers of its own, and sends a head in pieces of its choosing."""
    reader, writer = await asyncio.open_connection("127.0.0.1", site.port)
    writer.write(head)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 15)
    writer.close()
    status, _, rest = answer.partition(b"\r\n")
    return status, rest


def padded_head(target: str, size: int, *lines: str) -> bytes:
    """A ``GET target`` head of exactly ``size`` bytes less its URL (what the limit
    counts), padded with one ``X-Pad`` header."""
    start = f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
    start += "".join(line + "\r\n" for line in lines) + "X-Pad: "
    pad = size - (len(start) - len(target)) - len("\r\n\r\n")
    head = (start + "p" * pad + "\r\n\r\n").encode()
    assert len(head) - len(target) == size
    return head


async def test_headers_too_large_are_a_431_problem_however_large(
    sqlite_site: ServerProcess,
) -> None:
    """A 100 KB and a 2 MB header value were read whole and answered 200 (only the
    header deadline bounded a request's headers). Now a head over 32 KiB, less its URL, is
    a 431 problem with ``Connection: close``, however large or however many its lines; a
    head of exactly 32 KiB is read, as a bearer token with 30 KiB of other headers is."""
    limit = 32 * 1024
    status, rest = await raw_answer(sqlite_site, padded_head("/healthz", limit))
    assert status == b"HTTP/1.1 200 OK", (status, rest[:300])
    too_large = [
        padded_head("/healthz", limit + 1),
        padded_head("/healthz", 100_000),
        padded_head("/v1/leaderboard", 2_000_000),
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Line: y\r\n" * 3000 + b"\r\n",
    ]
    for head in too_large:
        status, rest = await raw_answer(sqlite_site, head)
        assert status == b"HTTP/1.1 431 Request Header Fields Too Large", (status, rest[:300])
        headers, _, body = rest.partition(b"\r\n\r\n")
        assert b"content-type: application/problem+json" in headers.lower(), headers
        assert b"connection: close" in headers.lower(), headers
        assert b"x-content-type-options: nosniff" in headers.lower(), headers  # as any answer
        problem = json.loads(body)
        assert (problem["rule"], problem["type"], problem["status"]) == (
            "request_header_fields_too_large",
            "/problems/request-header-fields-too-large",
            431,
        )
        assert "32768 bytes" in problem["detail"], problem

    async with httpx.AsyncClient(base_url=sqlite_site.url) as anonymous:
        token = (await anonymous.post("/v1/players", json={"name": "Heady"})).json()["token"]
        bulky = {f"X-Pad-{n}": "p" * 7000 for n in range(4)}  # 28 KiB, lines under 8 KiB
        me = await anonymous.get("/v1/me", headers={"Authorization": f"Bearer {token}", **bulky})
        assert me.status_code == 200, me.text  # the token is read as ever
        created = await anonymous.post("/v1/players", json={"name": "Bulky"}, headers=bulky)
        assert created.status_code == 201, created.text
        refused = await anonymous.post(
            "/v1/players", json={"name": "Bulkier"}, headers={**bulky, "X-More": "m" * 5000}
        )
        assert refused.status_code == 431, refused.text  # nothing was done
        assert refused.json()["rule"] == "request_header_fields_too_large"
        page = await anonymous.get("/problems/request-header-fields-too-large")
        assert page.status_code == 200 and "too large" in page.text

    player = await Player.create(sqlite_site.url)
    match = await player.new_match()
    watch = f"{sqlite_site.ws_url}/v1/matches/{match['match_id']}/watch"
    async with websockets.connect(watch, additional_headers=bulky) as ws:
        assert (await opened(ws))["type"] == "snapshot"  # a handshake under the limit
    with pytest.raises(websockets.InvalidStatus) as handshake:
        async with websockets.connect(watch, additional_headers={**bulky, "X-More": "m" * 5000}):
            pass
    assert handshake.value.response.status_code == 431
    with pytest.raises(websockets.InvalidStatus) as handshake:  # one line over 8 KiB: the
        async with websockets.connect(watch, additional_headers={"X-Long": "l" * 9000}):
            pass
    assert handshake.value.response.status_code == 431  # WebSocket layer's own, plain text
    await player.close()
