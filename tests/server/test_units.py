"""Server pieces that need no process: settings, problem mapping, actions, tokens, fan-out."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import msgspec
import pytest

from domain import commands
from domain import errors as domain_errors
from domain.rules import make_rules
from infra import errors as infra_errors
from server.auth import bearer_token, hash_token, new_token
from server.config import SETTINGS_TABLE, Settings, settings_markdown
from server.fanout import Hub
from server.http.media_type import is_json
from server.limits import Allowance, RateLimited
from server.problem_types import PROBLEM_TYPES
from server.problems import InvalidRequest, ServerError, Unauthorized, problem_for
from server.schemas import Action, CustomRules, to_command


def _subclasses(base: type) -> list[type]:
    found = []
    for cls in base.__subclasses__():
        found += [cls, *_subclasses(cls)]
    return found


def test_an_allowance_refuses_past_its_count_in_any_window_and_counts_no_refusal() -> None:
    resumes = Allowance(2, 10.0)
    resumes.spend("resumes", now=100.0)
    resumes.spend("resumes", now=104.0)
    for now, wait in ((104.5, 6), (109.9, 1)):  # refused until the first use is 10 s old
        with pytest.raises(RateLimited) as refused:
            resumes.spend("resumes", now=now)
        assert refused.value.retry_after == wait
    assert "at most 2 resumes in any 10 s; retry in 1 s" in str(refused.value)
    resumes.spend("resumes", now=110.0)  # the window slid past the first (refusals not counted)
    with pytest.raises(RateLimited) as refused:
        resumes.spend("resumes", now=110.0)
    assert refused.value.retry_after == 4  # the second use leaves the window at 114


def test_settings_come_from_the_documented_variables() -> None:
    settings = Settings.from_env({"GINRUMMY_PORT": "9001", "GINRUMMY_WS_HEARTBEAT_S": "2.5"})
    assert settings.port == 9001 and settings.ws_heartbeat_s == 2.5
    assert Settings.from_env({}) == Settings()
    table = settings_markdown()
    for _, variable, *_ in SETTINGS_TABLE:
        assert f"`{variable}`" in table
    with pytest.raises(SystemExit):
        Settings.from_env({"GINRUMMY_PORT": "eighty"})


def test_trusted_proxies_are_addresses_or_networks() -> None:
    for raw in ("", "127.0.0.1", "10.0.0.0/8, ::1", "*"):
        assert Settings.from_env({"GINRUMMY_TRUSTED_PROXIES": raw}).trusted_proxies == raw
    for raw in ("localhost", "10.0.0.0/40", "127.0.0.1;10.0.0.1"):
        with pytest.raises(SystemExit, match="GINRUMMY_TRUSTED_PROXIES"):
            Settings.from_env({"GINRUMMY_TRUSTED_PROXIES": raw})


@pytest.mark.parametrize("raw", ["0", "-1", "nan", "inf"])
@pytest.mark.parametrize(
    "variable",
    [
        "GINRUMMY_CLOCK_SWEEP_S",
        "GINRUMMY_NEXT_HAND_TIMEOUT_S",
        "GINRUMMY_ABSENCE_GRACE_S",
        "GINRUMMY_STREAM_PING_S",
    ],
)
def test_a_clock_setting_is_a_positive_number_of_seconds(variable: str, raw: str) -> None:
    # 0 or less would sweep or ping in a busy loop, deal the next hand at once, or let a
    # claim in the moment a socket drops; nan and inf crash the server later
    with pytest.raises(SystemExit, match=variable):
        Settings.from_env({variable: raw})


def test_the_stream_ping_is_no_busy_loop() -> None:
    with pytest.raises(SystemExit, match="GINRUMMY_STREAM_PING_S"):
        Settings.from_env({"GINRUMMY_STREAM_PING_S": "1e-6"})
    assert Settings.from_env({"GINRUMMY_STREAM_PING_S": "0.1"}).stream_ping_s == 0.1


def test_the_ai_processes_are_zero_or_more() -> None:
    assert Settings.from_env({"GINRUMMY_AI_PROCESSES": "0"}).ai_processes == 0
    for raw in ("-1", "two"):
        with pytest.raises(SystemExit, match="GINRUMMY_AI_PROCESSES"):
            Settings.from_env({"GINRUMMY_AI_PROCESSES": raw})


def test_the_database_connections_are_two_or_more() -> None:
    """One is refused at start: a step holding names (infra/players.py, ``lock_holders``)
    keeps a connection for its lock and works with a second, so on a pool of one every
    seat waited out the pool's timeout and failed."""
    from infra.database import MAX_CONNECTIONS

    # one default in three places: the table, the dataclass and the engine's own
    assert Settings.from_env({}).db_connections == Settings().db_connections == MAX_CONNECTIONS
    assert Settings.from_env({"GINRUMMY_DB_CONNECTIONS": "3"}).db_connections == 3
    for raw in ("0", "1", "-2", "many"):
        with pytest.raises(SystemExit, match="GINRUMMY_DB_CONNECTIONS"):
            Settings.from_env({"GINRUMMY_DB_CONNECTIONS": raw})


def test_the_presence_refresh_and_the_name_lock_wait_keep_their_defaults() -> None:
    """Both were constants the tests sat through (a killed process's sockets counted for
    20 s, a rename behind a stuck name waited 10 s); as settings their defaults are the
    constants the code falls back on, and a row of a process counts for four refreshes."""
    from infra.players import NAME_LOCK_WAIT_S
    from infra.process_rows import REFRESH_S, fresh_ms

    defaults = Settings.from_env({})
    assert defaults.presence_refresh_s == Settings().presence_refresh_s == REFRESH_S == 5
    assert fresh_ms(REFRESH_S) == 20_000
    assert defaults.name_lock_wait_s == Settings().name_lock_wait_s == NAME_LOCK_WAIT_S == 10
    set_ = {"GINRUMMY_PRESENCE_REFRESH_S": "0.5", "GINRUMMY_NAME_LOCK_WAIT_S": "1.5"}
    settings = Settings.from_env(set_)
    assert (settings.presence_refresh_s, settings.name_lock_wait_s) == (0.5, 1.5)


# Values each setting refuses at start (one line naming the variable), per its range in
# SETTINGS_TABLE: each once meant a busy loop, an unbounded queue, a port modulo 65536, a
# token for ever, every request refused, or a traceback from logging or uvicorn.
REFUSED = [
    ("GINRUMMY_TABLE_SWEEP_S", "0"),
    ("GINRUMMY_TABLE_SWEEP_S", "-1"),
    ("GINRUMMY_WS_HEARTBEAT_S", "0"),
    ("GINRUMMY_WS_HEARTBEAT_S", "-3"),
    ("GINRUMMY_WS_HEARTBEAT_S", "0.001"),
    ("GINRUMMY_PORT", "83636"),
    ("GINRUMMY_PORT", "65536"),
    ("GINRUMMY_PORT", "0"),
    ("GINRUMMY_PORT", "-1"),
    ("GINRUMMY_TOKEN_TTL_S", "-5"),
    ("GINRUMMY_TOKEN_TTL_S", "inf"),
    ("GINRUMMY_TOKEN_TTL_S", "nan"),
    ("GINRUMMY_RATE_WINDOW_S", "0"),
    ("GINRUMMY_RATE_WINDOW_S", "-60"),
    ("GINRUMMY_TABLE_TTL_S", "0"),
    ("GINRUMMY_TABLE_TTL_S", "-1"),
    ("GINRUMMY_MAX_BODY_BYTES", "0"),
    ("GINRUMMY_MAX_BODY_BYTES", "-5"),
    ("GINRUMMY_WS_QUEUE_SIZE", "0"),
    ("GINRUMMY_WS_QUEUE_SIZE", "-1"),
    ("GINRUMMY_WORKERS", "-2"),
    ("GINRUMMY_AI_PACE_MS", "-100"),
    ("GINRUMMY_AI_TIME_CAP_MS", "-1"),
    ("GINRUMMY_AI_TIME_CAP_MS", "0"),
    ("GINRUMMY_BODY_TIMEOUT_S", "-1"),
    ("GINRUMMY_BODY_TIMEOUT_S", "inf"),
    ("GINRUMMY_RATE_CREATES_PER_PLAYER", "-1"),
    ("GINRUMMY_RATE_CREATES_PER_ADDRESS", "-1"),
    ("GINRUMMY_RATE_ACTIONS_PER_PLAYER", "-1"),
    ("GINRUMMY_RATE_ACTIONS_PER_ADDRESS", "-1"),
    ("GINRUMMY_CONNECTIONS_PER_ADDRESS", "-1"),
    ("GINRUMMY_TAIL_POLL_MS", "0"),
    ("GINRUMMY_WS_MAX_MESSAGE_BYTES", "0"),
    ("GINRUMMY_WS_MAX_MESSAGE_BYTES", "-1"),
    ("GINRUMMY_LOG_LEVEL", "verbose"),
    ("GINRUMMY_LOG_LEVEL", "warn"),
    ("GINRUMMY_LOG_LEVEL", ""),
    ("GINRUMMY_STATIC_DIR", "/nonexistent"),
    ("GINRUMMY_PRESENCE_REFRESH_S", "0"),
    ("GINRUMMY_PRESENCE_REFRESH_S", "0.01"),
    ("GINRUMMY_PRESENCE_REFRESH_S", "-5"),
    ("GINRUMMY_PRESENCE_REFRESH_S", "inf"),
    ("GINRUMMY_NAME_LOCK_WAIT_S", "0"),
    ("GINRUMMY_NAME_LOCK_WAIT_S", "-1"),
    ("GINRUMMY_NAME_LOCK_WAIT_S", "nan"),
]


@pytest.mark.parametrize(("variable", "raw"), REFUSED)
def test_a_value_out_of_a_settings_range_is_one_line_naming_it(variable: str, raw: str) -> None:
    with pytest.raises(SystemExit) as refused:
        Settings.from_env({variable: raw})
    line = str(refused.value.code)
    assert line.startswith(f"{variable}={raw!r} ") and "must be" in line and "\n" not in line


@pytest.mark.parametrize(
    ("variable", "raw", "said"),
    [
        ("GINRUMMY_PORT", "83636", "must be 1–65535"),
        ("GINRUMMY_PORT", "eighty", "is not a whole number (it must be 1–65535)"),
        ("GINRUMMY_TOKEN_TTL_S", "inf", "is not a finite number (it must be 0 or more seconds)"),
        ("GINRUMMY_TABLE_SWEEP_S", "0", "must be more than 0 seconds"),
        ("GINRUMMY_WS_QUEUE_SIZE", "0", "must be 1 or more"),
        ("GINRUMMY_MAX_BODY_BYTES", "-5", "must be 1 or more bytes"),
        ("GINRUMMY_LOG_LEVEL", "warn", "one of critical, error, warning, info, debug, trace"),
        ("GINRUMMY_STATIC_DIR", "/nonexistent", "must be a directory holding index.html"),
    ],
)
def test_a_refusal_says_what_the_value_must_be(variable: str, raw: str, said: str) -> None:
    with pytest.raises(SystemExit, match=re.escape(said)):
        Settings.from_env({variable: raw})


@pytest.mark.parametrize(
    ("variable", "raw", "value"),
    [
        ("GINRUMMY_TOKEN_TTL_S", "0", 0.0),  # until rotated or revoked
        ("GINRUMMY_BODY_TIMEOUT_S", "0", 0.0),  # wait for ever
        ("GINRUMMY_RATE_CREATES_PER_PLAYER", "0", 0),  # no limit
        ("GINRUMMY_RATE_CREATES_PER_ADDRESS", "0", 0),
        ("GINRUMMY_RATE_ACTIONS_PER_PLAYER", "0", 0),
        ("GINRUMMY_RATE_ACTIONS_PER_ADDRESS", "0", 0),
        ("GINRUMMY_CONNECTIONS_PER_ADDRESS", "0", 0),
        ("GINRUMMY_WORKERS", "0", 0),  # one per core on PostgreSQL
        ("GINRUMMY_AI_PACE_MS", "0", 0),  # plays at once
        ("GINRUMMY_AI_PROCESSES", "0", 0),  # a thread
        ("GINRUMMY_PORT", "1", 1),
        ("GINRUMMY_PORT", "65535", 65535),
        ("GINRUMMY_WS_HEARTBEAT_S", "0.1", 0.1),
        ("GINRUMMY_TABLE_SWEEP_S", "0.01", 0.01),
        ("GINRUMMY_RATE_WINDOW_S", "1", 1),
        ("GINRUMMY_TABLE_TTL_S", "1", 1),
        ("GINRUMMY_WS_QUEUE_SIZE", "1", 1),
        ("GINRUMMY_MAX_BODY_BYTES", "1", 1),
        ("GINRUMMY_WS_MAX_MESSAGE_BYTES", "1", 1),
        ("GINRUMMY_TAIL_POLL_MS", "1", 1),
        ("GINRUMMY_AI_TIME_CAP_MS", "1", 1),
        ("GINRUMMY_LOG_LEVEL", "trace", "trace"),
        ("GINRUMMY_LOG_LEVEL", "WARNING", "WARNING"),  # uvicorn and logging ignore the case
        ("GINRUMMY_STATIC_DIR", "", ""),  # the bundled page
    ],
)
def test_the_edges_of_a_settings_range_stay_valid(variable: str, raw: str, value: object) -> None:
    name = next(name for name, var, *_ in SETTINGS_TABLE if var == variable)
    assert getattr(Settings.from_env({variable: raw}), name) == value


def test_every_number_setting_declares_its_range_and_every_default_is_in_it() -> None:
    from dataclasses import fields

    from server.config import Bounds

    kinds = {field.name: str(field.type) for field in fields(Settings)}
    for name, variable, default, _, check in SETTINGS_TABLE:
        if kinds[name] in ("int", "float"):
            assert isinstance(check, Bounds), variable
        assert Settings.from_env({variable: default}) == Settings()


def test_the_log_levels_are_uvicorns() -> None:
    from uvicorn.config import LOG_LEVELS as UVICORN_LEVELS

    from server.config import LOG_LEVELS

    assert set(LOG_LEVELS) == set(UVICORN_LEVELS)


def test_the_log_formats_are_the_formatters() -> None:
    from server.config import LOG_FORMATS
    from server.log_format import FORMATS

    assert LOG_FORMATS == FORMATS


def test_the_page_directory_must_hold_the_page(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<p>")
    for bad in (tmp_path, tmp_path / "page.html", tmp_path / "missing"):
        with pytest.raises(SystemExit, match="GINRUMMY_STATIC_DIR"):
            Settings.from_env({"GINRUMMY_STATIC_DIR": str(bad)})
    (tmp_path / "index.html").write_text("<p>")
    assert Settings.from_env({"GINRUMMY_STATIC_DIR": str(tmp_path)}).static_dir == str(tmp_path)


def test_an_unknown_ginrummy_variable_is_warned_of_with_the_likely_name() -> None:
    from server.config import unknown_variables

    warnings = unknown_variables(
        {
            "GINRUMMY_DATABSE_URL": "postgresql://db/game",
            "GINRUMMY_port": "9000",
            "GINRUMMY_COLOUR": "blue",
            "GINRUMMY_PORT": "9000",  # known: no warning
            "PORT": "1",  # not ours
        }
    )
    assert warnings == [
        "GINRUMMY_COLOUR is not a setting of this server and is ignored",
        "GINRUMMY_DATABSE_URL is not a setting of this server and is ignored;"
        " did you mean GINRUMMY_DATABASE_URL?",
        "GINRUMMY_port is not a setting of this server and is ignored; did you mean GINRUMMY_PORT?",
    ]
    assert unknown_variables({var: default for _, var, default, *_ in SETTINGS_TABLE}) == []


@pytest.mark.parametrize(
    ("url", "postgres"),
    [
        ("", False),
        ("sqlite:///data/other.sqlite3", False),
        ("sqlite+aiosqlite:///data/other.sqlite3", False),
        ("postgresql://db/game", True),
        ("postgres://db/game", True),  # the store reads it as PostgreSQL: so do the workers
        ("postgresql+asyncpg://db/game", True),
    ],
)
def test_workers_are_one_per_core_on_any_spelling_of_postgresql(url: str, postgres: bool) -> None:
    import os

    from server.config import worker_count

    settings = Settings.from_env({"GINRUMMY_DATABASE_URL": url})
    assert worker_count(settings) == ((os.cpu_count() or 1) if postgres else 1)
    assert (
        worker_count(Settings.from_env({"GINRUMMY_DATABASE_URL": url, "GINRUMMY_WORKERS": "3"}))
        == 3
    )


def test_the_store_is_named_without_user_password_or_query() -> None:
    from infra.database import describe, resolve_url

    url = resolve_url("postgres://alice:s3cret@db.internal:6543/games?sslmode=require")
    said = describe(url)
    assert said == "the PostgreSQL database games on db.internal:6543"
    said = describe(resolve_url("postgresql:///games?host=/run/postgresql&password=s3cret"))
    assert said == "the PostgreSQL database games on /run/postgresql:5432"
    said = describe(resolve_url("sqlite:///data/x.sqlite3", create_dirs=False))
    assert said == f"the SQLite file {Path('data/x.sqlite3').resolve()}"


def test_a_postgresql_url_with_an_option_the_driver_does_not_take_is_refused() -> None:
    """asyncpg failed its first connect with a TypeError traceback (an operator's find)."""
    from infra.database import resolve_url
    from infra.errors import BadDatabaseUrl

    with pytest.raises(BadDatabaseUrl, match="sslpassword") as refused:
        resolve_url("postgresql://alice:s3cret@db/games?sslpassword=x&sslmode=require")
    assert "s3cret" not in str(refused.value)
    kept = resolve_url("postgresql://db/games?sslmode=require&command_timeout=5&host=/run/pg")
    assert kept.endswith("?command_timeout=5&host=%2Frun%2Fpg&ssl=require"), kept


def test_a_bad_port_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from server.cli import main

    for raw in ("83636", "0", "-1", "http"):
        with pytest.raises(SystemExit) as refused:
            main(["serve", "--port", raw])
        assert refused.value.code == 2
        said = capsys.readouterr().err
        assert f"argument --port: {raw!r} " in said and "1–65535" in said, said


@pytest.mark.parametrize(
    "error",
    [
        *_subclasses(domain_errors.DomainError),
        *_subclasses(infra_errors.InfraError),
        *_subclasses(ServerError),
    ],
)
def test_every_error_becomes_a_problem_with_a_stable_type(error: type[Exception]) -> None:
    problem = problem_for(error("because"))
    rule = error.rule  # type: ignore[attr-defined]
    assert problem.type == "/problems/" + rule.replace("_", "-") == PROBLEM_TYPES[rule].uri
    assert problem.rule == rule and problem.detail
    assert 400 <= problem.status < 600
    if issubclass(error, domain_errors.DomainError | ServerError):
        assert problem.status < 500, "a client's mistake is never a 5xx"


def test_an_unexpected_exception_is_a_500_problem_without_details() -> None:
    problem = problem_for(RuntimeError("secret internals"))
    assert problem.status == 500 and "secret" not in problem.detail


def test_every_action_maps_to_the_seat_command_of_the_same_type() -> None:
    examples = {
        "discard": {"card": "7H"},
        "knock": {"card": "7H"},
        "gin": {"card": "7H"},
        "lay_off": {"card": "7H", "meld": 1},
    }
    action_types = Action.__args__  # type: ignore[attr-defined]
    assert len(action_types) == len(commands.AnySeatCommand.__args__)  # type: ignore[attr-defined]
    for kind in action_types:
        tag = kind.__struct_config__.tag
        action = msgspec.convert({"type": tag, **examples.get(tag, {})}, Action)
        command = to_command(action, 1)
        assert command.__struct_config__.tag == tag and command.seat == 1
    # A legal entry names its seat: the caller's own is taken, another refused.
    echoed = msgspec.convert({"type": "discard", "card": "7H", "seat": 1}, Action)
    assert to_command(echoed, 1) == commands.Discard(seat=1, card="7H")
    with pytest.raises(InvalidRequest, match=r"action\.seat"):
        to_command(echoed, 0)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"type": "discard", "card": "7H", "seat": 2}, Action)


def test_custom_rules_pass_only_the_fields_given() -> None:
    rules = msgspec.convert({"preset": "classic", "big_gin_bonus": None, "target": 50}, CustomRules)
    assert rules.overrides() == {"big_gin_bonus": None, "target": 50}


@pytest.mark.parametrize(
    ("given", "limit"),
    [({}, 100), ({"pile_draw_limit": 40}, 40), ({"pile_draw_limit": None}, None)],
)
def test_a_custom_rule_set_keeps_changes_or_drops_the_no_progress_limit(
    given: dict[str, object], limit: int | None
) -> None:
    rules = msgspec.convert({"preset": "arkadium", "target": 50, **given}, CustomRules)
    assert make_rules("arkadium", **rules.overrides()).pile_draw_limit == limit
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"preset": "arkadium", "pile_draw_limit": 0}, CustomRules)


def test_tokens_are_random_and_only_their_hash_is_kept() -> None:
    first, second = new_token(), new_token()
    assert first != second and len(first) >= 40
    assert hash_token(first) != first and len(hash_token(first)) == 64
    assert bearer_token(f"Bearer {first}") == first
    for bad in (None, "", "Basic abc", "Bearer "):
        with pytest.raises(Unauthorized):
            bearer_token(bad)
    # Of the Bearer form but too long to be a token: said to be no token, not a bad header (QA).
    with pytest.raises(Unauthorized, match=r"^unknown or revoked token"):
        bearer_token("Bearer " + "x" * 300)


async def test_publishing_never_blocks_and_wakes_each_watch_once() -> None:
    hub = Hub()
    slow = hub.watch("m")  # never waits: its wake-ups coalesce instead of piling up
    fast = hub.watch("m")
    other = hub.watch("n")
    for version in range(1, 10_001):
        hub.publish("m", version)
    assert await fast.wait(timeout=0.1) and fast.latest == 10_000
    assert not await fast.wait(timeout=0.01), "ten thousand publishes, one wake-up"
    assert slow.latest == 10_000
    assert not await other.wait(timeout=0.01)
    hub.unwatch(slow)
    hub.unwatch(slow)  # twice is harmless
    hub.publish("m", 10_001)
    assert hub.watcher_count("m") == 1 and hub.watcher_count() == 2
    hub.unwatch(fast)
    hub.unwatch(other)
    hub.publish("m", 10_002)  # nobody watching: a no-op, not an error
    assert hub.watcher_count() == 0


async def test_a_broken_watch_is_dropped_without_stopping_the_others() -> None:
    hub = Hub()
    broken = hub.watch("m")
    healthy = hub.watch("m")

    def explode(version: int) -> None:
        raise RuntimeError("socket gone")

    broken.notify = explode  # type: ignore[method-assign]
    hub.publish("m", 3)
    assert await asyncio.wait_for(healthy.wait(), 1) and healthy.latest == 3
    assert hub.watcher_count("m") == 1


def test_the_configuration_page_and_the_readme_show_the_current_table() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for page in (root / "docs" / "configuration.md", root / "README.md"):
        text = page.read_text()
        assert settings_markdown() in text, page.name
        for _, variable, *_ in SETTINGS_TABLE:  # once: no stray rows from a merge beside it
            assert text.count(f"| `{variable}` |") == 1, (page.name, variable)


def test_the_websocket_protocol_document_names_every_frame_type() -> None:
    from pathlib import Path

    import yaml

    document = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "openapi" / "asyncapi.yaml").read_text()
    )
    types = {
        message["payload"]["properties"]["type"]["const"]
        for message in document["components"]["messages"].values()
    }
    assert {
        "snapshot",
        "event",
        "ping",
        "pong",
        "error",
        "auth",
        "resume",
        "action",
        "chat",
        "claim",
    } <= types


def test_every_form_of_a_token_in_a_log_line_is_masked() -> None:
    from server.logs import mask

    lines = {
        "GET /v1/matches/m/live?token=s3cr-et_ HTTP/1.1": "live?token=*** HTTP/1.1",
        "GET /v1/tables/t?invite_code=s3cr-et_ HTTP/1.1": "t?invite_code=*** HTTP/1.1",
        "WebSocket /v1/matches/m/watch?after=3&watch_code=s3cr-et_": "&watch_code=***",
        "< authorization: Bearer s3cr-et_": "< authorization: Bearer ***",
        """< TEXT '{"type": "auth", "token": "s3cr-et_"}' [50 bytes]""": '"token": "***"}',
        """< TEXT '{"type":"auth","token":"s3cr-et_..."}'""": '"token":"***"}',
        # Percent-escapes and '+' in a parameter's name: the server decodes them, so must the mask.
        "GET /v1/me/live?%74oken=s3cr-et_ HTTP/1.1": "live?%74oken=*** HTTP/1.1",
        "GET /v1/me/live?%74%6F%6B%65%6E=s3cr-et_&after=2": "?%74%6F%6B%65%6E=***&after=2",
        "GET /v1/tables/t?invite%5Fcode=s3cr-et_ HTTP/1.1": "t?invite%5Fcode=*** HTTP/1.1",
        "WebSocket /v1/matches/m/watch?after=3&watch%5fcode=s3cr-et_": "&watch%5fcode=***",
        # Another case: the server ignores it, but the secret a client put there is one.
        "GET /v1/tables/t?WATCH_CODE=s3cr-et_ HTTP/1.1": "t?WATCH_CODE=*** HTTP/1.1",
        "GET /v1/me/live?Token=s3cr-et_ HTTP/1.1": "live?Token=*** HTTP/1.1",
        # ';' between parameters (QA): the server reads none of it, but a client's secret is.
        "WebSocket /v1/matches/m/live?x=1;token=s3cr-et_": "?x=1;token=***",
        "GET /v1/matches/m/live?after=2;%74oken=s3cr-et_;x=1": "after=2;%74oken=***;x=1",
        # A sign-in code: in a body, a stray parameter, or a link cut at its '#'.
        """{"code": "s3cr-et_"}""": '"code": "***"',
        "GET /healthz?code=s3cr-et_ HTTP/1.1": "?code=*** HTTP/1.1",
        "GET /sign-in/s3cr-et_ HTTP/1.1": "/sign-in/*** HTTP/1.1",
    }
    for line, shown in lines.items():
        assert "s3cr" not in mask(line) and shown in mask(line), mask(line)


def test_a_json_label_is_recognised_with_parameters_and_in_any_case() -> None:
    for label in (
        b"application/json",
        b"Application/JSON; charset=utf-8",
        b"application/problem+json",
    ):
        assert is_json(label), label
    for label in (b"text/plain", b"application/x-www-form-urlencoded", b"text/json", b""):
        assert not is_json(label), label


def test_every_house_level_can_be_played_from_the_api() -> None:
    """``POST /v1/matches`` takes each level a challenge or a watched match takes."""
    from typing import get_args

    from domain.ai import LEVELS
    from server.schemas import Level

    assert get_args(Level) == LEVELS
