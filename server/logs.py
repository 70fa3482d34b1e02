"""Logging set-up: no bearer token, invite code or watch code ever reaches a log line.

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
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote_plus

from uvicorn.logging import TRACE_LOG_LEVEL

_SECRET_PARAMETER = re.compile(r"(?:token|invite_code|watch_code)$", re.IGNORECASE)
_PARAMETER = re.compile(r"([^\s&?;=\"']+=)[^&\s\"']+")
_SECRETS = (
    re.compile(r"(bearer\s+)[^\s\"',]+", re.IGNORECASE),
    re.compile(r"([\"']token[\"']\s*:\s*[\"'])[^\"']*"),
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


class DropFrameDumps(logging.Filter):
    """The socket library's ``< frame`` / ``> frame`` debug lines: whole payloads, cut short."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg not in ("< %s", "> %s")


def install(level: str = "info") -> None:
    """Mask tokens on the root handlers and uvicorn's, whatever configured them."""
    logging.addLevelName(TRACE_LOG_LEVEL, "TRACE")  # uvicorn's level below debug, as it names it
    logging.basicConfig(level=level.upper())
    # basicConfig leaves a configured root alone, and Litestar configures it at INFO when
    # the app is built: without this the server's own INFO lines ignored "warning", and
    # "debug" showed none of its debug lines (the lifespan calls this again, after it).
    logging.getLogger().setLevel(level.upper())
    # Alembic's lines at each start (ginrummy.migrate says what ran), unless debugging.
    if level.lower() not in ("debug", "trace"):
        logging.getLogger("alembic").setLevel(logging.WARNING)
    # Never debug: aiosqlite logs each statement's parameters there, every secret a match has.
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
    masking = MaskTokens()
    for name in ("uvicorn.error", "websockets.server"):  # uvicorn hands the library its logger
        logger = logging.getLogger(name)
        if not any(isinstance(f, DropFrameDumps) for f in logger.filters):
            logger.addFilter(DropFrameDumps())
    for name in ("", "uvicorn", "uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, MaskTokens) for f in logger.filters):
            logger.addFilter(masking)
        for handler in logger.handlers:
            if not any(isinstance(f, MaskTokens) for f in handler.filters):
                handler.addFilter(masking)
