"""The API documentation page works with no internet (issue 23, item 7), in Chromium.

Every request the browser makes to a host other than the server's is aborted and
recorded; the page must still render the API's operations from the server's own
Redoc bundle, and nothing may have tried to leave the machine.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import httpx
from playwright.sync_api import Browser, Route

from server.api_docs import ASYNCAPI, REDOC_BUNDLE
from tests.e2e.test_page import TIMEOUT_MS, browser, site  # noqa: F401 (fixtures)

LOCAL_HOST = "127.0.0.1"


def test_schema_renders_offline_and_nothing_leaves_the_machine(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    remote: list[str] = []
    local: list[str] = []

    def only_local(route: Route) -> None:
        url = route.request.url
        if urlsplit(url).hostname == LOCAL_HOST:
            local.append(url)
            route.continue_()
        else:
            remote.append(url)
            route.abort("internetdisconnected")

    context.route("**/*", only_local)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(f"{site}/schema")
        # Redoc draws each operation's summary as a heading in the main column.
        heading = page.get_by_role("heading", name="Start a match against the AI")
        heading.first.wait_for(state="visible")
        assert page.get_by_role("heading", name="Check the process is alive").first.is_visible()
        summaries = set(page.locator("h2").all_inner_texts())
        assert operation_summaries(site) <= summaries  # every operation, not just the first
        assert f"{site}/schema/redoc.standalone.js" in local
    finally:
        context.close()
    assert remote == [], f"requests that tried to leave the machine: {remote}"
    assert errors == [], f"JavaScript errors on the page: {errors}"


def operation_summaries(base: str) -> set[str]:
    document = httpx.get(f"{base}/schema/openapi.json").json()
    return {
        operation["summary"]
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "summary" in operation
    }


def test_the_bundle_and_its_licences_are_served(site: str) -> None:  # noqa: F811
    bundle = httpx.get(f"{site}/schema/redoc.standalone.js")
    assert bundle.status_code == 200
    assert bundle.headers["content-type"].startswith("text/javascript")
    assert bundle.content == REDOC_BUNDLE.read_bytes()
    licences = httpx.get(f"{site}/schema/redoc-licenses.txt")
    assert licences.status_code == 200 and "MIT" in licences.text
    page = httpx.get(f"{site}/schema").text
    assert re.findall(r"""(?:src|href)=["']?(?:https?:)?//""", page) == [], "a remote asset"


def test_the_socket_protocol_is_served_where_its_references_resolve(site: str) -> None:  # noqa: F811
    """asyncapi.yaml refers to ``openapi.json#/components/schemas/...``: served beside
    /schema/openapi.json, every such reference names a schema that server serves."""
    served = httpx.get(f"{site}/schema/asyncapi.yaml")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("application/yaml")
    assert served.content == ASYNCAPI.read_bytes()
    schemas = httpx.get(f"{site}/schema/openapi.json").json()["components"]["schemas"]
    named = set(re.findall(r"openapi\.json#/components/schemas/(\w+)", served.text))
    assert named and named <= set(schemas), named - set(schemas)
