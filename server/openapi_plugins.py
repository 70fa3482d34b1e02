"""OpenAPI schema corrections, so the generated document describes the real JSON.

msgspec encodes an ``array_like`` struct (``Move``) as a JSON array, but Litestar's
struct plugin would describe it as an object; this plugin states the array form. And
request structs that forbid unknown fields are declared ``additionalProperties: false``,
which Litestar leaves out, so a schema-driven client knows extras are refused. Every
401 declares the ``WWW-Authenticate`` challenge it carries. And a field that an
answer always carries is required, even where it has a default (or may be null);
and no parameter is said to take null, which a query string or header cannot send;
and a tuple is an array of exactly its length. And a problem's ``type`` is said to be
a reference relative to the server, under ``/problems/``. And every POST, PUT, PATCH
and DELETE declares the 413 a body over the size limit gets, whether the route reads one
or not. And every path parameter, and every field of a seat's view, says what it means.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args

import msgspec
from litestar.openapi.spec import (
    OpenAPI,
    OpenAPIFormat,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Schema,
)
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from domain.state import Move, MoveAction
from server import schemas
from server.http.connection_cap import STREAM_PATHS
from server.problem_types import PROBLEMS_PATH

#: What every problem ``type`` looks like: server/problem_types.py makes them so.
PROBLEM_TYPE_PATTERN = f"^{PROBLEMS_PATH}[a-z0-9]+(-[a-z0-9]+)*$"
RULE_PATTERN = "^[a-z0-9]+(_[a-z0-9]+)*$"


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


def forbid_unknown_properties(document: OpenAPI) -> None:
    """Mark the component schemas of strict request structs as closed objects."""
    strict = {
        name
        for name, value in vars(schemas).items()
        if isinstance(value, type)
        and issubclass(value, msgspec.Struct)
        and value.__struct_config__.forbid_unknown_fields
    }
    components = document.components.schemas if document.components else None
    for name, schema in (components or {}).items():
        if name in strict and isinstance(schema, Schema):
            schema.additional_properties = False


def declare_bearer_challenge(document: OpenAPI) -> None:
    """Declare the ``WWW-Authenticate`` header that problems.handle_exception adds to a 401."""
    header = OpenAPIHeader(
        description='`Bearer`, or `Bearer error="invalid_token"` when the token sent is unknown',
        schema=Schema(type=OpenAPIType.STRING),
        required=True,
    )
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"):
            operation = getattr(item, method, None)
            response = (operation.responses or {}).get("401") if operation else None
            if isinstance(response, OpenAPIResponse):
                response.headers = {**(response.headers or {}), "WWW-Authenticate": header}


def declare_retry_after(document: OpenAPI) -> None:
    """Declare the ``Retry-After`` header a rate limit's 429 carries (server/limits.py).
    A stream's 429 is the connection cap's, which has no window to wait out: none."""
    header = OpenAPIHeader(
        description="Seconds until the rate limit's window ends",
        schema=Schema(type=OpenAPIType.INTEGER),
        required=True,
    )
    for path, item in (document.paths or {}).items():
        if path in STREAM_PATHS:
            continue
        for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"):
            operation = getattr(item, method, None)
            response = (operation.responses or {}).get("429") if operation else None
            if isinstance(response, OpenAPIResponse):
                response.headers = {**(response.headers or {}), "Retry-After": header}


BODY_METHODS = ("post", "put", "patch", "delete")  # server/http/body_size.py: 413 on these


def bodies_have_a_size_limit(document: OpenAPI) -> None:
    """Declare the 413 (server/http/body_size.py) on the routes that take no body too:
    a body over the limit is refused whether or not the route would read it."""
    operations = [
        operation
        for item in (document.paths or {}).values()
        for method in BODY_METHODS
        if (operation := getattr(item, method, None)) is not None
    ]
    too_large = next(
        (op.responses["413"] for op in operations if op.responses and "413" in op.responses), None
    )
    if too_large is None:
        return
    for operation in operations:
        operation.responses = dict(
            sorted({**(operation.responses or {}), "413": too_large}.items())
        )


def require_fields_always_sent(document: OpenAPI) -> None:
    """In schemas only answers use, list every property as required.

    msgspec writes every field of a struct, defaulted ones included (as null where
    that is the default), unless the struct omits defaults (``Problem``); Litestar
    calls a defaulted field optional, so generated clients made every such field
    optional. A schema a request also uses keeps its optional fields.
    """
    tree = document.to_schema()
    components = tree.get("components", {}).get("schemas", {})
    asked: set[str] = set()
    answered: set[str] = set()
    for item in tree.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                asked |= _reachable(components, operation.get("requestBody"))
                asked |= _reachable(components, operation.get("parameters"))
                answered |= _reachable(components, operation.get("responses"))
    omitting = {c.__name__ for c in _structs() if c.__struct_config__.omit_defaults}
    for name in answered - asked - omitting:
        schema = document.components.schemas.get(name) if document.components else None
        if isinstance(schema, Schema) and schema.properties:
            schema.required = sorted(schema.properties)


def _reachable(components: dict[str, Any], node: Any) -> set[str]:
    """The component names ``node`` refers to, directly or through other components."""
    found: set[str] = set()
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, dict):
            ref = current.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name not in found:
                    found.add(name)
                    todo.append(components.get(name))
            todo.extend(current.values())
        elif isinstance(current, list):
            todo.extend(current)
    return found


def _structs(base: type[msgspec.Struct] = msgspec.Struct) -> Iterator[type[msgspec.Struct]]:
    for sub in base.__subclasses__():
        yield sub
        yield from _structs(sub)


def parameters_are_never_null(document: OpenAPI) -> None:
    """Drop the null that an optional parameter's type gives its schema, and float bounds.

    ``status: str | None = None`` means "may be left out", which ``required: false``
    already says; a generated client offered ``null`` would send the text "null".
    """
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for parameter in (operation.parameters or []) if operation else []:
                schema = getattr(parameter, "schema", None)
                if isinstance(schema, Schema):
                    _without_null(schema)


#: What each path parameter names, and where a client finds it: ``challenge_id`` above
#: all, which no answer carries under that name (a challenge is a table: its ``table_id``).
PATH_PARAMETERS = {
    "match_id": "The match's `match_id` (from `POST /v1/matches`, a table's or challenge's "
    "`match_id`, or the player stream's `match_started`)",
    "table_id": "The table's `table_id` (from `POST /v1/tables` or `GET /v1/tables`)",
    "challenge_id": "The challenge's `table_id` (a challenge is a table addressed to one "
    "player: from `POST /v1/challenges`, `GET /v1/challenges` or the player stream's "
    "`challenge` frame)",
    "player_id": "The player's `id` (from `POST /v1/players`, `GET /v1/me`, or "
    "`GET /v1/players?name=`)",
}


def describe_path_parameters(document: OpenAPI) -> None:
    """Say what each path parameter names: a client generated from the document, or a
    newcomer reading it, otherwise looks for a ``challenge_id`` field that no answer has."""
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            for parameter in (operation.parameters or []) if operation else []:
                if getattr(parameter, "param_in", None) == "path" and not parameter.description:
                    parameter.description = PATH_PARAMETERS.get(parameter.name)


def _without_null(schema: Schema) -> None:
    if isinstance(schema.type, list):
        kept = [t for t in schema.type if t != OpenAPIType.NULL]
        schema.type = kept[0] if len(kept) == 1 else kept
    if schema.enum is not None:
        schema.enum = [value for value in schema.enum if value is not None]
    if schema.one_of:
        kept_schemas = [
            s for s in schema.one_of if not (isinstance(s, Schema) and s.type == OpenAPIType.NULL)
        ]
        if len(kept_schemas) == 1 and isinstance(kept_schemas[0], Schema):
            schema.type, schema.one_of = kept_schemas[0].type, None
        else:
            schema.one_of = kept_schemas
    for bound in ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum"):
        value = getattr(schema, bound)
        if isinstance(value, float) and value.is_integer():
            setattr(schema, bound, int(value))


def tuples_have_their_length(document: OpenAPI) -> None:
    """Bound each fixed-length array (a tuple: ``prefixItems``) to exactly that length.

    Litestar lists a tuple's items but not its length, so ``scores`` with three
    numbers would validate; an array whose length is stated (``Move``) is left alone.
    """
    for schema in _schemas(document.components.schemas if document.components else {}):
        if schema.prefix_items and schema.max_items is None and schema.items is None:
            schema.min_items = schema.max_items = len(schema.prefix_items)


def _schemas(node: Any) -> Iterator[Schema]:
    """Every Schema object in ``node``, however deep."""
    if isinstance(node, Schema):
        yield node
        for value in vars(node).values():
            yield from _schemas(value)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _schemas(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _schemas(value)


def layouts_name_cards(document: OpenAPI) -> None:
    """State a knock's ``layout`` as the server reads it: up to ten melds of up to ten cards.

    Litestar drops the card pattern and the inner bound of a list of lists that may be
    null, so the document would accept any strings; the server refuses them.
    """
    components = document.components.schemas if document.components else {}
    card = Schema(type=OpenAPIType.STRING, pattern=r"^[A2-9TJQK][CDHS]$")
    for name in ("KnockAction", "GinAction"):
        schema = components.get(name)
        layout = (schema.properties or {}).get("layout") if isinstance(schema, Schema) else None
        if not isinstance(layout, Schema):
            continue
        melds = Schema(
            type=OpenAPIType.ARRAY,
            max_items=10,
            items=Schema(type=OpenAPIType.ARRAY, max_items=10, items=card),
        )
        layout.one_of = [melds, Schema(type=OpenAPIType.NULL)]
        layout.max_items = None


def describe_problem_types(document: OpenAPI) -> None:
    """State what ``type`` and ``rule`` hold, which Litestar can only call strings.

    ``type`` is a URI reference relative to the server (RFC 9457 §3.1.1), the address
    of a page that explains it; ``rule`` is the same code as a plain string. No enum:
    a client generated from one would break on the first new code.
    """
    problem = document.components.schemas.get("Problem") if document.components else None
    if not isinstance(problem, Schema) or not problem.properties:
        return
    problem.description = (
        "An RFC 9457 problem. Every type is explained at its own address; "
        f"`{PROBLEMS_PATH}` lists them."
    )
    problem.properties["type"] = Schema(
        type=OpenAPIType.STRING,
        format=OpenAPIFormat.URI_REFERENCE,
        pattern=PROBLEM_TYPE_PATTERN,
        description=(
            f"`{PROBLEMS_PATH}<slug>`, relative to the server, whose page explains the problem; "
            "the slug is `rule` with hyphens for underscores"
        ),
    )
    problem.properties["rule"] = Schema(
        type=OpenAPIType.STRING,
        pattern=RULE_PATTERN,
        description="The problem's stable code (`stale_version`): compare this, not the title",
    )


#: What each field of a seat's view means: the one object a client reads every turn,
#: which the document listed with types alone. A test requires one line per field.
PLAYER_VIEW_FIELDS = {
    "match_id": "The match.",
    "seat": "Your seat, 0 or 1 (seat 0 is the host of a table, or you against the house).",
    "players": "Both seats' player ids (`ai:<level>` for the house AI), by seat.",
    "rules": "The rules the match is played under (its preset, or a custom set).",
    "version": "The number of events in the match's log this view reflects; send it with "
    "an action to be refused (409 `stale_version`) if the match has moved on.",
    "phase": "`up_card` (take or pass the first face-up card), `draw`, `discard`, "
    "`layoff` (the defender lays off after a knock), `hand_over` (both say `next_hand`), "
    "`match_over`.",
    "to_act": "The seats that may act now: one, both in `hand_over`, none once over.",
    "hand_number": "This hand's number in the match, from 1.",
    "dealer": "The seat that dealt this hand (the other decides on the up-card first).",
    "knock_limit": "The most deadwood a knock may leave in this hand (under `oklahoma` "
    "rules, the up-card's value; 0: gin only).",
    "hand": "Your cards (10, or 11 between your draw and your discard).",
    "arrangement": "Your hand split the least-deadwood way: `melds`, `deadwood` and "
    "`deadwood_points`.",
    "best_discard": "The engine's advice while you hold eleven cards: the card to "
    "discard and the deadwood left; null unless the match has `hints`.",
    "taken": "On your turn, the face-up card you took, which you may not discard at once; "
    "null otherwise.",
    "opponent_card_count": "How many cards the opponent holds.",
    "opponent_known": "The opponent's cards you know: face-up cards it took and has not "
    "discarded since.",
    "discard_pile": "The discard pile, bottom first: the last card is the one on top.",
    "stock_size": "Cards left in the stock (a discard that leaves two, with no knock, "
    "washes the hand).",
    "up_card_passes": "How many seats have passed the up-card in this hand (0 to 2).",
    "pile_draws": "Face-up cards taken in this hand, the up-card included (the no-progress rule).",
    "pile_draw_limit": "At this many `pile_draws` the hand is washed; null: no limit.",
    "moves": "This hand's moves so far, redacted for you (an opponent's stock draw shows no card).",
    "knock": "This hand's knock (`knocked`: the seat, knock, gin or big gin, its melds and "
    "deadwood), null before one.",
    "knock_melds": "The knocker's melds laid down; a `lay_off`'s `meld` is an index here.",
    "layoffs": "The cards laid off so far this hand, each with the index of its meld.",
    "suggested_layoffs": "While you defend a knock, the layoffs that leave the least "
    "deadwood, offered in every match (not advice: hints or not); null otherwise.",
    "scores": "The match's points so far, by seat.",
    "boxes": "Hands won so far, by seat (each worth the box bonus at the end).",
    "last_result": "The last hand's result (`hand_scored` or `hand_washed`), null before "
    "the first ends.",
    "settlement": "The match's result (`match_settled`: winner, totals, bonuses, who "
    "resigned; `abandoned` true when both players were away and the house AI played both "
    "seats to the end, a result that moves no rating), null while it runs.",
    "deal_commitment": "The commitment to this hand's deck, revealed when the hand ends "
    "(docs/fair-deal.md).",
    "seed_commitment": "The commitment to the server's seed for the match, revealed at "
    "its end (docs/fair-deal.md).",
    "legal": "Every action you may send now, each with your `seat` (send one back as it "
    "is); empty when it is not your move. `resign` is always allowed and never listed.",
    "practice": "True when a chosen seed or custom rules keep the match out of statistics "
    "and ratings.",
    "hints": "True when the view carries the engine's advice (`best_discard`); "
    "`suggested_layoffs` does not depend on it.",
    "clock": 'The move clock and the next-hand timeout (docs/api.md, "Move clocks and '
    'claims"); null when the match has neither.',
    "knock_layouts": "For each legal knock, its discard and every least-deadwood way to "
    "lay the melds down, the default first (a knock's `layout`).",
}


def describe_player_view(document: OpenAPI) -> None:
    """Give each field of ``PlayerView`` its meaning, which the document lacked."""
    view = document.components.schemas.get("PlayerView") if document.components else None
    if not isinstance(view, Schema) or not view.properties:
        return
    view.description = "A seat's whole picture of the match: what you may see, and do."
    for name, field in view.properties.items():
        if name in PLAYER_VIEW_FIELDS and not getattr(field, "description", None):
            field.description = PLAYER_VIEW_FIELDS[name]
