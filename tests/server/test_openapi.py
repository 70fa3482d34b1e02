"""The committed OpenAPI document is exactly what the app generates.

Regenerate with ``ginrummy openapi > openapi/openapi.json`` (or ``make openapi``).
"""

from __future__ import annotations

import json
from pathlib import Path

from server.cli import openapi_json

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_openapi_document_has_not_drifted() -> None:
    assert COMMITTED.read_text() == openapi_json(), (
        "openapi/openapi.json is stale: run `ginrummy openapi > openapi/openapi.json`"
    )


def test_every_error_response_is_declared_as_a_problem() -> None:
    document = json.loads(COMMITTED.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    content = response["content"]
                    assert list(content) == ["application/problem+json"], (method, path, status)
                    schema = content["application/problem+json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Problem"}


def test_every_operation_says_what_it_does() -> None:
    """Generated clients show these: a human summary, not a function name, and a description."""
    document = json.loads(COMMITTED.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            summary = operation.get("summary", "")
            assert summary and " " in summary, (method, path, summary)
            assert operation.get("description"), (method, path)
