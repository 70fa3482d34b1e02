"""``GET /metrics``: the service's counts in Prometheus's text format, for an operator's
monitoring (a dashboard of people online and matches being played, an alert when the
log stops growing).

Every number comes from the shared database (``infra.service_counts``), so any process
behind the port answers the same. The read models it counts from are caught up first, as
a list's read catches them up. Nothing here names a player or a match, so the answer is public,
like ``/readyz``.
"""

from __future__ import annotations

from litestar import Response, get
from litestar.datastructures import State

from infra.clock import now_ms
from infra.service_counts import ServiceCounts, service_counts
from server.problems import problem_responses
from server.services import services_of

# Prometheus's text exposition format, version 0.0.4 (Litestar adds the charset).
MEDIA_TYPE = "text/plain; version=0.0.4"


@get(
    "/metrics",
    operation_id="getMetrics",
    summary="Count players online, matches and open tables (Prometheus text format)",
    tags=["health"],
    media_type=MEDIA_TYPE,
    responses=problem_responses(503),
)
async def metrics(state: State) -> Response[str]:
    """Counts for monitoring, in Prometheus's text format: events in the log, accounts by
    kind, unfinished matches by the house AIs seated, open tables by kind, players with a
    socket open and spectator sockets. The same from every process (read from the shared
    database); a 503 `store_unavailable` if the database does not answer."""
    services = services_of(state)
    for read_model in ("matches", "lobby"):  # caught up, as a list's read does
        await services.projector.catch_up(read_model)
    now = now_ms()
    counts = await service_counts(services.store.engine, now - services.presence.fresh_ms, now)
    return Response(exposition(counts), media_type=MEDIA_TYPE)


def exposition(counts: ServiceCounts) -> str:
    """The counts as Prometheus's text format writes them: HELP and TYPE, then samples."""
    lines: list[str] = []

    def family(name: str, kind: str, help_text: str, samples: dict[str, int] | int) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        if isinstance(samples, int):
            lines.append(f"{name} {samples}")
            return
        for labels, value in samples.items():
            lines.append(f"{name}{{{labels}}} {value}")

    family("ginrummy_events_total", "counter", "Events appended to the log, ever.", counts.events)
    family(
        "ginrummy_players",
        "gauge",
        "Player accounts, by kind (person or bot).",
        {f'kind="{kind}"': n for kind, n in sorted(counts.players.items())},
    )
    family(
        "ginrummy_matches_unfinished",
        "gauge",
        "Matches not finished (in play, or left and never ended), by the house AIs seated.",
        {f'house_ais="{ais}"': n for ais, n in sorted(counts.matches_unfinished.items())},
    )
    family(
        "ginrummy_tables_waiting",
        "gauge",
        "Open tables waiting for a guest, by kind (public, private or challenge).",
        {f'kind="{kind}"': n for kind, n in sorted(counts.waiting.items())},
    )
    family(
        "ginrummy_players_connected",
        "gauge",
        "Players with a match socket or a player stream open.",
        counts.players_connected,
    )
    family(
        "ginrummy_spectators",
        "gauge",
        "Spectator sockets open, over every match.",
        counts.spectators,
    )
    return "\n".join(lines) + "\n"
