"""What the gateway counts, how ``/metrics`` shows it, and the middleware that counts requests.

The metrics are ``prometheus_client`` objects of this module. With several
workers a scrape of ``/metrics`` reaches one of them at random, so each worker
must answer with the totals of all: ``agents-club serve`` points
``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory before it starts them, each
worker's counters are files there, and :func:`exposition` adds them up
(``prometheus_client``'s multiprocess mode). The supervisor marks a dead
worker's files (:func:`agents_club_cli.workers.run_workers`), so the workers
gauge counts the living ones while the dead one's requests stay counted.
Without that variable (the app in a test) the counts are this process's.
"""

from __future__ import annotations

import logging
import os
import time

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "LATENCY_BUCKETS_S",
    "MULTIPROCESS_DIR_VARIABLE",
    "PROBLEMS",
    "REQUESTS",
    "REQUEST_ID_HEADER",
    "REQUEST_SECONDS",
    "WORKERS",
    "RequestMetricsMiddleware",
    "exposition",
]

MULTIPROCESS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""The directory of the workers' metric files (``prometheus_client`` reads it at import)."""

LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter("agents_club_http_requests", "HTTP requests answered, by route and status.",
                   ("method", "route", "status"))
REQUEST_SECONDS = Histogram(
    "agents_club_http_request_duration_seconds",
    "Time to answer an HTTP request (streams: time to the first byte), by route.",
    ("route",), buckets=LATENCY_BUCKETS_S)
PROBLEMS = Counter("agents_club_problems", "Problem+json answers, by error code.", ("code",))
WORKERS = Gauge("agents_club_workers", "Gateway workers serving.", multiprocess_mode="livesum")

REQUEST_ID_HEADER = "x-request-id"

access_log = logging.getLogger("gateway.access")


def exposition() -> bytes:
    """Every metric in the text format: all workers' totals in multiprocess mode."""
    if MULTIPROCESS_DIR_VARIABLE not in os.environ:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # unannotated upstream
    return generate_latest(registry)


class RequestMetricsMiddleware:
    """Counts and times every request, writes one access-log line, tags a request id.

    A plain ASGI middleware rather than ``BaseHTTPMiddleware``: it does not
    buffer or wrap streaming bodies, so SSE and long-poll responses pass
    through untouched. The route label is the matched route's *template*
    (``/v1/tables/{table_id}``), never the raw path, so table ids do not
    explode the number of series; unmatched paths count as ``unmatched``. The
    log line has the method, the route, the path (never the query string,
    which may hold a token) and the status; headers are never logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = os.urandom(8).hex()
        status = 500
        first_byte: float | None = None

        async def send_tagged(message: Message) -> None:
            nonlocal status, first_byte
            if message["type"] == "http.response.start":
                status = int(message["status"])
                first_byte = time.perf_counter() - started
                headers = [*message.get("headers", []),
                           (REQUEST_ID_HEADER.encode(), request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_tagged)
        finally:
            route = _template(scope)
            elapsed = first_byte if first_byte is not None else time.perf_counter() - started
            REQUESTS.labels(scope["method"], route, str(status)).inc()
            REQUEST_SECONDS.labels(route).observe(elapsed)
            if access_log.isEnabledFor(logging.INFO):
                context = {
                    "ctx_request_id": request_id,
                    "ctx_route": route,
                    "ctx_status": status,
                    "ctx_ms": round((time.perf_counter() - started) * 1000, 2),
                }
                # gateway.deps leaves the verified caller in the request state.
                principal = scope.get("state", {}).get("principal")
                if principal is not None:
                    context["ctx_agent_id"] = principal.agent_id
                access_log.info("%s %s %s", scope["method"], scope.get("path", ""), status,
                                extra=context)


def _template(scope: Scope) -> str:
    """The matched route's path template, or ``unmatched``.

    FastAPI's own routes put themselves in the scope; Starlette's plain routes
    (``/docs``, ``/redoc``, ``/openapi.json``) leave only their endpoint, so
    those are found by it.
    """
    route = scope.get("route")
    if route is not None:
        return str(getattr(route, "path", None) or "unmatched")
    endpoint = scope.get("endpoint")
    if endpoint is not None:
        for candidate in getattr(scope.get("app"), "routes", ()):
            if getattr(candidate, "endpoint", None) is endpoint:
                return str(getattr(candidate, "path", "unmatched"))
    return "unmatched"
