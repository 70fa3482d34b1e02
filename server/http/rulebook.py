"""The project's rule book (docs/rules.md), served as it is written, so the page's
"full rule book" link works wherever the server runs, with no connection beyond it.

The documents it links to by relative links are served beside it the same way (each
``docs/NAME.md`` as ``/NAME.md``), and so are the ones those link to, so no link a
reader follows from the rule book ends in a 404 (tests/e2e/test_page_rules.py follows
them all)."""

from __future__ import annotations

from pathlib import Path

from litestar import Response, get
from litestar.handlers import HTTPRouteHandler

DOCS = Path(__file__).resolve().parents[2] / "docs"
RULE_BOOK = DOCS / "rules.md"
# The rule book and every document reachable from it by relative links.
DOCUMENTS = (RULE_BOOK, DOCS / "fair-deal.md", DOCS / "api.md", DOCS / "configuration.md")


def _served(document: Path) -> HTTPRouteHandler:
    def serve() -> Response[bytes]:
        """Markdown reads well as plain text, so a browser shows it as it is. Litestar
        adds ``charset=utf-8`` to every ``text/`` type itself; naming it here too sent it
        twice."""
        return Response(document.read_bytes(), media_type="text/markdown", status_code=200)

    serve.__name__ = f"get_{document.stem.replace('-', '_')}_document"
    return get(f"/{document.name}", include_in_schema=False, sync_to_thread=False)(serve)


DOCUMENT_HANDLERS = tuple(_served(document) for document in DOCUMENTS)
get_rule_book = DOCUMENT_HANDLERS[0]
