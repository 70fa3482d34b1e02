"""Logging set-up: no bearer token ever reaches a log line.

A browser's WebSocket cannot send an Authorization header, so the page passes its token
as ``?token=``; uvicorn would log that URL. This filter masks it in every record.
"""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(token=)[^&\s\"']+")


def mask(text: str) -> str:
    return _TOKEN.sub(r"\1***", text)


class MaskTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = mask(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(mask(a) if isinstance(a, str) else a for a in record.args)
        return True


def install(level: str = "info") -> None:
    """Mask tokens on the root handlers and uvicorn's, whatever configured them."""
    logging.basicConfig(level=level.upper())
    masking = MaskTokens()
    for name in ("", "uvicorn", "uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, MaskTokens) for f in logger.filters):
            logger.addFilter(masking)
        for handler in logger.handlers:
            if not any(isinstance(f, MaskTokens) for f in handler.filters):
                handler.addFilter(masking)
