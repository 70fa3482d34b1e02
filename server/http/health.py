"""Liveness and readiness: /healthz never touches the database, /readyz does."""

from __future__ import annotations

from litestar import get
from litestar.datastructures import State

from infra.errors import StoreUnavailable
from server.problems import problem_responses
from server.schemas import Health
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
    summary="Check the database answers",
    tags=["health"],
    responses=problem_responses(503),
)
async def readyz(state: State) -> Health:
    """Ready when the event store answers a query (a 503 problem otherwise).

    Any failure counts as not ready, whatever the driver calls it: a load balancer
    needs a yes or no here, not a diagnosis.
    """
    try:
        await services_of(state).store.last_position()
    except StoreUnavailable:
        raise
    except Exception as exc:
        raise StoreUnavailable(f"the event store did not answer: {exc}") from exc
    return Health(status="ready")
