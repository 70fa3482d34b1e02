"""The problem registry (server/problem_types.py) covers every refusal the server can send.

A rule code missing from it would be sent with a made-up title and a ``type`` whose
page does not exist; a status there that disagrees with the error class would make
the page lie. The codes themselves are frozen: clients compare them byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import server.app  # noqa: F401 (imports every module that defines a ServerError)
from domain import errors as domain_errors
from infra import errors as infra_errors
from server.problem_types import BY_SLUG, PROBLEM_TYPES
from server.problems import DETAIL_LIMIT, Problem, ServerError, make_problem, problem_for

SERVER = Path(__file__).resolve().parents[2] / "server"
#: Codes that never reach a client: ``ginrummy verify`` prints this one on stderr.
CLI_ONLY = {"invalid_events"}

#: The rule codes as they were when the type URIs became relative: none renamed.
CODES_BEFORE_THE_CHANGE = {
    "malformed_json", "bad_request", "invalid_request", "invalid_card", "invalid_rules",
    "invalid_client_seed", "unauthorized", "not_your_match", "not_you", "match_not_found",
    "player_not_found", "not_ratable", "not_house_ai", "not_found", "method_not_allowed",
    "payload_too_large", "request_timeout", "client_disconnected", "rate_limited",
    "upgrade_required", "stale_version", "concurrency_conflict", "match_not_finished",
    "version_out_of_range", "idempotency_key_reused", "idempotency_mismatch",
    "stream_not_found", "store_unavailable", "unstorable_text", "bad_database_url",
    "already_exists", "undecodable_event", "internal_error", "table_not_found", "table_full",
    "table_cancelled", "table_expired", "table_already_opened", "table_not_due", "own_table",
    "invite_code_required", "not_the_host", "not_invited", "challenge_declined", "no_rematch",
    "watch_code_required", "spectators_cannot_act", "chat_error", "empty_message",
    "message_too_long", "chat_flood", "spectators_cannot_chat", "invalid_clock",
    "clock_not_due", "claim_too_early", "claim_against_house", "wrong_phase", "not_your_turn",
    "match_over", "card_not_in_hand", "illegal_command", "over_knock_limit", "not_gin",
}  # fmt: skip


def _family(base: type) -> list[type]:
    found = [base]
    for cls in base.__subclasses__():
        found += _family(cls)
    return found


ERRORS = [
    *_family(domain_errors.DomainError),
    *_family(infra_errors.InfraError),
    *_family(ServerError),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda cls: cls.__name__)
def test_every_error_class_has_its_type_with_the_status_it_is_sent_with(error: type) -> None:
    rule = error.rule  # type: ignore[attr-defined]
    assert rule in PROBLEM_TYPES, f"{error.__name__}: {rule} has no entry in problem_types.py"
    problem = problem_for(error("because"))
    assert problem.rule == rule and problem.type == PROBLEM_TYPES[rule].uri
    assert problem.status == PROBLEM_TYPES[rule].status
    assert problem.title == PROBLEM_TYPES[rule].title


def test_every_code_named_in_the_server_source_is_registered() -> None:
    """The codes handlers pass to make_problem, or map Litestar's errors to, by name."""
    named: set[str] = set()
    for path in SERVER.rglob("*.py"):
        text = path.read_text()
        named |= set(re.findall(r'make_problem\(\s*"([a-z_]+)"', text))
        named |= set(re.findall(r'rule = "([a-z_]+)"', text))
        named |= set(re.findall(r'^\s+\d{3}: "([a-z_]+)",$', text, re.MULTILINE))
    assert {"upgrade_required", "method_not_allowed", "spectators_cannot_act"} <= named
    assert named - set(PROBLEM_TYPES) == CLI_ONLY


def test_no_code_changed_and_each_type_is_its_code() -> None:
    assert set(PROBLEM_TYPES) >= CODES_BEFORE_THE_CHANGE
    for rule, problem in PROBLEM_TYPES.items():
        assert problem.rule == rule
        assert problem.uri == "/problems/" + rule.replace("_", "-")
        assert BY_SLUG[problem.slug] is problem
        assert 400 <= problem.status < 600
        for text in (problem.title, problem.meaning, problem.sent_when, problem.client_should):
            assert text.strip(), (rule, text)
    assert len(BY_SLUG) == len(PROBLEM_TYPES)


def test_a_problem_made_by_name_uses_the_registry() -> None:
    problem = make_problem("stale_version", "you acted on version 2")
    assert (problem.type, problem.status, problem.title) == (
        "/problems/stale-version",
        409,
        "Not the match's current version",
    )


def test_every_problem_cuts_its_detail_however_it_is_built() -> None:
    """A detail may quote input (an id, a field): no path that builds a problem, through
    ``make_problem`` or not, may send a client's 10,000 characters back."""
    long = "no player '" + "x" * 10_000 + "'"
    built = [
        make_problem("player_not_found", long),
        problem_for(infra_errors.UnstorableText(long)),
        Problem(
            type="/problems/not-found",
            title="No such resource",
            status=404,
            detail=long,
            rule="not_found",
        ),
    ]
    for problem in built:
        assert len(problem.detail) == DETAIL_LIMIT and problem.detail.endswith("…"), problem
    assert make_problem("player_not_found", "x" * DETAIL_LIMIT).detail == "x" * DETAIL_LIMIT
