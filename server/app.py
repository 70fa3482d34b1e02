"""The Litestar application: routes, the problem mapping, OpenAPI, and the lifespan.

The lifespan opens the store (migrated), starts the global-log tailer that feeds the
in-process fan-out hub, and closes both on shutdown, so the app is fully usable from
the first request and leaves no task behind.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from litestar import Litestar
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, OpenAPI, SecurityScheme, Server
from litestar.static_files import create_static_files_router

from domain.events import MatchStarted
from infra.deadlines import Deadlines
from infra.event_store import RecordedEvent
from infra.players import RENAME_CHANNEL, Players
from infra.presence import NOTIFY_CHANNEL as PRESENCE_CHANNEL
from infra.presence import Presence
from infra.projections import Projector, projector
from infra.rate_limits import RateCounters
from infra.sign_in_codes import SignInCodes
from infra.spectators import Spectators
from infra.store import open_store
from infra.tailer import LogTailer
from infra.tokens import Tokens
from server import logs
from server.ai_thinking import AiThinker
from server.api_docs import SCHEMA_PATH, render_plugins
from server.background import every
from server.blocks import BlockService
from server.chat import ChatService
from server.config import Settings
from server.fanout import Hub
from server.gc_tuning import tune_after_start
from server.http.allow import AllowEveryMethod
from server.http.blocks import block_player, list_blocks, unblock_player
from server.http.body_deadline import BodyDeadline
from server.http.body_size import RefuseLargeBody, SizeCheckedRequest
from server.http.bots_online import get_bots_online
from server.http.challenges import ChallengesController
from server.http.chat import (
    get_canned_messages,
    get_chat,
    mute_opponent,
    post_chat,
    unmute_opponent,
)
from server.http.connection_cap import cap_connections
from server.http.empty_body import RefuseEmptyBody, RefuseUnreadBody
from server.http.head import answer_head_as_get
from server.http.header_size import refuse_large_headers
from server.http.health import healthz, readyz
from server.http.house_matches import create_house_match
from server.http.leaderboard import get_leaderboard
from server.http.limits import add_quota_headers, declare_quota_headers
from server.http.matches import MatchesController
from server.http.media_type import RequireJsonBody
from server.http.metrics import metrics
from server.http.players import PlayersController, get_me, issue_token, revoke_tokens, rotate_token
from server.http.problem_pages import problem_index, problem_page
from server.http.rematch import get_rematch, offer_rematch
from server.http.repeated_query import refuse_repeated_query
from server.http.rulebook import DOCUMENT_HANDLERS
from server.http.security_headers import add_security_headers
from server.http.sign_in_codes import create_sign_in_code, redeem_sign_in_code
from server.http.spectators import get_spectator_view, list_watchable_matches
from server.http.stream import player_live, stream_player_events
from server.http.tables import TablesController
from server.http.url_length import refuse_long_urls
from server.keys_in_flight import KeysInFlight
from server.known_tokens import KnownTokens
from server.limits import RateLimits, limits_of
from server.match_service import MatchService
from server.openapi_document import correct_when_built
from server.openapi_plugins import (
    ArrayLikeMovePlugin,
    bodies_have_a_size_limit,
    declare_bearer_challenge,
    declare_retry_after,
    describe_path_parameters,
    describe_player_view,
    describe_problem_types,
    forbid_unknown_properties,
    layouts_name_cards,
    parameters_are_never_null,
    require_fields_always_sent,
    tuples_have_their_length,
)
from server.problems import handle_exception
from server.renames import Renames
from server.seats import attendees
from server.services import Services
from server.tables import TableService
from server.token_watch import TokenWatch
from server.ws.live import finish_actions, live, live_over_plain_http
from server.ws.lobby import lobby_live, lobby_over_plain_http
from server.ws.watch import watch, watch_over_plain_http

STATIC_DIR = Path(__file__).parent / "static"
API_VERSION = "1.0.0"


def openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Gin Rummy server",
        version=API_VERSION,
        description=(
            "Play Gin Rummy against the server's AI over HTTP and a WebSocket "
            "(`/v1/matches/{id}/live`, described in the AsyncAPI document served at "
            "`/schema/asyncapi.yaml`). Errors are "
            "RFC 9457 problem details (`application/problem+json`) with a stable `type`."
        ),
        servers=[Server(url="/")],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The token from POST /v1/players.",
                )
            }
        ),
        path=SCHEMA_PATH,
        render_plugins=render_plugins(),  # served from here: /schema works offline
        create_examples=False,
        use_handler_docstrings=True,  # each operation's description is its docstring
    )


async def keep_projections_current(projections: Projector, interval: float = 5.0) -> None:
    """Catch the read models up every few seconds, in the background.

    Not after every append: that would add two projection transactions to each action.
    The endpoints that read a projection catch it up first, so they are never behind.
    """
    await every(interval, projections.catch_up, "projection catch-up")


async def expire_overdue_tables(tables: TableService, interval: float) -> None:
    """Record the expiry of tables whose time ran out, every few seconds, in every process.

    No timer lives in memory: the deadline is in the table's log, any process may
    record its expiry, and the store lets exactly one do so. A table past its time is
    neither listed nor joinable even before this runs.
    """
    await every(interval, tables.expire_overdue, "expiring tables")


async def keep_spectator_counts_fresh(
    spectators: Spectators, presence: Presence, interval: float
) -> None:
    """Refresh this process's spectator and presence rows, so other processes count them."""

    async def refresh() -> None:
        await spectators.refresh()
        await presence.refresh()

    await every(interval, refresh, "refreshing spectator counts")


async def fire_due_clocks(matches: MatchService, interval: float) -> None:
    """Play the turns whose time has run out, every ``interval``, in every process.

    The deadlines are rows in the database, computed from each match's log: they survive
    a restart, any process may fire one, and the store records one outcome.
    """
    await every(interval, matches.fire_due, "firing move clocks")


def create_app(settings: Settings | None = None, *, own_process: bool = False) -> Litestar:
    """The application. ``own_process``: the process is this server's alone (a worker of
    ``ginrummy serve``), so Python's own reports of an uncaught exception go through its
    log as well; an app run inside another program (a test runner, an embedding host)
    leaves that program's hooks in place."""
    settings = settings or Settings.from_env()
    static_dir = Path(settings.static_dir) if settings.static_dir else STATIC_DIR

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        logs.install(settings.log_level, settings.log_format)  # again, after uvicorn's set-up
        if own_process:
            logs.report_uncaught_exceptions()  # in each worker process too
        store = await open_store(settings.database_url or None, connections=settings.db_connections)
        hub = Hub()

        async def on_event(recorded: RecordedEvent) -> None:
            hub.publish(recorded.stream_id, recorded.version)
            if isinstance(recorded.event, MatchStarted):  # started by another process
                hub.announce_start(recorded.stream_id, attendees(recorded.event))

        presence = Presence(store.engine, settings.presence_refresh_s)
        renames = Renames()
        poll = None if store.is_postgres else settings.tail_poll_ms / 1000
        tailer = LogTailer(
            store,
            await store.last_position(),
            on_event,
            poll_interval=poll,
            skip_own=True,
            # sockets on other processes; renames made on them
            also_hear={PRESENCE_CHANNEL: presence.heard, RENAME_CHANNEL: renames.heard},
        )
        await tailer.start()
        projections = projector(store)
        projecting = asyncio.create_task(keep_projections_current(projections), name="projections")
        thinker = AiThinker(
            settings.ai_processes, (settings.log_level, settings.log_format)
        )  # its process starts at hard's first move
        matches = MatchService(
            store,
            ai_time_cap_ms=settings.ai_time_cap_ms,
            thinker=thinker,
            on_append=hub.publish,
            on_start=lambda started: hub.announce_start(started.match_id, attendees(started)),
            deadlines=Deadlines(store.engine),
            next_hand_timeout_ms=int(settings.next_hand_timeout_s * 1000),
            ai_pace_ms=settings.ai_pace_ms,
        )
        players = Players(
            store.engine,
            name_wait_s=settings.name_lock_wait_s,
            origin=renames.origin,
            on_renamed=renames.told,  # the pages showing the name (other processes: NOTIFY)
        )
        blocks = BlockService(store, projections, players, on_append=hub.publish)
        tables = TableService(
            store, matches, projections, blocks, on_append=hub.publish, players=players
        )
        sweeping = asyncio.create_task(
            expire_overdue_tables(tables, settings.table_sweep_s), name="table-expiry"
        )
        spectators = Spectators(store.engine, settings.presence_refresh_s)
        counting = asyncio.create_task(
            keep_spectator_counts_fresh(spectators, presence, settings.presence_refresh_s),
            name="spectators",
        )
        clocks = asyncio.create_task(
            fire_due_clocks(matches, settings.clock_sweep_s), name="move-clocks"
        )
        tokens = Tokens(store.engine)
        token_watch = TokenWatch(tokens)
        watching = asyncio.create_task(token_watch.run(), name="token-watch")
        known_tokens = KnownTokens(tokens)
        rechecking = asyncio.create_task(known_tokens.run(), name="known-tokens")
        limits = RateLimits(RateCounters(store.engine), settings.rate_window_s, limits_of(settings))
        sweeping_limits = asyncio.create_task(limits.sweep_forever(), name="rate-limits")
        app.state.services = Services(
            settings=settings,
            store=store,
            matches=matches,
            hub=hub,
            players=players,
            keys_in_flight=KeysInFlight(),
            projector=projections,
            tables=tables,
            spectators=spectators,
            chat=ChatService(store, matches, blocks, on_append=hub.publish),
            tokens=tokens,
            token_watch=token_watch,
            known_tokens=known_tokens,
            limits=limits,
            presence=presence,
            renames=renames,
            blocks=blocks,
            sign_in_codes=SignInCodes(store.engine),
        )
        app.state.services.draining.install()  # uvicorn's signal handlers are in place now
        tune_after_start()
        try:
            yield
        finally:
            # A dropped socket's action still gets its reply.
            await finish_actions(timeout=settings.drain_actions_s)
            tasks = (projecting, sweeping, counting, watching, rechecking, sweeping_limits, clocks)
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await matches.close()
            projections.close()
            await asyncio.to_thread(thinker.close)
            await tailer.stop()
            presence.close()
            renames.close()
            await store.close()

    logs.install(settings.log_level, settings.log_format)
    allow_every_method = AllowEveryMethod()
    app = Litestar(
        route_handlers=[
            healthz,
            readyz,
            metrics,
            PlayersController,
            get_me,
            issue_token,
            rotate_token,
            revoke_tokens,
            create_sign_in_code,
            redeem_sign_in_code,
            block_player,
            unblock_player,
            list_blocks,
            get_leaderboard,
            get_bots_online,
            MatchesController,
            TablesController,
            ChallengesController,
            offer_rematch,
            get_rematch,
            stream_player_events,
            player_live,
            get_spectator_view,
            list_watchable_matches,
            create_house_match,
            get_canned_messages,
            get_chat,
            post_chat,
            mute_opponent,
            unmute_opponent,
            live,
            live_over_plain_http,
            watch,
            watch_over_plain_http,
            lobby_live,
            lobby_over_plain_http,
            *DOCUMENT_HANDLERS,
            problem_index,
            problem_page,
            create_static_files_router(
                path="/", directories=[static_dir], html_mode=True, include_in_schema=False
            ),
        ],
        lifespan=[lifespan],
        # Litestar's default puts a handler of its own (its own line shape, local time) on
        # the root logger: logging is server.logs' alone.
        logging_config=None,
        exception_handlers={Exception: handle_exception},
        before_request=allow_every_method,
        openapi_config=openapi_config(),
        request_max_body_size=settings.max_body_bytes,
        plugins=[ArrayLikeMovePlugin()],
        middleware=[
            BodyDeadline(settings.body_timeout_s),
            RefuseLargeBody(settings.max_body_bytes),
            RequireJsonBody(),
            RefuseEmptyBody(),
            RefuseUnreadBody(),
        ],
        request_class=SizeCheckedRequest,
    )
    allow_every_method.learn(app)
    answer_head_as_get(app)
    cap_connections(app, settings.connections_per_address)
    add_quota_headers(app)
    refuse_large_headers(app)  # before routing: a 431 problem (the protocol counts them)
    refuse_repeated_query(app)  # before routing: a 422 problem, inside the 414's check
    refuse_long_urls(app)  # before routing: a 414 problem, whatever the path
    add_security_headers(app)  # outermost: a refusal by the cap has the headers too

    def correct(document: OpenAPI) -> None:
        forbid_unknown_properties(document)
        declare_bearer_challenge(document)
        declare_retry_after(document)
        declare_quota_headers(app, document)
        bodies_have_a_size_limit(document)
        require_fields_always_sent(document)
        parameters_are_never_null(document)
        describe_path_parameters(document)
        describe_player_view(document)
        tuples_have_their_length(document)
        layouts_name_cards(document)
        describe_problem_types(document)

    correct_when_built(app, correct)  # built when first asked for, not at every start
    return app


def create_worker_app() -> Litestar:
    """``create_app`` for one of the worker processes ``ginrummy serve`` starts (uvicorn's
    factory: a worker imports it by name, and has none of the supervisor's hooks)."""
    return create_app(own_process=True)
