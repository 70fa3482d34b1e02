"""OpenAPI schema corrections, so the generated document describes the real JSON.

msgspec encodes an ``array_like`` struct (``Move``) as a JSON array, but Litestar's
struct plugin would describe it as an object; this plugin states the array form.
"""

from __future__ import annotations

from typing import Any, get_args

from litestar.openapi.spec import OpenAPIType, Schema
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from domain.state import Move, MoveAction


class ArrayLikeMovePlugin(OpenAPISchemaPlugin):
    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        return value is Move

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        actions = list(get_args(MoveAction))
        return Schema(
            type=OpenAPIType.ARRAY,
            description="[seat, action, card or null]: one public step of the hand",
            prefix_items=[
                Schema(type=OpenAPIType.INTEGER),
                Schema(type=OpenAPIType.STRING, enum=actions),
                Schema(one_of=[Schema(type=OpenAPIType.STRING), Schema(type=OpenAPIType.NULL)]),
            ],
            min_items=2,
            max_items=3,
        )
