"""Logging set-up: no bearer token, invite, watch or sign-in code ever reaches a log line.

A browser's WebSocket cannot send an Authorization header, so the page passes its token
as ``?token=``; uvicorn would log that URL. At debug level the WebSocket protocol also
logs every header (``authorization: Bearer …``) and frame (``{"token": "…"}``). The
filter masks all three forms in every record; frame dumps are dropped, since the
library cuts a long frame short and a token can lose the key that marks it.
aiosqlite's debug lines are never logged: each dumps a statement with its parameters,
so every appended event went to the log whole (the server seed, each deck and salt,
every stock card) with a private table's codes.
A query parameter's name is read as the server reads it, percent-escapes and ``+``
decoded (``?%74oken=`` is ``?token=`` to the server) and in any case, so no spelling
escapes the mask.

What Python reports by itself (an exception nobody caught, in the main thread, in
another thread, or in a finalizer) it wrote to standard error as it prints it: many
lines, in neither format, never masked. ``report_uncaught_exceptions`` routes those
through logging too; asyncio's reports (a task's exception nobody retrieved) went
through logging already, on uvloop too.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from types import TracebackType
from urllib.parse import unquote_plus

from uvicorn.logging import TRACE_LOG_LEVEL

# Any parameter or JSON field named for a code (``invite_code``, ``watch_code``, a sign-in
# ``code``) is masked, as is a token; and a sign-in link's path (``/#/sign-in/CODE`` keeps
# its code in the fragment, which no browser sends, but a link someone cut at the ``#``
# would reach the access log).
_SECRET_PARAMETER = re.compile(r"(?:token|code)$", re.IGNORECASE)
# A value ends at ';' too: some clients separate parameters so, and a value that ran on
# past it hid the next parameter's name (``?x=1;token=…`` was logged whole; QA).
_PARAMETER = re.compile(r"([^\s&?;=\"']+=)[^&;\s\"']+")
_SECRETS = (
    re.compile(r"(bearer\s+)[^\s\"',]+", re.IGNORECASE),
    re.compile(r"([\"'](?:token|\w*code)[\"']\s*:\s*[\"'])[^\"']*", re.IGNORECASE),
    re.compile(r"(/sign-in/)[^\s?#\"']+", re.IGNORECASE),
)


def _masked_parameter(found: re.Match[str]) -> str:
    name = found[1]
    if _SECRET_PARAMETER.search(unquote_plus(name[:-1])):
        return name + "***"
    return found[0]


def mask(text: str) -> str:
    text = _PARAMETER.sub(_masked_parameter, text)
    for secret in _SECRETS:
        text = secret.sub(r"\1***", text)
    return text


class MaskTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the message and its string arguments in place, keeping ``args`` a tuple
        (uvicorn's access formatter unpacks it); only an argument that is neither text
        nor a number (bytes, a frame) makes the record its masked, formatted text."""
        if isinstance(record.msg, str):
            record.msg = mask(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(mask(a) if isinstance(a, str) else a for a in record.args)
            if all(isinstance(a, str | int | float) for a in record.args):
                return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True  # a broken record: the handler reports it, as without the filter
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


# uvicorn writes a request's URL whole in its access line: up to 64 KiB of a URL refused
# as too long (414) was one line. A line shows its first 1 KiB (no URL the API takes comes
# near that), then how long it was.
URL_SHOWN = 1024
_WEBSOCKET_LINES = ('%s - "WebSocket %s"',)  # uvicorn.error's lines for a socket's handshake


def cut_url(url: str) -> str:
    """``url``, or its first ``URL_SHOWN`` characters and its length: ``…(65536 bytes)``."""
    if len(url) <= URL_SHOWN:
        return url
    return f"{url[:URL_SHOWN]}…({len(url.encode())} bytes)"


class CutLongUrls(logging.Filter):
    """The URL in uvicorn's access lines (an HTTP request's, or a socket's handshake's),
    cut to ``URL_SHOWN`` characters. On the handler after ``MaskTokens``: a URL is masked
    whole, then cut, so a cut never leaves part of a secret where the mask cannot see it."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, tuple):
            return True
        if record.name == "uvicorn.access" and len(args) == 5:
            at = 2  # client, method, URL, HTTP version, status
        elif isinstance(record.msg, str) and record.msg.startswith(_WEBSOCKET_LINES):
            at = 1  # client, URL[, status]
        else:
            return True
        url = args[at] if len(args) > at else None
        if isinstance(url, str) and len(url) > URL_SHOWN:
            record.args = (*args[:at], cut_url(url), *args[at + 1 :])
        return True


class DropFrameDumps(logging.Filter):
    """The socket library's ``< frame`` / ``> frame`` debug lines: whole payloads, cut short."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg not in ("< %s", "> %s")


uncaught = logging.getLogger("ginrummy.uncaught")


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """``sys.excepthook``: the main thread's exception nobody caught, before the process
    stops (with status 1, as without this hook)."""
    try:
        uncaught.critical("uncaught exception; the process stops", exc_info=(kind, exc, tb))
    except Exception:  # logging itself failed: Python's own report, not none
        sys.__excepthook__(kind, exc, tb)


def _log_uncaught_in_thread(failure: threading.ExceptHookArgs) -> None:
    """``threading.excepthook``: the thread ends, the process goes on. A thread's
    ``SystemExit`` ends it quietly, as Python's own hook lets it."""
    if issubclass(failure.exc_type, SystemExit):
        return
    name = failure.thread.name if failure.thread is not None else "?"
    try:
        uncaught.error(
            "uncaught exception in thread %s",
            name,
            exc_info=(failure.exc_type, failure.exc_value, failure.exc_traceback),  # type: ignore[arg-type]
        )
    except Exception:
        threading.__excepthook__(failure)


def _log_unraisable(failure: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook``: an exception where none can be raised (a finalizer, a
    garbage-collected generator), said as Python says it: ``Exception ignored in: …``."""
    try:
        uncaught.error(
            "%s: %r",
            failure.err_msg or "Exception ignored in",
            failure.object,
            exc_info=(failure.exc_type, failure.exc_value, failure.exc_traceback),  # type: ignore[arg-type]
        )
    except Exception:  # at the interpreter's very end, logging may be gone already
        sys.__unraisablehook__(failure)


def install(level: str = "info", fmt: str = "text") -> None:
    """Route every logger through the one masked handler of ``server.log_format``.

    Called before the app is built (the migration's line), by the app, and again in the
    lifespan: uvicorn and Litestar have configured logging by then, and each call puts
    the same configuration back, so the last word is always this one.
    """
    import logging.config

    from server.log_format import logging_config

    logging.addLevelName(TRACE_LOG_LEVEL, "TRACE")  # uvicorn's level below debug, as it names it
    logging.config.dictConfig(logging_config(level, fmt))
    logging.captureWarnings(True)  # a library's warning is a line like the others


def report_uncaught_exceptions() -> None:
    """Python's own reports of an exception nobody caught become records of the one
    handler: one line, in the configured format, masked.

    Apart from ``install``, for the server's processes only (``ginrummy serve``, the
    lifespan of each worker it starts, ``create_worker_app``, and the AI's pool process):
    ``create_app`` also runs inside other programs, a test runner among them, whose own
    hooks it must leave in place (pytest's catch a test's unraisable exceptions).
    """
    sys.excepthook = _log_uncaught
    threading.excepthook = _log_uncaught_in_thread
    sys.unraisablehook = _log_unraisable
