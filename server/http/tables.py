"""Tables: open one, browse the public ones, join (a private one with its code), cancel."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody, QueryParameter

from domain import table as t
from domain.errors import TableNotOpened, quoted
from domain.rules import Rules, is_standard
from infra.clock import now_ms
from server.http.limits import rate_limited
from server.http.matches import refuse_null
from server.problems import NAMES_HELD, TABLE_REFUSALS, problem_responses
from server.ratings import rated_for
from server.schemas import (
    JoinedTable,
    JoinTableRequest,
    OpenTableRequest,
    PresetName,
    TableList,
    TableView,
    clock_of,
    rules_of,
    strict_body,
)
from server.services import Services, services_of

AnyRequest = Request[Any, Any, Any]
TableId = FromPath[str]


def iso_at(ms: int) -> str:
    """A time in ms since the epoch as the API writes times (ISO 8601, UTC)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


async def table_view(services: Services, state: t.TableState, viewer: str | None) -> TableView:
    """The table as ``viewer`` may see it: the codes only for the two seated players."""
    seated = viewer is not None and viewer in (state.host, state.guest, state.invitee)
    named = [state.host, *(p for p in (state.guest, state.invitee) if p is not None)]
    refs = {ref.id: ref for ref in await services.player_refs(named)}  # all in one read
    return TableView(
        table_id=state.table_id,
        host=refs[state.host],
        rules=state.rules,
        private=state.private,
        rated=state.rated,
        status=state.status if state.status != "open" or state.open_at(now_ms()) else "expired",
        opened_at=iso_at(state.opened_ms),
        expires_at=iso_at(state.expires_ms),
        guest=refs[state.guest] if state.guest is not None else None,
        match_id=state.match_id,
        invite_code=state.invite_code if seated else None,
        watch_code=state.watch_code if seated else None,
        invitee=refs[state.invitee] if state.invitee is not None else None,
        rematch_of=state.rematch_of,
        practice=not is_standard(state.rules),
        hints=state.hints,
        seed_commitment=state.seed_commitment,
        clock=state.clock,
    )


async def joined_answer(services: Services, joined: t.TableState, player: str) -> JoinedTable:
    """The answer to taking a seat: the started table and the guest's view of its match."""
    assert joined.match_id is not None
    return JoinedTable(
        table=await table_view(services, joined, player),
        match=await services.with_seats(await services.matches.view(joined.match_id, player)),
    )


async def own_table_views(
    services: Services, host: str, rules: str | None, limit: int
) -> list[TableView]:
    """The tables ``host`` keeps waiting for an opponent (not challenges), newest first,
    as their host reads them (with their codes)."""
    views = []
    for hosted in reversed(await services.tables.hosted_by(host)):
        if hosted.invitee is not None:
            continue  # a challenge: GET /v1/challenges lists those
        table = await services.tables.load(hosted.table_id)
        if table.status == "open" and (rules is None or table.rules.name == rules):
            views.append(await table_view(services, table, host))
    return views[:limit]


async def public_table_views(
    services: Services, viewer: str, rules: str | None, limit: int
) -> list[TableView]:
    """The lobby's list as ``viewer`` sees it: public open tables, newest first, from the
    lobby projection, every host read at once."""
    rows = await services.tables.open_tables(viewer, rules, limit)
    hosts = await services.player_refs([row.host for row in rows])
    views = []
    for row, host in zip(rows, hosts, strict=True):
        table_rules = msgspec.json.decode(row.rules, type=Rules)
        views.append(
            TableView(
                table_id=row.table_id,
                host=host,
                rules=table_rules,
                private=False,
                rated=row.rated,
                status="open",
                opened_at=iso_at(row.opened_ms),
                expires_at=iso_at(row.expires_ms),
                guest=None,
                match_id=None,
                invite_code=None,
                watch_code=None,
                invitee=None,
                rematch_of=None,
                practice=not is_standard(table_rules),
                hints=bool(row.hints),
                seed_commitment=row.seed_commitment,
                clock=row.clock,
            )
        )
    return views


class TablesController(Controller):
    path = "/v1/tables"
    tags = ("tables",)
    security = ({"bearer": []},)

    @post(
        "/",
        operation_id="openTable",
        summary="Open a table and wait for an opponent",
        status_code=201,
        responses=problem_responses(
            400,
            401,
            409,
            413,
            422,
            429,
            described_as={
                **NAMES_HELD,
                409: "You have as many open tables as a host may (`too_many_open_tables`)",
            },
        ),
        before_request=rate_limited("creates"),
    )
    async def open_table(
        self, state: State, request: AnyRequest, data: JSONBody[OpenTableRequest]
    ) -> TableView:
        """Open a table under a preset or custom rules, with an optional move clock; a private
        one gets an invite code (for the opponent) and a watch code (for spectators), shown
        only to its players. A host has at most 3 tables waiting at once (409
        `too_many_open_tables`: cancel one, or wait until one is joined or expires)."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, OpenTableRequest)
        rules = rules_of(data.rules)
        ttl = data.expires_in_s or services.settings.table_ttl_s
        rated = rated_for((player.id,), rules, False, data.rated, hints=data.hints)
        opened = await services.tables.open(
            player.id,
            rules,
            data.private,
            ttl,
            hints=data.hints,
            client_seed=data.client_seed,
            rated=rated,
            clock=clock_of(data.clock),
        )
        return await table_view(services, opened, player.id)

    @get(
        "/",
        operation_id="listTables",
        summary="Browse the public tables waiting for an opponent",
        responses=problem_responses(401),
    )
    async def list_tables(
        self,
        state: State,
        request: AnyRequest,
        rules: Annotated[
            PresetName | None, QueryParameter(description="Only this rule set")
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 100,
        mine: Annotated[
            bool,
            QueryParameter(
                description="Only the tables you host that wait for an opponent, private "
                "ones too, each with its codes (a page on another browser finds its "
                "private tables here)"
            ),
        ] = False,
    ) -> TableList:
        """Public open tables, newest first; private tables are never listed, but to their
        host with ``mine=true``. Nor is a table whose host blocks you or whom you block."""
        refuse_null(request, "rules")
        refuse_null(request, "mine")
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        if mine:
            return TableList(tables=await own_table_views(services, player.id, rules, limit))
        return TableList(tables=await public_table_views(services, player.id, rules, limit))

    @get(
        "/{table_id:str}",
        operation_id="getTable",
        summary="Read a table",
        security=[{}, {"bearer": []}],
        responses=problem_responses(401, 404, described_as={404: TABLE_REFUSALS[404]}),
    )
    async def get_table(
        self,
        state: State,
        request: AnyRequest,
        table_id: TableId,
        invite_code: Annotated[str | None, QueryParameter(max_length=100)] = None,
    ) -> TableView:
        """A table; a private one only for its players or with its invite code. No token
        is needed: a friend who opens an invite link sees who invites it, and to what,
        before choosing a name (the codes are shown only to the table's players)."""
        refuse_null(request, "invite_code")
        services = services_of(state)
        authorization = request.headers.get("authorization")
        viewer = (await services.authenticate(authorization)).id if authorization else None
        table = await services.tables.load(table_id)
        require_visible(table, viewer, invite_code)
        await services.tables.ensure_match(table)
        return await table_view(services, table, viewer)

    @post(
        "/{table_id:str}/join",
        operation_id="joinTable",
        summary="Take the free seat and start the match",
        status_code=200,
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            422,
            429,
            described_as={
                **NAMES_HELD,
                **TABLE_REFUSALS,
                403: "A private table's invite code is wrong or missing, or its host does "
                "not take you as an opponent",
            },
        ),
        before_request=rate_limited("actions"),  # an answer to a table, not a creation
    )
    async def join_table(
        self, state: State, request: AnyRequest, table_id: TableId, data: JSONBody[JoinTableRequest]
    ) -> JoinedTable:
        """Join a table: the match starts at once, the host in seat 0 and you in seat 1.
        Of two players racing for the seat exactly one is seated; the other gets a 409.
        A host who blocks you does not seat you (403 `opponent_refused`)."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, JoinTableRequest)
        table = await services.tables.load(table_id)
        if table.invitee is not None:  # a challenge is not a stranger's to know of
            require_visible(table, player.id, None)
        joined = await services.tables.join(table_id, player.id, data.invite_code, data.client_seed)
        return await joined_answer(services, joined, player.id)

    @post(
        "/{table_id:str}/cancel",
        operation_id="cancelTable",
        summary="Cancel your table before anyone joins",
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 429, described_as=TABLE_REFUSALS),
        before_request=rate_limited("actions"),
    )
    async def cancel_table(self, state: State, request: AnyRequest, table_id: TableId) -> TableView:
        """The host closes its open table; nobody can join it afterwards. Once its match
        has started, a 409 `table_started`: resign the match instead."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        table = await services.tables.load(table_id)
        require_visible(table, player.id, None)
        cancelled = await services.tables.cancel(table_id, player.id)
        return await table_view(services, cancelled, player.id)


def require_visible(table: t.TableState, player: str | None, invite_code: str | None) -> None:
    """A private table does not exist for a stranger without its code (same 404); nor
    does a challenge for anyone but its two ends. ``player``: None without a token."""
    if player is not None and player in (table.host, table.guest, table.invitee):
        return
    if not table.private and table.invitee is None:
        return
    if invite_code is None or not t.same_code(invite_code, table.invite_code):
        raise TableNotOpened(f"no table {quoted(table.table_id)}")
