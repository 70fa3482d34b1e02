"""Bad input a QA pass found taken, or refused unclearly, on a real server: each is now
refused with a problem that says what is wrong, and changes nothing."""

from __future__ import annotations

import httpx

from tests.e2e.harness import Player, ServerProcess

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
