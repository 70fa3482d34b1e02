"""Blocking: the block list's decider, and what a block decides at a table and in a chat.

Time and the facts the service reads (is the player a house AI, who blocks whom) arrive
in the commands, so every rule is tested with plain values.
"""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain import blocks as b
from domain import chat as c
from domain import errors
from domain import table as t
from domain.log import decode_stored
from domain.rules import PRESETS

T0 = 1_000_000


def block(state: b.BlockList, player: str, at: int = T0, house: bool = False) -> b.BlockList:
    command = b.BlockPlayer(blocker="me", player=player, now_ms=at, house=house)
    return b.fold(b.decide(state, command), state)


def unblock(state: b.BlockList, player: str, at: int = T0) -> b.BlockList:
    return b.fold(b.decide(state, b.UnblockPlayer(blocker="me", player=player, now_ms=at)), state)


def test_a_block_is_recorded_with_its_time_and_listed_in_order() -> None:
    events = b.decide(None, b.BlockPlayer(blocker="me", player="troll", now_ms=T0))
    assert events == [b.PlayerBlocked(player="troll", blocked_ms=T0)]
    state = block(b.fold(events), "pest", at=T0 + 5)
    assert state.blocked == (b.Blocked("troll", T0), b.Blocked("pest", T0 + 5))
    assert state.version == 2
    assert state.blocks("troll") and state.blocks("pest") and not state.blocks("friend")


def test_blocking_twice_records_nothing_and_keeps_the_first_time() -> None:
    state = block(b.BlockList(), "troll")
    assert b.decide(state, b.BlockPlayer(blocker="me", player="troll", now_ms=T0 + 9)) == []
    assert state.entry("troll") == b.Blocked("troll", T0)


def test_unblocking_removes_the_block_and_unblocking_again_records_nothing() -> None:
    state = block(block(b.BlockList(), "troll"), "pest")
    events = b.decide(state, b.UnblockPlayer(blocker="me", player="troll", now_ms=T0 + 1))
    assert events == [b.PlayerUnblocked(player="troll", unblocked_ms=T0 + 1)]
    after = b.fold(events, state)
    assert [entry.player for entry in after.blocked] == ["pest"]
    assert b.decide(after, b.UnblockPlayer(blocker="me", player="troll", now_ms=T0 + 2)) == []
    assert b.decide(None, b.UnblockPlayer(blocker="me", player="nobody", now_ms=T0)) == []
    again = block(after, "troll", at=T0 + 3)  # blocked again: a new time, at the end
    assert again.blocked == (b.Blocked("pest", T0), b.Blocked("troll", T0 + 3))


def test_a_player_cannot_block_itself_nor_the_house() -> None:
    with pytest.raises(errors.CannotBlockSelf):
        b.decide(None, b.BlockPlayer(blocker="me", player="me", now_ms=T0))
    with pytest.raises(errors.CannotBlockHouse):
        b.decide(None, b.BlockPlayer(blocker="me", player="ai:hard", now_ms=T0, house=True))
    assert errors.CannotBlockSelf.rule == "cannot_block_self"
    assert errors.CannotBlockHouse.rule == "cannot_block_house_ai"


def test_the_list_is_capped_and_a_full_list_still_unblocks_and_reblocks() -> None:
    state = b.fold(
        [b.PlayerBlocked(player=f"p{i}", blocked_ms=T0 + i) for i in range(b.MAX_BLOCKED)]
    )
    assert len(state.blocked) == b.MAX_BLOCKED
    with pytest.raises(errors.TooManyBlocks, match=str(b.MAX_BLOCKED)):
        b.decide(state, b.BlockPlayer(blocker="me", player="one-more", now_ms=T0))
    assert b.decide(state, b.BlockPlayer(blocker="me", player="p7", now_ms=T0)) == []  # held
    room = unblock(state, "p0")
    assert block(room, "one-more").blocks("one-more")


@given(st.lists(st.tuples(st.booleans(), st.sampled_from("abcde")), max_size=40))
def test_the_list_is_exactly_the_players_blocked_and_not_unblocked_since(
    steps: list[tuple[bool, str]],
) -> None:
    state = b.BlockList()
    expected: dict[str, None] = {}  # insertion-ordered: the order of the blocks in force
    for blocking, player in steps:
        state = block(state, player) if blocking else unblock(state, player)
        if blocking:
            expected.setdefault(player, None)
        else:
            expected.pop(player, None)
    assert [entry.player for entry in state.blocked] == list(expected)


def test_block_events_are_stored_under_their_tags_and_read_back() -> None:
    for event in (
        b.PlayerBlocked(player="troll", blocked_ms=T0),
        b.PlayerUnblocked(player="troll", unblocked_ms=T0 + 1),
    ):
        data = msgspec.json.encode(event)
        assert msgspec.json.decode(data)["type"] in ("player_blocked", "player_unblocked")
        assert decode_stored(data) == event


# --- what a block decides at a table --------------------------------------------------


def opened(private: bool = False) -> t.TableState:
    """A table "host" opened; a private one's invite code is "inv"."""
    command = t.OpenTable(
        table_id="t1",
        host="host",
        rules=PRESETS["arcadia"],
        private=private,
        now_ms=T0,
        expires_ms=T0 + 60_000,
        invite_code="inv" if private else None,
        watch_code="w" if private else None,
    )
    return t.fold(t.decide(None, command))


def challenge(**blocks: bool) -> t.OpenTable:
    return t.OpenTable(
        table_id="t1",
        host="sender",
        rules=PRESETS["arcadia"],
        private=False,
        now_ms=T0,
        expires_ms=T0 + 60_000,
        invitee="invitee",
        **blocks,  # type: ignore[arg-type]
    )


def test_a_challenge_to_someone_who_blocks_the_sender_is_refused_without_saying_why() -> None:
    with pytest.raises(errors.OpponentRefused) as refused:
        t.decide(None, challenge(invitee_blocks_host=True))
    assert "block" not in str(refused.value)


def test_a_challenge_to_someone_the_sender_blocks_is_refused_as_its_own_doing() -> None:
    with pytest.raises(errors.YouBlockThisPlayer):
        t.decide(None, challenge(host_blocks_invitee=True))
    with pytest.raises(errors.YouBlockThisPlayer):  # both: the sender hears of its own block
        t.decide(None, challenge(host_blocks_invitee=True, invitee_blocks_host=True))


def test_the_facts_of_a_block_are_never_recorded() -> None:
    (opened_event,) = t.decide(None, challenge())
    assert "blocks" not in msgspec.json.encode(opened_event).decode()


@pytest.mark.parametrize("private", [False, True])
def test_a_host_who_blocks_the_guest_does_not_seat_it(private: bool) -> None:
    state = opened(private)
    code = "inv" if private else None
    with pytest.raises(errors.OpponentRefused) as refused:
        t.decide(
            state,
            t.JoinTable(
                guest="guest",
                now_ms=T0 + 1,
                match_id="m1",
                invite_code=code,
                host_blocks_guest=True,
            ),
        )
    assert "block" not in str(refused.value)
    joined = t.decide(
        state, t.JoinTable(guest="guest", now_ms=T0 + 1, match_id="m1", invite_code=code)
    )
    assert isinstance(joined[0], t.TableJoined)


def test_a_table_refuses_for_its_own_reasons_before_the_block() -> None:
    """A closed table, or a private one without its code, says so: the blocked player
    learns nothing it would not learn without the block."""
    private = opened(private=True)
    with pytest.raises(errors.InviteCodeRequired):
        t.decide(
            private, t.JoinTable(guest="g", now_ms=T0 + 1, match_id="m", host_blocks_guest=True)
        )
    cancelled = t.fold(t.decide(private, t.CancelTable(player="host", now_ms=T0 + 1)), private)
    with pytest.raises(errors.TableCancelled):
        t.decide(
            cancelled,
            t.JoinTable(
                guest="g", now_ms=T0 + 2, match_id="m", invite_code="inv", host_blocks_guest=True
            ),
        )


def test_a_challenge_the_blocker_sent_before_blocking_cannot_be_accepted() -> None:
    state = t.fold(t.decide(None, challenge()))
    with pytest.raises(errors.OpponentRefused):
        t.decide(
            state, t.JoinTable(guest="invitee", now_ms=T0 + 1, match_id="m", host_blocks_guest=True)
        )
    # ...but declined, as any challenge
    assert t.decide(state, t.DeclineTable(player="invitee", now_ms=T0 + 1))


# --- what a block decides in a chat ---------------------------------------------------


def test_a_message_to_an_opponent_who_blocks_the_author_is_hidden_from_it_as_if_muted() -> None:
    (posted,) = c.decide(None, c.PostMessage(seat=0, text="hey", now_ms=T0, opponent_blocks=True))
    assert isinstance(posted, c.MessagePosted) and posted.hidden_from == 1
    assert c.visible_to(posted, 0) and c.visible_to(posted, None) and not c.visible_to(posted, 1)
    state = c.fold([posted])
    assert state.muted == (False, False)  # no mute is recorded: the block is the player's
    (later,) = c.decide(state, c.PostMessage(seat=0, text="hi", now_ms=T0 + 1))
    assert later.hidden_from is None  # type: ignore[union-attr]  # unblocked: shown again
