"""The API documentation page (`/schema`), served whole from this server.

Litestar's stock pages load their scripts, a favicon and Google fonts from CDNs, so
`/schema` was blank on a machine without internet access. Only Redoc is offered, with
its bundle vendored in ``server/vendor/redoc`` (see the README there) and served beside
the page, no web fonts (Redoc falls back to the system's) and no remote favicon. The
other stock pages (Swagger, Elements, RapiDoc) are left out rather than vendored too:
one browsable page is enough, and ``/schema/openapi.json`` serves every other tool.
The WebSocket protocol's AsyncAPI document is served beside it (``/schema/asyncapi.yaml``),
where its references to ``openapi.json`` resolve.
"""

from __future__ import annotations

from pathlib import Path

from litestar import Response, Router, get
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, RedocRenderPlugin

REDOC_DIR = Path(__file__).parent / "vendor" / "redoc"
REDOC_BUNDLE = REDOC_DIR / "redoc.standalone.js"
SCHEMA_PATH = "/schema"
BUNDLE_NAME = "redoc.standalone.js"
ASYNCAPI = Path(__file__).resolve().parents[1] / "openapi" / "asyncapi.yaml"


class OfflineRedoc(RedocRenderPlugin):
    """Redoc at ``/schema`` and ``/schema/redoc``, its script at ``/schema/redoc.standalone.js``."""

    def __init__(self) -> None:
        super().__init__(
            path=["/", "/redoc"],
            js_url=f"{SCHEMA_PATH}/{BUNDLE_NAME}",
            google_fonts=False,
            favicon="",
        )

    def receive_router(self, router: Router) -> None:
        router.register(get(f"/{BUNDLE_NAME}", sync_to_thread=False)(redoc_bundle))
        router.register(get("/redoc-licenses.txt", sync_to_thread=False)(redoc_licences))
        router.register(get("/asyncapi.yaml", sync_to_thread=False)(asyncapi_document))


def redoc_bundle() -> Response[bytes]:
    """The bundle changes only with a new vendored version, so browsers may keep it a day."""
    return Response(
        REDOC_BUNDLE.read_bytes(),
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=86400"},
    )


def redoc_licences() -> Response[bytes]:
    """Redoc's licence and those of the libraries in its bundle, as the MIT licence asks."""
    text = (
        (REDOC_DIR / "LICENSE").read_bytes()
        + b"\n\n"
        + (REDOC_DIR / f"{BUNDLE_NAME}.LICENSE.txt").read_bytes()
    )
    return Response(text, media_type="text/plain")


def asyncapi_document() -> Response[bytes]:
    """openapi/asyncapi.yaml as committed: a client of a deployed server had only the
    OpenAPI document's mention of a file in a repository it may never see."""
    return Response(ASYNCAPI.read_bytes(), media_type="application/yaml")


def render_plugins() -> list[OpenAPIRenderPlugin]:
    return [OfflineRedoc(), JsonRenderPlugin()]
