"""The committed OpenAPI document is exactly what the app generates.

Regenerate with ``ginrummy openapi > openapi/openapi.json`` (or ``make openapi``).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.testing import TestClient

from server.app import create_app
from server.cli import openapi_json
from server.config import Settings

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_openapi_document_has_not_drifted() -> None:
    assert COMMITTED.read_text() == openapi_json(), (
        "openapi/openapi.json is stale: run `ginrummy openapi > openapi/openapi.json`"
    )


def test_the_document_served_is_the_committed_one_though_built_only_when_asked() -> None:
    """``create_app`` no longer builds the document (a second of start-up at load, in
    every process); the first request for it does, corrections and all."""
    app = create_app(Settings())
    assert app.plugins.get(OpenAPIPlugin)._openapi is None, "built at start-up"
    served = TestClient(app).get("/schema/openapi.json")  # no lifespan: no store needed
    assert served.status_code == 200
    assert json.loads(served.text) == json.loads(COMMITTED.read_text())


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


def test_fields_every_answer_carries_are_required() -> None:
    """msgspec writes defaulted fields too; a generated client must not make them optional.

    test_openapi_conformance.py checks real answers against these lists.
    """
    schemas = json.loads(COMMITTED.read_text())["components"]["schemas"]
    for name in ("Rules", "MatchState", "HandState", "Dealt", "Drew", "ReplayResponse"):
        assert sorted(schemas[name]["required"]) == sorted(schemas[name]["properties"]), name
    assert "instance" not in schemas["Problem"]["required"]  # omitted when unset
    assert not schemas["CustomRules"].get("required")  # a request's defaults stay optional


def test_no_parameter_is_offered_null() -> None:
    """A query string or header cannot carry null: a client offered it sends "null"."""
    document = json.loads(COMMITTED.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                text = json.dumps(parameter["schema"])
                assert "null" not in text, (method, path, parameter["name"], text)
                assert ".0" not in text, (method, path, parameter["name"], text)


def test_every_path_parameter_says_what_it_names() -> None:
    """``/v1/challenges/{challenge_id}/accept``: no answer has a ``challenge_id`` field, so
    the parameter says it is the challenge's ``table_id`` (a newcomer had to guess)."""
    document = json.loads(COMMITTED.read_text())
    described: dict[str, str] = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    assert parameter.get("description"), (method, path, parameter["name"])
                    described[parameter["name"]] = parameter["description"]
    assert "`table_id`" in described["challenge_id"]


def test_the_player_stream_lists_every_frame_it_may_send() -> None:
    """Its answer's description names the frames of asyncapi.yaml's ``player`` channel: a
    bot written from the OpenAPI document alone was not told of the ``error`` line."""
    asyncapi = yaml.safe_load((COMMITTED.parent / "asyncapi.yaml").read_text())
    messages = asyncapi["components"]["messages"]
    frames = set()
    for reference in asyncapi["operations"]["receivePlayer"]["messages"]:
        name = reference["$ref"].rsplit("/", 1)[1]
        target = asyncapi["channels"]["player"]["messages"][name]["$ref"].rsplit("/", 1)[1]
        frames.add(messages[target]["payload"]["properties"]["type"]["const"])
    operation = json.loads(COMMITTED.read_text())["paths"]["/v1/me/stream"]["get"]
    listed = operation["responses"]["200"]["description"].split(":", 1)[1]
    assert {name.split()[0].strip(".") for name in listed.split(",")} == frames


def test_every_field_of_a_seats_view_says_what_it_means() -> None:
    """The view is what a client reads every turn; its fields were listed with types
    alone (what is ``taken``, ``opponent_known``, ``to_act``?)."""
    view = json.loads(COMMITTED.read_text())["components"]["schemas"]["PlayerView"]
    assert view.get("description")
    for name, field in view["properties"].items():
        assert field.get("description"), name


def test_every_tuple_states_its_length() -> None:
    """Without maxItems a schema with prefixItems lets any longer array through."""
    found = 0

    def walk(node: object, where: str) -> None:
        nonlocal found
        if isinstance(node, dict):
            if "prefixItems" in node:
                found += 1
                assert node.get("maxItems", 0) >= len(node["prefixItems"]), where
                assert "minItems" in node, where
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    walk(json.loads(COMMITTED.read_text()), "")
    assert found > 20


def test_every_400_names_what_any_route_may_send() -> None:
    """Malformed JSON is a 400 on every route that reads a body, and a request Litestar
    cannot read on any: a route's own 400 (the redeem route's ``invalid_sign_in_code``)
    adds to them, and its description named only its own code."""
    document = json.loads(COMMITTED.read_text())
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            response = operation["responses"].get("400")
            if response is not None:
                for rule in ("`malformed_json`", "`bad_request`"):
                    assert rule in response["description"], (method, path, rule)
    redeem = document["paths"]["/v1/sign-in-codes/redeem"]["post"]["responses"]["400"]
    assert "`invalid_sign_in_code`" in redeem["description"]
