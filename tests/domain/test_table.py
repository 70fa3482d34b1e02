"""The table decider: who may take the seat, and the four ways a table closes.

Time arrives in the commands, so every rule about expiry is tested with plain numbers.
"""

from __future__ import annotations

import msgspec
import pytest

from domain import errors
from domain import table as t
from domain.deck import seed_commitment
from domain.rules import PRESETS, Clock, Rules, raised_to_the_floor, validate_clock
from domain.seeds import ClientSeed

OPENED_MS = 1_000_000
DUE_MS = OPENED_MS + 60_000


def opened(**fields: object) -> t.TableState:
    command = t.OpenTable(
        table_id="t1",
        host="host",
        rules=PRESETS["arcadia"],
        private=bool(fields.pop("private", False)),
        now_ms=OPENED_MS,
        expires_ms=DUE_MS,
        **fields,  # type: ignore[arg-type]
    )
    return t.fold(t.decide(None, command))


def join(
    state: t.TableState, guest: str = "guest", at: int = OPENED_MS + 5, code: str | None = None
):
    return t.decide(state, t.JoinTable(guest=guest, now_ms=at, match_id="m1", invite_code=code))


def test_a_guest_takes_the_free_seat_and_the_host_sits_in_seat_zero() -> None:
    state = opened()
    events = join(state)
    assert events == [t.TableJoined(guest="guest", match_id="m1", joined_ms=OPENED_MS + 5)]
    after = t.fold(events, state)
    assert (after.status, after.players, after.match_id, after.version) == (
        "started",
        ("host", "guest"),
        "m1",
        2,
    )


@pytest.mark.parametrize(
    ("close", "rule"),
    [
        (t.JoinTable(guest="first", now_ms=OPENED_MS + 1, match_id="m0"), "table_full"),
        (t.CancelTable(player="host", now_ms=OPENED_MS + 1), "table_cancelled"),
        (t.ExpireTable(now_ms=DUE_MS), "table_expired"),
    ],
)
def test_a_closed_table_takes_nobody(close: t.AnyTableCommand, rule: str) -> None:
    state = opened()
    state = t.fold(t.decide(state, close), state)
    with pytest.raises(errors.TableError) as refused:
        join(state)
    assert refused.value.rule == rule
    for again in (t.CancelTable(player="host", now_ms=DUE_MS - 1), t.ExpireTable(now_ms=DUE_MS)):
        with pytest.raises(errors.TableError):
            t.decide(state, again)


def test_the_seated_guest_joining_again_changes_nothing_and_is_not_refused() -> None:
    """A retried accept (its answer lost) finds the seat already its own: not table_full,
    which would say someone else took it; any other player still gets table_full."""
    for state in (opened(), opened(invitee="guest")):
        started = t.fold(join(state), state)
        assert join(started) == []
        assert join(started, at=DUE_MS + 1) == []  # after the table's own expiry too
        with pytest.raises(errors.TableFull):
            join(started, guest="other")


def test_past_its_time_a_table_is_closed_even_before_its_expiry_is_recorded() -> None:
    state = opened()
    assert state.open_at(DUE_MS - 1) and not state.open_at(DUE_MS)
    with pytest.raises(errors.TableExpired):
        join(state, at=DUE_MS)
    with pytest.raises(errors.TableNotDue):
        t.decide(state, t.ExpireTable(now_ms=DUE_MS - 1))
    assert t.decide(state, t.ExpireTable(now_ms=DUE_MS)) == [t.TableExpired(expired_ms=DUE_MS)]


def test_the_host_alone_may_cancel_and_may_not_join() -> None:
    state = opened()
    with pytest.raises(errors.NotTheHost):
        t.decide(state, t.CancelTable(player="guest", now_ms=OPENED_MS + 1))
    with pytest.raises(errors.OwnTable):
        join(state, guest="host")
    started = t.fold(join(state), state)
    with pytest.raises(errors.OwnTable):  # not "table_full": it is the host's own table
        join(started, guest="host")
    with pytest.raises(errors.TableStarted, match="resign the match"):  # says what to do instead
        t.decide(started, t.CancelTable(player="host", now_ms=OPENED_MS + 9))
    challenge = opened(invitee="guest")
    accepted = t.fold(join(challenge), challenge)
    # not "both seats are taken", and it says what to do instead
    with pytest.raises(errors.TableStarted, match="was accepted: resign the match"):
        t.decide(accepted, t.DeclineTable(player="guest", now_ms=OPENED_MS + 9))


def test_a_private_table_needs_its_invite_code_and_only_that() -> None:
    state = opened(private=True, invite_code="invite", watch_code="watch")
    for wrong in (None, "", "watch", "invit", "invite "):
        with pytest.raises(errors.InviteCodeRequired) as refused:
            join(state, code=wrong)
        said = str(refused.value)  # a missing code is asked for; a wrong one is called wrong
        assert ("not its invite code" in said) == (wrong is not None), said
    assert join(state, code="invite")[0].guest == "guest"  # type: ignore[attr-defined]
    with pytest.raises(errors.TableError):
        t.decide(None, t.OpenTable("t2", "h", Rules(), True, OPENED_MS, DUE_MS))  # no codes


def test_a_challenge_is_accepted_or_declined_by_its_invitee_alone() -> None:
    state = opened(invitee="invitee")
    with pytest.raises(errors.NotInvited):
        join(state, guest="stranger")
    with pytest.raises(errors.NotInvited):
        t.decide(state, t.DeclineTable(player="stranger", now_ms=OPENED_MS + 1))
    declined = t.fold(
        t.decide(state, t.DeclineTable(player="invitee", now_ms=OPENED_MS + 1)), state
    )
    assert declined.status == "declined"
    with pytest.raises(errors.TableDeclined):
        join(declined, guest="invitee")
    assert t.fold(join(state, guest="invitee"), state).players == ("host", "invitee")
    with pytest.raises(errors.OwnTable):
        opened(invitee="host")
    # a public table is no challenge: said so, where "only the challenged player may
    # decline" suggested there was one, addressed to someone else
    with pytest.raises(errors.NotInvited, match=r"challenges nobody.*host may cancel"):
        t.decide(opened(), t.DeclineTable(player="stranger", now_ms=OPENED_MS + 1))


def test_a_challenges_refusals_speak_of_a_challenge() -> None:
    """They spoke of a table: "nobody joined this table in time", and the invitee's cancel
    "only the table's host may cancel it", with no word of the decline it meant."""
    challenge = opened(invitee="invitee")
    with pytest.raises(errors.NotTheHost, match="decline it instead"):
        t.decide(challenge, t.CancelTable(player="invitee", now_ms=OPENED_MS + 1))
    with pytest.raises(errors.TableExpired, match="nobody accepted this challenge in time"):
        join(challenge, guest="invitee", at=DUE_MS)
    withdrawn = t.fold(t.decide(challenge, t.CancelTable("host", OPENED_MS + 1)), challenge)
    with pytest.raises(errors.TableCancelled, match="the challenger withdrew"):
        join(withdrawn, guest="invitee")
    with pytest.raises(errors.TableExpired, match="nobody joined this table in time"):
        join(opened(), guest="guest", at=DUE_MS)  # a table's words for a table


def test_a_table_is_opened_once_and_must_stay_open_for_some_time() -> None:
    state = opened()
    with pytest.raises(errors.TableAlreadyOpened):
        t.decide(state, t.OpenTable("t1", "host", Rules(), False, OPENED_MS, DUE_MS))
    with pytest.raises(errors.TableError):
        t.decide(None, t.OpenTable("t2", "host", Rules(), False, OPENED_MS, OPENED_MS))
    with pytest.raises(errors.TableNotOpened):
        t.decide(None, t.ExpireTable(now_ms=DUE_MS))


# --- the fair deal of a table's match ------------------------------------------------------

SERVER_SEED = "cd" * 32
COMMITTED_MS = OPENED_MS - 5_000  # the host was shown the commitment before opening


def fair_table() -> t.TableState:
    return opened(
        seed=SERVER_SEED,
        seed_committed_ms=COMMITTED_MS,
        host_seed=ClientSeed("host-seed", "host", OPENED_MS),
    )


def test_each_seat_adds_its_seed_after_the_commitment_the_table_shows() -> None:
    state = fair_table()
    assert state.seed_commitment == seed_commitment(SERVER_SEED)
    guest_seed = ClientSeed("guest-seed", "guest", OPENED_MS + 5)
    events = t.decide(
        state,
        t.JoinTable(guest="guest", now_ms=OPENED_MS + 5, match_id="m1", guest_seed=guest_seed),
    )
    after = t.fold(events, state)
    assert (after.host_seed, after.guest_seed) == (state.host_seed, guest_seed)


@pytest.mark.parametrize(
    "guest_seed",
    [
        None,
        ClientSeed("a:b", "guest", OPENED_MS + 5),
        ClientSeed("early", "guest", COMMITTED_MS - 1),
    ],
)
def test_a_fair_tables_guest_must_give_a_usable_seed(guest_seed: ClientSeed | None) -> None:
    with pytest.raises(errors.InvalidClientSeed):
        t.decide(
            fair_table(),
            t.JoinTable(guest="guest", now_ms=OPENED_MS + 5, match_id="m1", guest_seed=guest_seed),
        )


def test_a_host_seed_needs_a_server_seed_and_must_be_usable() -> None:
    with pytest.raises(errors.InvalidClientSeed):
        opened(host_seed=ClientSeed("host-seed", "host", OPENED_MS))  # no server seed
    with pytest.raises(errors.InvalidClientSeed):
        opened(
            seed=SERVER_SEED,
            seed_committed_ms=COMMITTED_MS,
            host_seed=ClientSeed("x" * 65, "host", OPENED_MS),
        )


def test_a_table_opened_before_fair_deals_is_joined_as_before() -> None:
    recorded = t.TableOpened(  # as recorded then: no seeds, no hints field
        table_id="t1",
        host="host",
        rules=PRESETS["arcadia"],
        private=False,
        opened_ms=OPENED_MS,
        expires_ms=DUE_MS,
    )
    state = t.fold([recorded])
    assert state.hints and state.seed is None  # tables before hints gave advice
    given = ClientSeed("guest-seed", "guest", OPENED_MS + 5)
    events = t.decide(
        state, t.JoinTable(guest="guest", now_ms=OPENED_MS + 5, match_id="m1", guest_seed=given)
    )
    assert events == [t.TableJoined(guest="guest", match_id="m1", joined_ms=OPENED_MS + 5)]


def test_a_new_table_clock_is_at_least_a_second() -> None:
    with pytest.raises(errors.InvalidClock, match="at least 1000 ms"):
        opened(clock=Clock(per_move_ms=999))
    assert opened(clock=Clock(bank_ms=1000)).clock == Clock(bank_ms=1000)


def test_a_table_recorded_under_a_clock_below_the_floor_replays_but_is_not_joined() -> None:
    """It folds as recorded; a join would start a match under a clock refused now, so it
    is refused before anything is recorded (the table stays open until it expires)."""
    recorded = t.TableOpened(  # as recorded before clocks had a floor
        table_id="t1",
        host="host",
        rules=PRESETS["arcadia"],
        private=False,
        opened_ms=OPENED_MS,
        expires_ms=DUE_MS,
        clock=Clock(per_move_ms=1),
    )
    state = t.fold([recorded])
    assert state.clock == Clock(per_move_ms=1)
    assert state.open_at(OPENED_MS + 5)
    with pytest.raises(errors.InvalidClock, match="opened with a clock under today's floor"):
        join(state)  # said as the guest can act on: it sent no clock


def test_a_rematch_keeps_a_recorded_clock_raised_to_the_floor() -> None:
    assert raised_to_the_floor(Clock(per_move_ms=1)) == Clock(per_move_ms=1000)
    assert raised_to_the_floor(Clock(bank_ms=5, increment_ms=7)) == Clock(
        bank_ms=1000, increment_ms=7
    )
    kept = Clock(bank_ms=60_000, increment_ms=2000)
    assert raised_to_the_floor(kept) == kept
    assert validate_clock(raised_to_the_floor(Clock(per_move_ms=1)))


# --- how much one host may have open at once (check_room) -----------------------------


def tables(n: int) -> list[t.Hosted]:
    return [t.Hosted(f"t{i}") for i in range(n)]


def challenges(*invitees: str) -> list[t.Hosted]:
    return [t.Hosted(f"c{i}", invitee) for i, invitee in enumerate(invitees)]


def test_a_host_may_have_a_few_tables_open_and_no_more() -> None:
    for n in range(t.MAX_OPEN_TABLES):
        t.check_room("host", None, tables(n))
    with pytest.raises(errors.TooManyOpenTables) as refused:
        t.check_room("host", None, tables(t.MAX_OPEN_TABLES))
    detail = str(refused.value)
    assert f"({t.MAX_OPEN_TABLES})" in detail and "cancel" in detail and "t0" in detail
    assert refused.value.rule == "too_many_open_tables"
    # a host over the cap from before it existed is refused too, and told its first tables
    with pytest.raises(errors.TooManyOpenTables) as over:
        t.check_room("host", None, tables(60))
    assert "t59" not in str(over.value)


def test_challenges_do_not_count_as_tables_nor_tables_as_challenges() -> None:
    many = challenges(*(f"p{i}" for i in range(t.MAX_OPEN_CHALLENGES)))
    t.check_room("host", None, many + tables(t.MAX_OPEN_TABLES - 1))
    t.check_room("host", "someone", tables(t.MAX_OPEN_TABLES) + many[:-1])


def test_one_open_challenge_from_a_sender_to_the_same_player() -> None:
    with pytest.raises(errors.AlreadyChallenged) as refused:
        t.check_room("host", "bob", challenges("ann", "bob"))
    assert "c1" in str(refused.value) and "/v1/challenges/c1/cancel" in str(refused.value)
    t.check_room("host", "cy", challenges("ann", "bob"))  # another player: allowed


def test_a_sender_has_a_bounded_number_of_challenges_open_in_all() -> None:
    open_now = challenges(*(f"p{i}" for i in range(t.MAX_OPEN_CHALLENGES - 1)))
    t.check_room("host", "newcomer", open_now)
    with pytest.raises(errors.TooManyOpenChallenges) as refused:
        t.check_room("host", "newcomer", [*open_now, t.Hosted("last", "another")])
    assert f"({t.MAX_OPEN_CHALLENGES})" in str(refused.value)


def test_the_caps_are_a_few_tables_one_challenge_per_player_and_ten_in_all() -> None:
    assert (t.MAX_OPEN_TABLES, t.MAX_CHALLENGES_TO_ONE, t.MAX_OPEN_CHALLENGES) == (3, 1, 10)


def test_two_players_whose_names_pass_for_each_other_are_not_brought_together() -> None:
    """The service reads both names and says whether they pass for each other; the table
    refuses the challenge or the seat, records nothing, and a table whose names differ
    goes on as before (after the table's own refusals, which say more)."""
    challenge = t.OpenTable(
        table_id="c1",
        host="host",
        rules=PRESETS["arcadia"],
        private=False,
        now_ms=OPENED_MS,
        expires_ms=DUE_MS,
        invitee="guest",
        same_name=True,
    )
    with pytest.raises(errors.NameTaken) as refused:
        t.decide(None, challenge)
    assert refused.value.rule == "name_taken"
    with pytest.raises(errors.OwnTable):  # a challenge to oneself says so first
        t.decide(None, msgspec.structs.replace(challenge, invitee="host"))
    state = opened()
    seat = t.JoinTable(guest="guest", now_ms=OPENED_MS + 5, match_id="m1", same_name=True)
    with pytest.raises(errors.NameTaken):
        t.decide(state, seat)
    assert state.status == "open"
    assert join(state)[0] == t.TableJoined(guest="guest", match_id="m1", joined_ms=OPENED_MS + 5)
