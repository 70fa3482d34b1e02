"""Liveness and readiness: /healthz never touches the database, /readyz does."""

from __future__ import annotations

from litestar import get
from litestar.datastructures import State

from infra.errors import ProjectionsBehind, StoreUnavailable
from server.problems import problem_responses
from server.schemas import Health, Readiness
from server.services import services_of


@get(
    "/healthz",
    operation_id="getHealth",
    summary="Check the process is alive",
    tags=["health"],
    sync_to_thread=False,
)
def healthz() -> Health:
    """Alive: the process answers (the database is not asked; see /readyz)."""
    return Health(status="ok")


@get(
    "/readyz",
    operation_id="getReadiness",
    summary="Check the database answers and the read models keep up",
    tags=["health"],
    responses=problem_responses(503),
)
async def readyz(state: State) -> Readiness:
    """Ready when the event store answers a query and this process's read models are at
    most `GINRUMMY_READY_MAX_BEHIND` events behind the log (a 503 problem otherwise:
    `store_unavailable` or `projections_behind`). The body says how far behind each
    read model is, as this process last caught it up (every few seconds, and before
    each read of it).

    Any store failure counts as not ready, whatever the driver calls it: a load balancer
    needs a yes or no here, not a diagnosis.
    """
    services = services_of(state)
    try:
        head = await services.store.last_position()
        behind = await services.projector.behind(head)
    except StoreUnavailable:
        raise
    except Exception as exc:
        raise StoreUnavailable(f"the event store did not answer: {exc}") from exc
    worst = max(behind.values(), default=0)
    limit = services.settings.ready_max_behind
    if limit and worst > limit:
        each = ", ".join(f"{name} {count}" for name, count in sorted(behind.items()))
        raise ProjectionsBehind(
            f"the read models are {worst} events behind the log (at most {limit}): {each}"
        )
    return Readiness(status="ready", behind=worst, max_behind=limit, projections=behind)
