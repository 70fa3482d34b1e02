"""Logging set-up: no bearer token ever reaches a log line.

A browser's WebSocket cannot send an Authorization header, so the page passes its token
as ``?token=``; uvicorn would log that URL. At debug level the WebSocket protocol also
logs every header (``authorization: Bearer …``) and frame (``{"token": "…"}``). The
filter masks all three forms in every record, on the message as it will be printed.
"""

from __future__ import annotations

import logging
import re

_SECRETS = (
    re.compile(r"(token=)[^&\s\"']+"),
    re.compile(r"(bearer\s+)[^\s\"',]+", re.IGNORECASE),
    re.compile(r"([\"']token[\"']\s*:\s*[\"'])[^\"']*"),
)


def mask(text: str) -> str:
    for secret in _SECRETS:
        text = secret.sub(r"\1***", text)
    return text


class MaskTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()  # args of any type (bytes, frames) formatted in
        except (TypeError, ValueError):
            return True  # a broken record: the handler reports it, as without the filter
        masked = mask(message)
        if masked != message:
            record.msg, record.args = masked, None
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
