"""Tokens in use are trusted for a second after a check, and checked together in the
background: a busy client's requests cost no lookup, a token revoked elsewhere is
refused after the next check, and one revoked here at once. On both databases."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from infra.players import Players
from infra.sql_event_store import SqlEventStore
from infra.tokens import Tokens
from server import known_tokens
from server.known_tokens import KnownTokens
from tests.infra.helpers import statements


async def two_players(store: SqlEventStore) -> Tokens:
    players = Players(store.engine)
    await players.create_player("p", "Ada", "hash-p", expires_ms=None)
    await players.create_player("q", "Bo", "hash-q", expires_ms=None)
    return Tokens(store.engine)


async def test_tokens_in_use_cost_one_query_a_check_not_one_per_request(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(known_tokens, "TRUST_S", 1.0)  # 0.5 s to spare: a busy machine
    known = KnownTokens(await two_players(store))
    with statements(store, "tokens") as first:
        assert (await known.holder("hash-p")).player.id == "p"  # type: ignore[union-attr]
        assert (await known.holder("hash-q")).player.id == "q"  # type: ignore[union-attr]
    assert len(first) == 2, "each token is looked up when first seen"
    with statements(store, "tokens") as busy:
        for _ in range(4):  # 2 s in all, past the trust window: the checks renew it
            await asyncio.sleep(0.5)
            await known.check()
            for _ in range(20):
                assert await known.holder("hash-p") is not None
                assert await known.holder("hash-q") is not None
    assert len(busy) == 4, f"four checks of one query each, and no lookups: {busy}"


async def test_a_token_revoked_elsewhere_is_refused_after_the_next_check(
    store: SqlEventStore,
) -> None:
    tokens = await two_players(store)
    known = KnownTokens(tokens)
    assert await known.holder("hash-p") is not None
    await tokens.revoke_all("p")  # as another process does: this one is not told
    assert await known.holder("hash-p") is not None, "trusted until the next check"
    await known.check()
    assert await known.holder("hash-p") is None
    assert await known.holder("hash-q") is not None, "another player's token still works"
    assert await known.holder("nope") is None


async def test_a_token_not_checked_within_the_trust_window_is_looked_up_again(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = await two_players(store)
    known = KnownTokens(tokens)
    assert await known.holder("hash-p") is not None
    await tokens.revoke_all("p")
    monkeypatch.setattr(known_tokens, "TRUST_S", 0.0)  # as if no check had run for a second
    assert await known.holder("hash-p") is None


async def test_revoked_here_is_refused_at_once_and_idle_tokens_are_dropped(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = KnownTokens(await two_players(store))
    assert await known.holder("hash-p") is not None
    assert await known.holder("hash-q") is not None
    known.forget({"hash-p"})
    with statements(store, "tokens") as after_forget:
        assert await known.holder("hash-q") is not None
        assert await known.holder("hash-p") is not None  # still valid in the table
    assert len(after_forget) == 1, "the forgotten token was looked up again, the other not"
    monkeypatch.setattr(known_tokens, "IDLE_S", 0.0)
    with statements(store, "tokens") as idle_check:
        await known.check()  # every token is idle now: dropped, and nothing to ask
    assert idle_check == []
    with statements(store, "tokens") as again:
        assert await known.holder("hash-q") is not None
    assert len(again) == 1


async def test_a_lookup_answered_before_a_revocation_here_is_not_trusted_after_it(
    store: SqlEventStore,
) -> None:
    """A request's lookup read the token as valid, then the token was revoked on this
    process (``forget``) before the lookup returned: later requests must be refused at
    once, not trusted on that answer for another second."""
    tokens = await two_players(store)
    answered = asyncio.Event()
    revoked = asyncio.Event()

    class Slow(Tokens):  # the lookup's answer is read, then held until the revocation
        async def holder(self, token_hash: str) -> Any:
            answer = await super().holder(token_hash)
            answered.set()
            await revoked.wait()
            return answer

    known = KnownTokens(Slow(store.engine))
    in_flight = asyncio.create_task(known.holder("hash-p"))
    await answered.wait()
    known.forget(await tokens.revoke_all("p"))  # as Services.revoke_tokens does
    revoked.set()
    await in_flight  # begun before the revocation: may still be let through
    assert await known.holder("hash-p") is None, "revoked here: refused at once"
