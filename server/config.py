"""Server settings, read once from ``GINRUMMY_*`` environment variables.

One table (``SETTINGS_TABLE``) is the single source for the defaults, for the values
each setting accepts and for the documentation in ``docs/configuration.md``, so the
three cannot drift apart. A value a setting does not accept stops the server at start
with one line naming the variable and what it must be: a guess (a port taken modulo
65536, a zero sweep that spins, a queue of size 0 that is unbounded) fails later and
somewhere else.
"""

from __future__ import annotations

import difflib
import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

PREFIX = "GINRUMMY_"


class Check(Protocol):
    """The values one setting accepts; ``str`` says which, after "must be"."""

    def admits(self, value: Any) -> bool: ...


@dataclass(frozen=True)
class Bounds:
    """A finite number from ``low`` (or above it, when ``above``) up to ``high``."""

    low: float
    high: float | None = None
    above: bool = False

    def admits(self, value: float) -> bool:
        over_low = value > self.low if self.above else value >= self.low
        return over_low and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        if self.high is not None:
            return f"{self.low:g}–{self.high:g}"
        return f"more than {self.low:g}" if self.above else f"{self.low:g} or more"


AT_LEAST_0 = Bounds(0)  # 0 means off, none or for ever: each such row's text says which
AT_LEAST_1 = Bounds(1)
MORE_THAN_0 = Bounds(0, above=True)  # a time: 0 would loop busily or act at once
# Every open socket or stream wakes up this often to ping: less would be a busy loop.
PING_PERIOD = Bounds(0.1)
# Every process rewrites its rows of open sockets this often: less would be a busy loop.
REFRESH_PERIOD = Bounds(0.1)
# A stop's waits: 0 stops at once; an hour bounds a typo (a supervisor must outwait it).
DRAIN_TIME = Bounds(0, 3600)


@dataclass(frozen=True)
class OneOf:
    choices: tuple[str, ...]

    def admits(self, value: str) -> bool:
        return value.lower() in self.choices

    def __str__(self) -> str:
        return "one of " + ", ".join(self.choices)


# uvicorn's levels (its LOG_LEVELS; a test checks), which the logging set-up knows too.
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
LOG_FORMATS = ("text", "json")  # server.log_format.FORMATS (a test checks)


class PageDirectory:
    """Empty (the bundled page), or a directory holding the page's index.html."""

    def admits(self, value: str) -> bool:
        return not value or (Path(value) / "index.html").is_file()

    def __str__(self) -> str:
        return "a directory holding index.html (or empty: the bundled page)"


class Networks:
    def admits(self, value: str) -> bool:
        return all(map(_is_network, proxies_of(value)))

    def __str__(self) -> str:
        return "IPs or networks, comma-separated, or *"


# (field, environment variable, default, description, the values it accepts)
SETTINGS_TABLE: tuple[tuple[str, str, str, str, Check | None], ...] = (
    (
        "database_url",
        "GINRUMMY_DATABASE_URL",
        "",
        "Event store URL. Empty: the embedded SQLite file `./data/ginrummy.sqlite3`. "
        "PostgreSQL: `postgresql://user@host:5432/db` (libpq's `?sslmode=` is understood); "
        "SQLite: `sqlite:///path/to/file` (a file: memory is not shared).",
        None,
    ),
    (
        "db_connections",
        "GINRUMMY_DB_CONNECTIONS",
        "20",
        "PostgreSQL connections each server process may hold at once. Opened as requests "
        "need them and then kept, so a burst of requests never waits for a fresh connect "
        "(tens of milliseconds each); past this many, a request waits for one to come "
        "back (at most 30 s, then it is answered 503 `store_unavailable`). Size PostgreSQL's `max_connections` for this times the processes "
        "(workers × servers), plus one each for the live fan-out and whatever else uses "
        "the database. At least 2: a lobby step that holds players' names still (a seat, "
        "a new table or challenge, a rename) keeps one for its lock while it works with another. "
        "Ignored on SQLite.",
        Bounds(2),
    ),
    (
        "host",
        "GINRUMMY_HOST",
        "127.0.0.1",
        "Interface `ginrummy serve` listens on.",
        None,
    ),
    (
        "port",
        "GINRUMMY_PORT",
        "8000",
        "TCP port `ginrummy serve` listens on (1–65535).",
        Bounds(1, 65535),
    ),
    (
        "ai_time_cap_ms",
        "GINRUMMY_AI_TIME_CAP_MS",
        "400",
        "Upper bound on the hard AI's thinking time for one decision, in milliseconds "
        "(its decisions measure p95 15–45 ms here, depending on the day; the cap only guards "
        "the worst case: hard's work is bounded by a count, and a decision the cap cuts short "
        "is logged as a warning on `ginrummy.ai`, since it may differ from the same decision "
        "on an idle machine). At least 1.",
        AT_LEAST_1,
    ),
    (
        "ai_processes",
        "GINRUMMY_AI_PROCESSES",
        "1",
        "Processes each server process keeps for the hard AI's thinking, so its search "
        "runs beside the request loop instead of holding it (and uses a second core). "
        "0: hard thinks in a thread, as the light levels always do. The same decisions "
        "either way.",
        AT_LEAST_0,
    ),
    (
        "max_body_bytes",
        "GINRUMMY_MAX_BODY_BYTES",
        "16384",
        "Largest accepted HTTP request body; larger bodies get a 413 problem.",
        AT_LEAST_1,
    ),
    (
        "ws_heartbeat_s",
        "GINRUMMY_WS_HEARTBEAT_S",
        "15",
        "Seconds between heartbeat pings on a live socket (at least 0.1); a socket silent "
        "for three intervals is closed.",
        PING_PERIOD,
    ),
    (
        "stream_ping_s",
        "GINRUMMY_STREAM_PING_S",
        "15",
        "Seconds of quiet after which a player stream (`GET /v1/me/stream`, `WS /v1/me/live`) "
        "and the lobby feed send a `ping`. A player stream over plain HTTP whose client has "
        "hung up is noticed at its next write, so this is also how long such a player may "
        "still count as present; lower it behind a proxy that closes idle connections sooner "
        "(at least 0.1).",
        PING_PERIOD,
    ),
    (
        "ws_queue_size",
        "GINRUMMY_WS_QUEUE_SIZE",
        "256",
        "Frames buffered per socket (at least 1); a client that falls this far behind is "
        "dropped (it reconnects and resumes from its last version).",
        AT_LEAST_1,
    ),
    (
        "ws_max_message_bytes",
        "GINRUMMY_WS_MAX_MESSAGE_BYTES",
        "16384",
        "Largest accepted client WebSocket message, in bytes: a larger one gets an `error` "
        "frame `payload_too_large` and the socket stays open; one over 4 times this is "
        "cut off by the WebSocket layer (close 1009), so memory stays bounded.",
        AT_LEAST_1,
    ),
    (
        "tail_poll_ms",
        "GINRUMMY_TAIL_POLL_MS",
        "200",
        "How often the global-log tailer polls on SQLite, in milliseconds (PostgreSQL uses "
        "LISTEN/NOTIFY and polls only as a fallback).",
        AT_LEAST_1,
    ),
    (
        "static_dir",
        "GINRUMMY_STATIC_DIR",
        "",
        "Directory of the web page served at `/`; it must hold `index.html`, or the server "
        "refuses to start. Empty: the bundled `server/static`.",
        PageDirectory(),
    ),
    (
        "log_level",
        "GINRUMMY_LOG_LEVEL",
        "info",
        "Log level: critical, error, warning, info, debug or trace (uvicorn's levels).",
        OneOf(LOG_LEVELS),
    ),
    (
        "log_format",
        "GINRUMMY_LOG_FORMAT",
        "text",
        "Shape of every log line (the server's, uvicorn's access and error lines, the AI "
        "process's), all on standard error with the time in UTC, one record a line: `text` "
        "(`2026-12-05T15:46:37.123Z INFO 4242 ginrummy.config: …`: time, level, process id, "
        "logger, message; a traceback stays on its record's line, a line break written `\\n` "
        "and a backslash `\\\\`) or `json` (one object a line with `time`, `level`, `logger`, "
        "`pid`, `message`, and `exception` or, on access lines, `http`), for a log shipper.",
        OneOf(LOG_FORMATS),
    ),
    (
        "workers",
        "GINRUMMY_WORKERS",
        "0",
        "Server processes `ginrummy serve` runs on one port. 0: one per core on PostgreSQL, "
        "one on SQLite (an embedded file takes one writer at a time). Each worker is a "
        "whole server process sharing the database and the live fan-out, as separate "
        "servers do.",
        AT_LEAST_0,
    ),
    (
        "table_ttl_s",
        "GINRUMMY_TABLE_TTL_S",
        "600",
        "Seconds an open table waits for an opponent when its host names no time "
        "(`expires_in_s`); then it closes as expired.",
        AT_LEAST_1,
    ),
    (
        "table_sweep_s",
        "GINRUMMY_TABLE_SWEEP_S",
        "5",
        "How often each server process records the expiry of tables whose time has run "
        "out (a table past its time is never listed nor joinable, recorded or not).",
        MORE_THAN_0,
    ),
    (
        "token_ttl_s",
        "GINRUMMY_TOKEN_TTL_S",
        "0",
        "Seconds a new bearer token (from `POST /v1/players` or a rotation) stays valid; "
        "0: until it is rotated or revoked. An expired token is a 401, and the sockets "
        "it opened close with 4401.",
        AT_LEAST_0,
    ),
    (
        "sign_in_code_ttl_s",
        "GINRUMMY_SIGN_IN_CODE_TTL_S",
        "600",
        "Seconds a one-time sign-in code (`POST /v1/me/sign-in-codes`, to use the player on "
        "another device) can be redeemed; a player has one live code at most.",
        MORE_THAN_0,
    ),
    (
        "rate_window_s",
        "GINRUMMY_RATE_WINDOW_S",
        "60",
        "Length of the rate limits' fixed window, in seconds. The counts are kept in the "
        "database, so every server process shares them; over a limit is a 429 problem "
        "with `Retry-After`.",
        AT_LEAST_1,
    ),
    (
        "rate_creates_per_player",
        "GINRUMMY_RATE_CREATES_PER_PLAYER",
        "60",
        "Matches, tables, challenges, rematch offers, tokens (another, not a rotation) and "
        "sign-in codes one player may create per window (all its tokens together). 0: no "
        "limit.",
        AT_LEAST_0,
    ),
    (
        "rate_creates_per_address",
        "GINRUMMY_RATE_CREATES_PER_ADDRESS",
        "300",
        "Players, matches, tables, challenges, rematch offers, tokens and sign-in codes one "
        "client address "
        "(an IPv6 client: its /64 network, which every per-address limit counts as one) "
        "may create per window. 0: no limit.",
        AT_LEAST_0,
    ),
    (
        "rate_actions_per_player",
        "GINRUMMY_RATE_ACTIONS_PER_PLAYER",
        "1200",
        "Moves, claims, chat messages, mutes, token rotations, renames, blocks and unblocks, and "
        "answers in the lobby (joining or cancelling a table; accepting, declining or "
        "cancelling a challenge) one player may send per window, over HTTP and sockets "
        "together. 0: no limit.",
        AT_LEAST_0,
    ),
    (
        "rate_actions_per_address",
        "GINRUMMY_RATE_ACTIONS_PER_ADDRESS",
        "6000",
        "Moves, claims, chat messages, mutes, token rotations, renames, blocks and unblocks, and "
        "lobby answers (join, accept, decline, cancel) one client address may send per "
        "window. 0: no limit.",
        AT_LEAST_0,
    ),
    (
        "rate_sign_ins_per_address",
        "GINRUMMY_RATE_SIGN_INS_PER_ADDRESS",
        "20",
        "Sign-in codes one client address may try to redeem per window, right or wrong "
        "(`POST /v1/sign-in-codes/redeem`): what bounds guessing. 0: no limit.",
        AT_LEAST_0,
    ),
    (
        "connections_per_address",
        "GINRUMMY_CONNECTIONS_PER_ADDRESS",
        "100",
        "WebSockets and NDJSON player streams one client address may hold open at once, "
        "in each server process; past it a socket hears `too_many_connections` and closes "
        "4429, a stream is a 429. 0: no limit.",
        AT_LEAST_0,
    ),
    (
        "trusted_proxies",
        "GINRUMMY_TRUSTED_PROXIES",
        "",
        "Addresses (comma-separated IPs or networks, or `*`) of reverse proxies whose "
        "`X-Forwarded-For` and `X-Forwarded-Proto` name the client. Empty: none, so the "
        "client address the rate limits count is the TCP peer's, whoever sends the header.",
        Networks(),
    ),
    (
        "body_timeout_s",
        "GINRUMMY_BODY_TIMEOUT_S",
        "10",
        "Seconds a client has to send a request's whole body once its headers are in; a "
        "slower one is answered 408 and its connection closed. 0: wait for ever.",
        AT_LEAST_0,
    ),
    (
        "header_timeout_s",
        "GINRUMMY_HEADER_TIMEOUT_S",
        "10",
        "Seconds a client has to send a request's headers, from opening the connection (or "
        "from a later request's first byte); a slower connection is closed, so connections "
        "that trickle their headers cannot use up the server's. 0: wait for ever.",
        AT_LEAST_0,
    ),
    (
        "next_hand_timeout_s",
        "GINRUMMY_NEXT_HAND_TIMEOUT_S",
        "30",
        "Between hands of a match between two players (no house AI), how long each seat "
        "has to say it is ready before the server says so for it and the next hand is dealt.",
        MORE_THAN_0,
    ),
    (
        "absence_grace_s",
        "GINRUMMY_ABSENCE_GRACE_S",
        "120",
        "How long a player may be away (no live socket or player stream open, and no move) "
        "before its opponent may claim the match.",
        MORE_THAN_0,
    ),
    (
        "presence_refresh_s",
        "GINRUMMY_PRESENCE_REFRESH_S",
        "5",
        "Seconds between the rewrites of each server process's rows of open sockets (seats "
        "present, player streams, spectators), which every process reads. A row counts for "
        "four times this after it was written, so the sockets of a process that died "
        "(killed, or cut off from the database) stop counting as present or watching after "
        "at most that long (20 s by default), and their players are away since its last "
        "rewrite. Lower: a dead process is noticed sooner, for a write per open match and "
        "player stream that often (at least 0.1).",
        REFRESH_PERIOD,
    ),
    (
        "name_lock_wait_s",
        "GINRUMMY_NAME_LOCK_WAIT_S",
        "10",
        "How long a seat, a new table or challenge, or a rename waits for the names of the "
        "players it involves while another step holds one (on this process or another), in "
        "seconds; past it, it is answered 503 `busy` with `Retry-After: 1` and changes "
        "nothing. Such steps hold names for milliseconds: a wait this long means a step "
        "is stuck (more than 0).",
        MORE_THAN_0,
    ),
    (
        "clock_sweep_s",
        "GINRUMMY_CLOCK_SWEEP_S",
        "0.5",
        "How often each server process looks for matches whose seat to act has run out of "
        "time (move clocks and the next-hand timeout), and plays the late turns.",
        MORE_THAN_0,
    ),
    (
        "drain_requests_s",
        "GINRUMMY_DRAIN_REQUESTS_S",
        "10",
        "On SIGTERM or SIGINT, how long a process waits for the HTTP requests in flight to "
        "end (uvicorn's graceful shutdown; player streams end at once), in seconds, before "
        "it cuts the rest; 0: it does not wait. A supervisor must allow more than this plus "
        "`GINRUMMY_DRAIN_ACTIONS_S` before it kills (at most 3600).",
        DRAIN_TIME,
    ),
    (
        "drain_actions_s",
        "GINRUMMY_DRAIN_ACTIONS_S",
        "10",
        "Then, how long it waits for the actions of the WebSockets it closed (1012) to be "
        "recorded and answered, in seconds; 0: it does not wait (at most 3600).",
        DRAIN_TIME,
    ),
    (
        "ready_max_behind",
        "GINRUMMY_READY_MAX_BEHIND",
        "50000",
        "Events a process's read models (the lobby, lists, ratings, statistics) may be "
        "behind the log before `GET /readyz` answers 503 `projections_behind`, so a load "
        "balancer sends to the other processes. Each process counts from its own last "
        "catch-up (every 5 s, and before each read of a read model), so a process whose "
        "catch-up fails or stalls drops out alone. Generous on purpose: at the peak measured "
        "on two cores (1,000 actions/s against the AI, two events each) 5 s is 10,000 "
        "events, so a burst between two catch-ups takes no process out. 0: never.",
        AT_LEAST_0,
    ),
    (
        "ai_pace_ms",
        "GINRUMMY_AI_PACE_MS",
        "700",
        "In a match between two house AIs (`POST /v1/house-matches`), the pause before "
        "each AI decision, so that spectators can follow; 0 plays such a match to its end "
        "at once. Matches with a person or a bot keep the AI's immediate replies.",
        AT_LEAST_0,
    ),
)


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    db_connections: int = 20
    host: str = "127.0.0.1"
    port: int = 8000
    ai_time_cap_ms: int = 400
    ai_processes: int = 1
    max_body_bytes: int = 16384
    ws_heartbeat_s: float = 15.0
    stream_ping_s: float = 15.0
    ws_queue_size: int = 256
    ws_max_message_bytes: int = 16384
    tail_poll_ms: int = 200
    static_dir: str = ""
    log_level: str = "info"
    log_format: str = "text"
    workers: int = 0
    table_ttl_s: int = 600
    table_sweep_s: float = 5.0
    token_ttl_s: float = 0.0
    sign_in_code_ttl_s: float = 600.0
    rate_window_s: int = 60
    rate_creates_per_player: int = 60
    rate_creates_per_address: int = 300
    rate_actions_per_player: int = 1200
    rate_actions_per_address: int = 6000
    rate_sign_ins_per_address: int = 20
    connections_per_address: int = 100
    trusted_proxies: str = ""
    body_timeout_s: float = 10.0
    header_timeout_s: float = 10.0
    next_hand_timeout_s: float = 30.0
    absence_grace_s: float = 120.0
    presence_refresh_s: float = 5.0
    name_lock_wait_s: float = 10.0
    clock_sweep_s: float = 0.5
    drain_requests_s: float = 10.0
    drain_actions_s: float = 10.0
    ready_max_behind: int = 50000
    ai_pace_ms: int = 700

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from the environment; a value a setting does not accept is a start-up
        error (``SystemExit``, one line), not a guess."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for name, var, default, _, _ in SETTINGS_TABLE:
            raw = env.get(var, default)
            try:
                values[name] = read_setting(name, raw)
            except Refused as exc:
                raise SystemExit(f"{var}={raw!r} {exc}") from None
        return cls(**values)  # type: ignore[arg-type]


class Refused(ValueError):
    """A setting's text that is no value it accepts; the message says what it must be."""


_UNITS = {"_S": " seconds", "_MS": " milliseconds", "_BYTES": " bytes"}


def accepted(var: str, check: Check) -> str:
    """What a setting's value must be, in words: "1 or more bytes", "one of ..."."""
    unit = next((word for end, word in _UNITS.items() if var.endswith(end)), "")
    return f"{check}{unit}" if isinstance(check, Bounds) else str(check)


def read_setting(name: str, raw: str) -> object:
    """The value of setting ``name`` (a ``Settings`` field) that ``raw`` spells, or
    ``Refused``. Also for a command-line option that overrides a setting (``--port``)."""
    var, check = _CHECKS[name]
    kind = _KINDS[name]
    must = f" (it must be {accepted(var, check)})" if check is not None else ""
    value: object
    try:
        value = int(raw) if kind == "int" else float(raw) if kind == "float" else raw
    except ValueError:
        raise Refused(f"is not a {'whole ' if kind == 'int' else ''}number{must}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise Refused(f"is not a finite number{must}")
    if check is not None and not check.admits(value):
        raise Refused(f"must be {accepted(var, check)}")
    return value


def unknown_variables(env: Mapping[str, str] | None = None) -> list[str]:
    """A warning for each ``GINRUMMY_*`` variable set that names no setting: it is
    ignored, so a misspelt ``GINRUMMY_DATABSE_URL`` would quietly mean SQLite."""
    env = os.environ if env is None else env
    known = {var.removeprefix(PREFIX): var for _, var, *_ in SETTINGS_TABLE}
    warnings = []
    for name in sorted(env):
        if name.startswith(PREFIX) and name not in known.values():
            close = difflib.get_close_matches(name.removeprefix(PREFIX).upper(), known, n=1)
            hint = f"; did you mean {known[close[0]]}?" if close else ""
            warnings.append(f"{name} is not a setting of this server and is ignored{hint}")
    return warnings


def proxies_of(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def _is_network(part: str) -> bool:
    try:
        return part == "*" or bool(ipaddress.ip_network(part, strict=False))
    except ValueError:
        return False


def settings_markdown() -> str:
    """The configuration table as Markdown, for docs/configuration.md."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for _, var, default, text, _ in SETTINGS_TABLE:
        shown = f"`{default}`" if default else "(empty)"
        lines.append(f"| `{var}` | {shown} | {text} |")
    return "\n".join(lines) + "\n"


# The WebSocket layer (uvicorn's ``ws_max_size``) takes messages up to this many times
# ``ws_max_message_bytes``, so that the application sees one over its limit and answers
# with an error frame; a larger one is a hard ceiling the transport enforces (1009).
WS_TRANSPORT_FACTOR = 4


def ws_transport_max_bytes(settings: Settings) -> int:
    """The largest message the WebSocket layer reads at all (uvicorn's ``ws_max_size``)."""
    return WS_TRANSPORT_FACTOR * settings.ws_max_message_bytes


def worker_count(settings: Settings) -> int:
    """The workers to run: as set, else one per core on PostgreSQL and one on SQLite
    (however the URL spells PostgreSQL: ``postgres://`` too, as the store reads it)."""
    from infra.database import is_sqlite, resolve_url

    if settings.workers > 0:
        return settings.workers
    if settings.database_url and not is_sqlite(
        resolve_url(settings.database_url, create_dirs=False)
    ):
        return os.cpu_count() or 1
    return 1


_CHECKS = {name: (var, check) for name, var, _, _, check in SETTINGS_TABLE}
_KINDS = {field.name: str(field.type) for field in fields(Settings)}
