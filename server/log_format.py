"""One shape for every line the server writes: UTC time, level, process, logger, message.

Before this, one process wrote three shapes: ``INFO:ginrummy.config:…`` (the standard
library's default, before the app is built), ``INFO - <local time> - name - module - …``
(Litestar's own root handler, after) and uvicorn's ``INFO:     …`` with no time at all, so
a line could not be placed in time nor told apart from the others by one parser. Every
logger now goes through the root logger's one handler, configured here for ``ginrummy
serve``, uvicorn (its ``log_config``, so each worker process gets it too) and the hard
AI's pool process alike.

``text`` is for people: ``2026-12-05T15:46:37.123Z INFO 4242 ginrummy.config: …``.
``json`` is for log shippers: one object a line with fixed keys, and nothing taken from
the record's other attributes, so a library's ``extra=`` can never put data (a hand, a
token) into a line the masking did not see.

In either format one record is one line, whatever its text holds. A traceback used to
follow its ``text`` record on lines of its own: a line-based shipper cut one record into
dozens, and an exception's message (which may quote what a client sent) could hold a
line shaped like a record of its own. See ``one_line`` for how the text is kept on one.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any

from server.logs import mask

FORMATS = ("text", "json")
TEXT = "%(asctime)s %(levelname)s %(process)d %(name)s: %(message)s"

# What a reader may end a line at (every C0 and C1 control character, and Unicode's line
# and paragraph separators, which Python's ``splitlines`` and JavaScript break on), or a
# terminal may act on (escape sequences); and the backslash, the escape character itself.
_NOT_IN_A_LINE = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT_ESCAPES = {"\\": r"\\", "\n": r"\n", "\r": r"\r", "\t": r"\t"}
# In a JSON line every control character below U+0020 is escaped already.
_NOT_IN_A_JSON_LINE = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def _escaped(found: re.Match[str]) -> str:
    return _SHORT_ESCAPES.get(found[0]) or f"\\u{ord(found[0]):04x}"


def one_line(text: str) -> str:
    r"""``text`` on one line, reversibly: a newline is written ``\n``, a carriage return
    ``\r``, a tab ``\t``, any other control or line-separator character ``\uXXXX``, and
    the backslash itself ``\\``.

    Doubling the backslash is what makes it unambiguous: ``\n`` in a line is always a
    newline of the record, never the two characters a message happened to hold, so a
    forged "record" inside a traceback stays visibly inside its line. These are JSON's
    string escapes, so a reader gets the text back with any JSON decoder:
    ``json.loads('"' + line.replace('"', '\\"') + '"')``.
    """
    return _NOT_IN_A_LINE.sub(_escaped, text)


def utc_time(record: logging.LogRecord) -> str:
    """ISO 8601 in UTC to the millisecond (``…T15:46:37.123Z``): sortable, and the same
    whatever time zone the machine or container is set to."""
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__(TEXT)

    def format(self, record: logging.LogRecord) -> str:
        r"""The record, its traceback and its stack on one line: ``…: message\nTraceback
        (most recent call last):\n  File …``.

        A traceback's text is kept on the record once written, and the standard library
        shows that text as it is: one written by another formatter would be unmasked.
        """
        if record.exc_text:
            record.exc_text = mask(record.exc_text)
        return one_line(super().format(record))

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return utc_time(record)

    def formatException(self, ei: Any) -> str:
        """A traceback's text masked too: an exception's message may quote a URL."""
        return mask(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        """A stack (``stack_info=True``) masked too: it quotes source lines, which may hold
        a URL or a frame with a token."""
        return mask(super().formatStack(stack_info))


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time``, ``level``, ``logger``, ``pid``, ``message``, and
    ``exception`` (the traceback's text) when there is one. uvicorn's access lines also
    carry ``http`` (client, method, path, status), read from the record's arguments after
    the masking filter has masked them."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": utc_time(record),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "message": record.getMessage(),
        }
        if record.name == "uvicorn.access":
            access = _access_fields(record.args)
            if access:
                line["http"] = access
        if record.exc_info:
            line["exception"] = mask(self.formatException(record.exc_info))
        elif record.exc_text:
            line["exception"] = mask(record.exc_text)
        if record.stack_info:
            line["stack"] = mask(self.formatStack(record.stack_info))
        text = json.dumps(line, ensure_ascii=False, default=str)
        return _NOT_IN_A_JSON_LINE.sub(_escaped, text)  # still JSON: only inside strings


def _access_fields(args: object) -> dict[str, object] | None:
    """uvicorn's access record's arguments: (client, method, path, HTTP version, status)."""
    if not isinstance(args, tuple) or len(args) != 5:
        return None
    client, method, path, _version, status = args
    return {"client": client, "method": method, "path": path, "status": status}


def logging_config(level: str, fmt: str) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` for the server: uvicorn's ``log_config`` too.

    One handler, on the root logger, to standard error; uvicorn's and Litestar's loggers
    keep no handler of their own and pass their lines up to it. The masking filters sit
    on the handler, so every line is masked whichever logger wrote it.
    """
    formatter = f"server.log_format.{'Json' if fmt == 'json' else 'Text'}Formatter"
    upward: dict[str, Any] = {"handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "mask": {"()": "server.logs.MaskTokens"},
            "frames": {"()": "server.logs.DropFrameDumps"},
            "urls": {"()": "server.logs.CutLongUrls"},
        },
        "formatters": {"line": {"()": formatter}},
        "handlers": {
            "line": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "line",
                # in this order: a URL is masked whole before it is cut
                "filters": ["frames", "mask", "urls"],
            }
        },
        "root": {"level": level.upper(), "handlers": ["line"]},
        "loggers": {
            **{
                name: dict(upward)
                for name in (
                    "uvicorn",
                    "uvicorn.error",
                    "uvicorn.access",
                    "uvicorn.asgi",
                    "litestar",
                )
            },
            # The SQLite driver's debug lines are every statement with its parameters:
            # whole event payloads (each hand's deck, both hands) and token hashes.
            "aiosqlite": {"level": "INFO"},
            # Alembic's lines at each start (ginrummy.migrate says what ran), unless
            # debugging. Here, not after the app is built: a worker process applies this
            # (uvicorn's log_config) before it imports the app, and importing alembic
            # logged seven INFO lines a worker.
            "alembic": {"level": "NOTSET" if level.lower() in ("debug", "trace") else "WARNING"},
        },
    }
