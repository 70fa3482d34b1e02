"""The OpenAPI document is built when it is first asked for, not when the app is.

Litestar builds it on demand, but the corrections (server/openapi_plugins.py) were
applied to it in ``create_app``, which built it there: about two thirds of
``create_app``'s time, in every server process at every start, for a document only
``/schema`` and ``ginrummy openapi`` read. Here the corrections run as part of the
build itself, so whoever asks first (and any rebuild Litestar makes after a route is
added) gets the corrected document, and a start pays nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable

from litestar import Litestar
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.openapi.spec import OpenAPI


def correct_when_built(app: Litestar, correct: Callable[[OpenAPI], None]) -> None:
    """Have ``correct`` applied to ``app``'s OpenAPI document each time it is built."""
    plugin = app.plugins.get(OpenAPIPlugin)

    class CorrectedOpenAPIPlugin(OpenAPIPlugin):
        # The same instance, only its build extended: Litestar creates the plugin itself
        # (an app cannot supply its own), and looks it up by its original type.
        __slots__ = ()

        def _build_openapi(self) -> OpenAPI:
            document = super()._build_openapi()
            correct(document)
            return document

    plugin.__class__ = CorrectedOpenAPIPlugin
