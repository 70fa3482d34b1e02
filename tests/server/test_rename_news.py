"""``RenameNews``: who was renamed since a follower last read the names, and when to read
again after the database failed; and a player stream's use of it for its challenges."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from infra.errors import StoreUnavailable
from server import challenge_names as challenge_names_module
from server.fanout import Hub
from server.player_stream import PlayerStream
from server.renames import RenameNews, Renames
from server.schemas import PlayerRef
from tests.server.test_lobby_own_blocks import next_while_busy


def ref(player_id: str, name: str) -> PlayerRef:
    return PlayerRef(id=player_id, name=name, kind="person", rating=None)


def test_the_news_is_taken_once_and_a_failed_read_waits_for_its_back_off() -> None:
    news = RenameNews(Renames(), lambda: None)
    assert news.take() == set() and news.seconds_to_next() is None  # nobody renamed
    news.add("ada")
    news.add(None)
    assert news.take() == {"ada", None}
    assert news.take() == set()  # taken: read once
    news.add("bob")
    renamed = news.take()
    news.failed(renamed)  # kept for the retry
    news.add("cleo")  # news while the back-off runs waits with it
    assert news.take() == set()
    assert 0 < (news.seconds_to_next() or 0) <= 0.5


async def test_the_back_off_ends_and_an_answer_starts_it_over() -> None:
    news = RenameNews(Renames(), lambda: None)
    news.add("bob")
    news.failed(news.take())
    await asyncio.sleep(0.55)
    assert news.take() == {"bob"}
    news.failed({"bob"})  # failed again: the delay doubles
    assert 0.5 < (news.seconds_to_next() or 0) <= 1.0
    await asyncio.sleep(1.05)
    assert news.take() == {"bob"}
    news.answered()
    assert news.seconds_to_next() is None
    news.add("dan")
    assert news.take() == {"dan"}


async def test_a_player_streams_failed_read_of_a_renamed_challenger_waits_for_its_back_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every match's move wakes every player stream: a read of a challenge whose other end
    renamed, failed by the database, was made again at each wake, by every stream of the
    process, in a tight loop while the database was down (the lobby's list waited for a
    back-off already). It now waits for one too, the stream wakes for it with nothing
    else moving, and the challenge is said again with the new name once a read answers."""
    said = SimpleNamespace(table_id="t1", host=ref("bob", "Bob"), invitee=ref("ada", "Ada"), guest=None)  # fmt: skip
    renamed = SimpleNamespace(table_id="t1", host=ref("bob", "Bob B"), invitee=ref("ada", "Ada"), guest=None)  # fmt: skip
    loop = asyncio.get_running_loop()
    reads: list[float] = []

    async def load(table_id: str, at_least: int | None = None) -> Any:
        reads.append(loop.time())
        if len(reads) < 3:
            raise StoreUnavailable("down")
        return SimpleNamespace(status="open", open_at=lambda now: True)

    async def table_view(*_: Any) -> Any:
        return renamed

    async def opening_frames(stream: PlayerStream) -> list[dict[str, Any]]:
        stream.names.said(said)  # type: ignore[arg-type]
        return [{"type": "challenge", "challenge": said}]

    async def nothing(*_: Any) -> None:
        return None

    monkeypatch.setattr(challenge_names_module, "table_view", table_view)
    monkeypatch.setattr(PlayerStream, "_opening_frames", opening_frames)
    hub, renames = Hub(), Renames()
    services: Any = SimpleNamespace(
        hub=hub,
        renames=renames,
        presence=SimpleNamespace(arrive_on_stream=nothing, leave_stream=nothing),
        settings=SimpleNamespace(absence_grace_s=60.0, stream_ping_s=5.0),
        tables=SimpleNamespace(load=load),
    )
    frames = PlayerStream(services, "ada").frames()
    assert (await anext(frames))["challenge"] is said
    renames.told("bob")

    frame = await next_while_busy(hub, frames, moves=70)  # for 0.7 s
    assert frame == {"type": "challenge", "challenge": renamed}
    # Not one a wake: the first, then 0.5 s and 1 s later (the last with nothing moving).
    assert len(reads) == 3, reads
    assert reads[1] - reads[0] >= 0.45 and reads[2] - reads[1] >= 0.9
