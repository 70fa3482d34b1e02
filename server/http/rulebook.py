"""The project's rule book (docs/rules.md), served as it is written, so the page's
"full rule book" link works wherever the server runs, with no connection beyond it."""

from __future__ import annotations

from pathlib import Path

from litestar import Response, get

RULE_BOOK = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


@get("/rules.md", include_in_schema=False, sync_to_thread=False)
def get_rule_book() -> Response[bytes]:
    """Markdown reads well as plain text, so a browser shows it as it is. Litestar adds
    ``charset=utf-8`` to every ``text/`` type itself; naming it here too sent it twice."""
    return Response(RULE_BOOK.read_bytes(), media_type="text/markdown", status_code=200)
