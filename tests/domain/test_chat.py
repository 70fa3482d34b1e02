"""The chat decider: cleaning, length, the flood limit and muting, with plain numbers.

Time arrives in the commands, so the limit is tested at exact instants and holds
whichever process decides (each decides from the stream it read).
"""

from __future__ import annotations

import pytest

from domain import chat as c
from domain import errors

T0 = 1_000_000


def post(state: c.ChatState, seat: int, text: str = "hi", at: int = T0) -> c.ChatState:
    return c.fold(c.decide(state, c.PostMessage(seat=seat, text=text, now_ms=at)), state)


def test_a_message_is_recorded_cleaned_with_its_seat_and_time() -> None:
    events = c.decide(None, c.PostMessage(seat=1, text="  Good\tgame!\n ", now_ms=T0))
    assert events == [c.MessagePosted(seat=1, text="Good game!", posted_ms=T0)]
    assert c.fold(events).version == 1


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("\u202egood\u202c game", "good game"),  # right-to-left override and its pop
        ("a\u2066b\u2067c\u2068d\u2069e", "abcde"),  # the isolates
        ("a\u202ab\u202bc\u202dd", "abcd"),  # embeddings and left-to-right override
        ("left\u200emark\u200f\u061c", "leftmark"),  # directional marks
        ("zero\u200bwidth\ufeff", "zerowidth"),  # zero-width space, byte-order mark
        ("bell\x07 nul\x00 esc\x1b[31m", "bell nul esc[31m"),  # C0 controls
        ("c1\x9b controls\x85here", "c1 controls here"),  # C1 controls, NEL as a space
        ("line\u2028break\u2029para", "line break para"),
        (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        ("cafe\u0301", "caf\u00e9"),  # NFC
        ("z" + "\u0336" * 40, "z" + "\u0336" * c.MAX_MARKS),  # stacked combining marks
        ("\ud800lone", "lone"),  # a lone surrogate
        ("ok\u200d\u200d", "ok"),  # joiners that join nothing
    ],
)
def test_control_and_format_characters_are_removed(raw: str, cleaned: str) -> None:
    assert c.clean(raw) == cleaned


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\u202e\u202c",
        "\x00\x01\n\t",
        "\u2066\u2069\u200b",
        # characters that show nothing, refused in names too
        "\u3164\u3164\u3164",
        "\u2800\u2800",
        "\u115f",
        "\ufe0f",
        "\u200d\u200d",
    ],
)
def test_a_message_empty_after_cleaning_is_refused(text: str) -> None:
    with pytest.raises(errors.EmptyMessage):
        c.decide(None, c.PostMessage(seat=0, text=text, now_ms=T0))


def test_the_length_limit_counts_characters_after_cleaning() -> None:
    exactly = "\u00e9" * c.MAX_LENGTH
    assert c.decide(None, c.PostMessage(seat=0, text=exactly, now_ms=T0))[0].text == exactly  # type: ignore[attr-defined]
    padded = "\u202e" * 500 + "x" * c.MAX_LENGTH + "\x00" * 500
    assert len(c.decide(None, c.PostMessage(seat=0, text=padded, now_ms=T0))[0].text) == 280  # type: ignore[attr-defined]
    with pytest.raises(errors.MessageTooLong, match="281"):
        c.decide(None, c.PostMessage(seat=0, text="x" * (c.MAX_LENGTH + 1), now_ms=T0))


def test_a_seat_posts_at_most_a_burst_per_window_and_learns_when_to_retry() -> None:
    state = c.ChatState()
    for i in range(c.BURST):
        state = post(state, 0, at=T0 + i * 1000)
    with pytest.raises(errors.ChatFlood) as flood:
        post(state, 0, at=T0 + 4500)
    assert flood.value.retry_after_ms == c.WINDOW_MS - 4500
    assert flood.value.retry_after_s == 6
    assert flood.value.rule == "chat_flood"
    # the other seat has a limit of its own
    assert post(state, 1, at=T0 + 4500).version == c.BURST + 1
    # once the oldest post leaves the window, one more fits, and then none again
    state = post(state, 0, at=T0 + c.WINDOW_MS)
    with pytest.raises(errors.ChatFlood) as again:
        post(state, 0, at=T0 + c.WINDOW_MS + 1)
    assert again.value.retry_after_ms == 1000 - 1


def test_a_post_stamped_ahead_of_now_still_counts_against_the_limit() -> None:
    """Two processes' clocks differ a little: a later-stamped post is not forgotten."""
    state = c.ChatState()
    for _ in range(c.BURST):
        state = post(state, 0, at=T0 + 3000)
    with pytest.raises(errors.ChatFlood) as flood:
        post(state, 0, at=T0)
    assert flood.value.retry_after_ms == c.WINDOW_MS + 3000


def test_a_refused_post_changes_nothing() -> None:
    state = post(c.ChatState(), 0)
    for text in ("", "x" * 300):
        with pytest.raises(errors.ChatError):
            c.decide(state, c.PostMessage(seat=0, text=text, now_ms=T0 + 1))
    assert state == post(c.ChatState(), 0)


def test_only_the_two_seats_chat() -> None:
    for seat in (-1, 2):
        with pytest.raises(errors.ChatError):
            c.decide(None, c.PostMessage(seat=seat, text="hi", now_ms=T0))
        with pytest.raises(errors.ChatError):
            c.decide(None, c.MuteOpponent(seat=seat, now_ms=T0))


def test_a_muted_opponents_messages_are_recorded_but_hidden_from_the_muter() -> None:
    state = c.fold(c.decide(None, c.MuteOpponent(seat=0, now_ms=T0)))
    assert state.muted == (True, False)
    posted = c.decide(state, c.PostMessage(seat=1, text="you fool", now_ms=T0 + 1))
    assert posted == [c.MessagePosted(seat=1, text="you fool", posted_ms=T0 + 1, hidden_from=0)]
    message = posted[0]
    assert isinstance(message, c.MessagePosted)
    assert not c.visible_to(message, 0)
    assert c.visible_to(message, 1) and c.visible_to(message, None)  # author, spectators
    # the muter's own messages still reach the opponent
    mine = c.decide(c.fold(posted, state), c.PostMessage(seat=0, text="gg", now_ms=T0 + 2))
    assert mine[0] == c.MessagePosted(seat=0, text="gg", posted_ms=T0 + 2)
    # unmuting shows later messages, not the ones posted while muted
    state = c.fold(
        [*posted, *c.decide(c.fold(posted, state), c.UnmuteOpponent(seat=0, now_ms=T0 + 3))], state
    )
    assert state.muted == (False, False)
    later = c.decide(state, c.PostMessage(seat=1, text="sorry", now_ms=T0 + 4))[0]
    assert isinstance(later, c.MessagePosted) and later.hidden_from is None


def test_muting_twice_or_unmuting_an_unmuted_seat_records_nothing() -> None:
    muted = c.fold(c.decide(None, c.MuteOpponent(seat=1, now_ms=T0)))
    assert c.decide(muted, c.MuteOpponent(seat=1, now_ms=T0 + 1)) == []
    assert c.decide(None, c.UnmuteOpponent(seat=1, now_ms=T0)) == []


def test_canned_messages_are_valid_messages() -> None:
    for text in c.CANNED:
        assert c.clean(text) == text and len(text) <= c.MAX_LENGTH


def _played(mute: bool) -> list[c.ChatEvent]:
    """Seat 0 posts three messages; with ``mute``, seat 1 mutes it before the second
    and unmutes before the third."""
    events: list[c.ChatEvent] = []
    script: list[c.AnyChatCommand] = [c.PostMessage(seat=0, text="one", now_ms=T0)]
    if mute:
        script.append(c.MuteOpponent(seat=1, now_ms=T0 + 1))
    script.append(c.PostMessage(seat=0, text="two", now_ms=T0 + 2))
    if mute:
        script.append(c.UnmuteOpponent(seat=1, now_ms=T0 + 3))
    script.append(c.PostMessage(seat=0, text="three", now_ms=T0 + 4))
    for command in script:
        events += c.decide(c.fold(events), command)
    return events


def test_a_mute_takes_no_number_readers_see() -> None:
    """The reviewer's case: the muted seat's messages are numbered 1, 2, 3 and the chat
    is at 3 whether or not it was muted; only the stream's own version counts mutes."""
    muted, plain = _played(mute=True), _played(mute=False)
    assert (c.fold(muted).version, c.fold(plain).version) == (5, 3)
    assert c.fold(muted).messages == c.fold(plain).messages == 3
    numbers = [(n, e.text) for n, e in c.numbered(muted)]
    assert numbers == [(n, e.text) for n, e in c.numbered(plain)]
    assert numbers == [(1, "one"), (2, "two"), (3, "three")]
    # the muter is not shown "two", and its own gap is the only one anyone sees
    assert [n for n, e in c.numbered(muted) if c.visible_to(e, 1)] == [1, 3]
    for reader in (0, None):
        assert [n for n, e in c.numbered(muted) if c.visible_to(e, reader)] == [1, 2, 3]


def test_muting_and_unmuting_leave_the_message_count_alone() -> None:
    state = c.fold(c.decide(None, c.PostMessage(seat=0, text="hi", now_ms=T0)))
    muted = c.fold(c.decide(state, c.MuteOpponent(seat=1, now_ms=T0 + 1)), state)
    assert (muted.messages, muted.version) == (1, 2)
    unmuted = c.fold(c.decide(muted, c.UnmuteOpponent(seat=1, now_ms=T0 + 2)), muted)
    assert (unmuted.messages, unmuted.version) == (1, 3)
    assert c.numbered(c.decide(muted, c.UnmuteOpponent(seat=1, now_ms=T0 + 2)), first=2) == []
