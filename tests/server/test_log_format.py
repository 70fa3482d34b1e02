"""One record, one line, masked, in either log format, whatever its text holds.

The formatters are tested on their own here for what a real server cannot be made to log
on demand: an exception whose message holds a line shaped like a record (a forgery, were
the traceback's lines written as lines), every character a reader may split a line at,
and a stack that quotes a token. So is a process with the server's logging that fails
where Python reports by itself (a thread, a finalizer, an asyncio task, the main
thread). ``tests/e2e/test_log_format.py`` holds a real server to the same rules.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from types import TracebackType

import pytest

from server.log_format import JsonFormatter, TextFormatter, logging_config
from tests.e2e.server_log import TEXT_LINE

ROOT = Path(__file__).resolve().parents[2]

FORGED = "2026-12-05T15:46:37.123Z INFO 4242 ginrummy.auth: the operator signed in"
# Every character Python's str.splitlines() ends a line at, an escape (a terminal acts on
# it), and a backslash before an "n", which must not read as a newline afterwards.
BREAKS = "a\nb\rc\r\nd\x0be\x0cf\x1cg\x1dh\x1ei\x85j\u2028k\u2029l\x1b[31mm\tn\\no"

ExcInfo = tuple[type[BaseException], BaseException, TracebackType]


def _failure(message: str) -> ExcInfo:
    try:
        raise ValueError(message)
    except ValueError:
        exc_type, exc, tb = sys.exc_info()
        assert exc_type is not None and exc is not None and tb is not None
        return exc_type, exc, tb


def _record(message: str, exc_info: ExcInfo | None = None) -> logging.LogRecord:
    return logging.LogRecord("ginrummy.test", logging.ERROR, __file__, 1, message, (), exc_info)


def _unescaped(line: str) -> str:
    """The reading ``server.log_format.one_line``'s docstring promises: its escapes are JSON's."""
    text: str = json.loads('"' + line.replace('"', '\\"') + '"')
    return text


def test_a_forged_record_in_an_exception_stays_inside_its_records_line() -> None:
    record = _record("reading a name failed", _failure(f"no such name: x\n{FORGED}"))
    line = TextFormatter().format(record)
    assert line.splitlines() == [line]
    assert TEXT_LINE.match(line), line
    assert "reading a name failed\\nTraceback (most recent call last):\\n  File " in line
    assert f"ValueError: no such name: x\\n{FORGED}" in line, line
    assert FORGED not in line.split("\\n")[0]


def test_text_escapes_every_line_break_and_the_backslash_reversibly() -> None:
    line = TextFormatter().format(_record(BREAKS))
    assert line.splitlines() == [line], line
    assert "\x1b" not in line and "\t" not in line
    message = line.split(" ginrummy.test: ", 1)[1]
    assert message.startswith(r"a\nb\rc\r\nd\u000be\u000cf"), message
    assert message.endswith(r"\u2029l\u001b[31mm\tn\\no"), message
    assert _unescaped(message) == BREAKS


def test_ordinary_text_is_written_as_it_is() -> None:
    text = 'GET /v1/matches/m?after=3 "Zoë" 🂡 ok'
    assert TextFormatter().format(_record(text)).endswith(" ginrummy.test: " + text)
    assert _unescaped(text) == text


def test_json_escapes_what_json_itself_leaves_raw() -> None:
    """JSON escapes controls below U+0020 only: U+0085, U+2028 and U+2029 written raw
    end a line for Python's splitlines and for older JavaScript."""
    formatter = JsonFormatter()
    line = formatter.format(_record(BREAKS, _failure(f"no such name: x\n{FORGED}")))
    assert line.splitlines() == [line], line
    record = json.loads(line)
    assert record["message"] == BREAKS
    assert record["exception"].startswith("Traceback (most recent call last):\n")
    assert record["exception"].endswith(f"ValueError: no such name: x\n{FORGED}")


STACK = (
    "Stack (most recent call last):\n"
    '  File "/srv/bot.py", line 9, in <module>\n'
    '    open_socket(\'/v1/me/live?token=s3cr-et_\', {"token": "s3cr-et_"})'
)


def test_a_stack_is_masked_as_the_message_is() -> None:
    """``stack_info=True`` quotes source lines, and a line may hold a token; the JSON
    format masked the stack already, the text format wrote it as it was."""
    record = _record("opening a socket")
    record.stack_info = STACK
    line = TextFormatter().format(record)
    assert "s3cr" not in line, line
    assert r"\n    open_socket('/v1/me/live?token=***', {" + '"token": "***"})' in line, line
    stack = json.loads(JsonFormatter().format(record))["stack"]
    assert "s3cr" not in stack and "live?token=***" in stack, stack


def test_a_traceback_another_formatter_wrote_first_is_masked_too() -> None:
    """A record's traceback text is kept on it once written (``exc_text``); one written by
    another formatter, unmasked, is masked before it is shown, as JSON lines did."""
    record = _record("a request failed", _failure("GET /v1/me/live?token=s3cr-et_"))
    logging.Formatter().format(record)
    assert record.exc_text and "s3cr-et_" in record.exc_text
    for line in (TextFormatter().format(record), JsonFormatter().format(record)):
        assert "s3cr" not in line and "live?token=***" in line, line


def _through_the_handlers_filters(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` after the filters the server's one handler has, in its order."""
    config = logging_config("info", "text")
    for name in config["handlers"]["line"]["filters"]:
        module, _, attribute = config["filters"][name]["()"].rpartition(".")
        assert getattr(importlib.import_module(module), attribute)().filter(record)
    return record


def test_an_access_lines_url_is_masked_whole_then_cut() -> None:
    """uvicorn wrote a URL whole in its access line: a refused 64 KiB URL was a 64 KiB
    line. A line shows the first 1 KiB and the URL's length; the URL is masked before it
    is cut, so a token the cut falls in is shown as ``***``, not in part."""
    for secret_at in (990, 1000, 1010, 1017, 1020, 1030):
        url = "/v1/leaderboard?kind=" + "k" * (secret_at - 27) + "&token=s3cr-et_" * 3
        url += "&pad=" + "p" * 60_000
        assert url.index("&token=") == secret_at - 6
        args = ("127.0.0.1:5000", "GET", url, "1.1", 414)
        # (a JSON line shows the URL twice: in its message, and as ``http.path``)
        for formatter, longest in ((TextFormatter(), 1300), (JsonFormatter(), 2600)):
            record = logging.LogRecord(
                "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', args, None
            )
            line = formatter.format(_through_the_handlers_filters(record))
            assert "s3c" not in line, line
            assert len(line) < longest, len(line)
            masked = len(url) - 3 * len("s3cr-et_") + 3 * len("***")
            assert f"…({masked} bytes)" in line, line
            assert "/v1/leaderboard?kind=kkkk" in line and " 414" in line, line
    socket = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5000", "/v1/me/live?token=s3cr-et_&pad=" + "p" * 8000), None,
    )  # fmt: skip
    line = TextFormatter().format(_through_the_handlers_filters(socket))
    assert "s3cr" not in line and len(line) < 1300 and "live?token=***&pad=ppp" in line, line
    short = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/v1/me?token=s3cr-et_", "1.1", 200), None,
    )  # fmt: skip
    line = TextFormatter().format(_through_the_handlers_filters(short))
    assert line.endswith('"GET /v1/me?token=*** HTTP/1.1" 200'), line  # as it was


# A process with the server's logging that fails in each way Python reports by itself:
# in a thread, in a finalizer (an "unraisable" exception), in an asyncio task nobody
# awaited (on both event loops the server may run), and at last in the main thread.
FAILING_PROCESS = """
import asyncio, gc, sys, threading
import uvloop
from server import logs

logs.install("info", sys.argv[1])
logs.report_uncaught_exceptions()

def fail():
    raise RuntimeError(sys.argv[2])

thread = threading.Thread(target=fail, name="worker-7")
thread.start()
thread.join()

class Finalized:
    def __del__(self):
        fail()

Finalized()

async def leave_a_failed_task():
    task = asyncio.ensure_future(asyncio.to_thread(fail))
    await asyncio.wait([task])  # done, its exception not retrieved (a sleep could end first)
    del task
    gc.collect()

asyncio.run(leave_a_failed_task())
uvloop.run(leave_a_failed_task())
fail()
"""


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_what_python_reports_by_itself_is_a_masked_record_of_one_line(
    tmp_path: Path, log_format: str
) -> None:
    """An exception nobody caught reached standard error as Python prints it: many
    lines, in no format, unmasked. Each is now one record of the configured format."""
    script = tmp_path / "failing.py"
    script.write_text(FAILING_PROCESS)
    done = subprocess.run(
        [sys.executable, str(script), log_format, f"GET /v1/me/live?token=s3cr-et_\n{FORGED}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "s3cr" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    if log_format == "json":
        records = [json.loads(line) for line in lines]
        assert all("live?token=***\n" + FORGED in r["exception"] for r in records), records
        said = [(r["level"], r["logger"], r["message"].split("\n")[0]) for r in records]
    else:
        assert all(TEXT_LINE.match(line) for line in lines), done.stderr
        assert all(r"live?token=***\n" + FORGED in line for line in lines), done.stderr
        said = [_level_logger_and_first_line(line) for line in lines]
    expected = [
        ("ERROR", "ginrummy.uncaught", "uncaught exception in thread worker-7"),
        ("ERROR", "ginrummy.uncaught", "Exception ignored in: <function Finalized.__del__"),
        ("ERROR", "asyncio", "Task exception was never retrieved"),
        ("ERROR", "asyncio", "Task exception was never retrieved"),
        ("CRITICAL", "ginrummy.uncaught", "uncaught exception; the process stops"),
    ]
    assert len(said) == len(expected), done.stderr
    for (level, logger, message), (*where, start) in zip(said, expected, strict=True):
        assert [level, logger] == where and message.startswith(start), done.stderr


def _level_logger_and_first_line(line: str) -> tuple[str, str, str]:
    _time, level, _pid, logger, message = line.split(" ", 4)
    return level, logger.removesuffix(":"), message.split("\\n")[0]


# The app's lifespan, run inside another program (as a test runner does), then as one of
# ``ginrummy serve``'s workers: which hooks each leaves during and after its life.
LIFESPANS = """
import asyncio, json, sys, threading
from server.app import create_app, create_worker_app
from server.config import Settings

def hooks():
    return [h.__name__ for h in (sys.excepthook, threading.excepthook, sys.unraisablehook)]

async def main():
    seen = {"before": hooks()}
    async with create_app(Settings.from_env()).lifespan():
        seen["embedded"] = hooks()
    async with create_worker_app().lifespan():
        seen["worker"] = hooks()
    print(json.dumps(seen))

asyncio.run(main())
"""


def test_an_app_run_inside_another_program_leaves_its_hooks_alone(tmp_path: Path) -> None:
    """The lifespan replaced Python's hooks in any program that ran the app, a test runner
    among them: pytest's, which turn an unraisable exception into a test's warning, were
    gone for the rest of the run. Only a worker process of ``ginrummy serve`` takes them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINRUMMY_")}
    env["GINRUMMY_DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path / 'hooks.db'}"
    done = subprocess.run(
        [sys.executable, "-c", LIFESPANS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["embedded"] == seen["before"], seen
    assert seen["worker"] == ["_log_uncaught", "_log_uncaught_in_thread", "_log_unraisable"], seen
