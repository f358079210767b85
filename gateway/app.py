"""The gateway application: :func:`create_app` builds it, its lifespan connects Redis.

``agents-club serve`` runs ``gateway.app:create_app`` as a uvicorn factory in
each worker; the lifespan starts what the worker runs besides requests (the
change listener, the background loops, the MCP transport) and undoes it at shutdown.

Every error leaves as ``application/problem+json`` with a stable ``code``:
:class:`~gateway.errors.ProblemError`, unknown paths (``request/not_found``),
wrong methods (``request/method_not_allowed``), schema violations
(``request/invalid``, with the pydantic errors but never the rejected input,
which may hold a secret) and anything unexpected (``server/error``, logged
with its traceback, answered without internals).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Receive, Scope, Send

from agents.wire.socket import SOCKET_PATH
from gateway.clock import Clock, wall_clock
from gateway.config import Settings
from gateway.errors import PROBLEM_CONTENT_TYPE, ProblemError, redis_unavailable
from gateway.head_middleware import HeadAsGetMiddleware
from gateway.logging_config import configure_logging
from gateway.mcp_server import mcp_lifespan, mcp_route
from gateway.metrics import PROBLEMS, WORKERS, RequestMetricsMiddleware
from gateway.openapi_docs import PROBLEM_CATALOGUE, problem_answer
from gateway.routes import admission, auth, games, meta, rated_queue, tables, tournaments, watch
from gateway.routes.ws import socket
from gateway.security import TokenService
from gateway.services import runtime
from gateway.services.records import invalid, problem, schema_errors
from gateway.services.waiters import Waiters
from gateway.store.connection import Keys, close_client, connect, is_cluster_url
from gateway.store.outage import REDIS_UNAVAILABLE
from gateway.store.waits import stop_tasks

__all__ = ["API_VERSION", "create_app"]

API_VERSION = "2.0.0"
"""The wire contract's version, ``info.version`` of the document: its major rises with
every removal or rename (docs/api.md); the paths keep their ``/v1`` prefix."""

SHUTDOWN_GRACE_S = 5.0
"""How long shutdown waits for cancelled background tasks."""

log = logging.getLogger(__name__)

DESCRIPTION = """\
Agents Club: AI agents pass a rulebook admission, receive a signed token and
play multiplayer card games with hidden information over HTTP.

* Authenticate with `Authorization: Bearer <token>` (Ed25519 JWT; public keys at
  `/.well-known/jwks.json`).
* Every error is `application/problem+json` with a stable `code`
  (for example `table/stale_version`, `action/not_your_turn`, `auth/expired`).
* Actions are posted as `{"version": <int>, "action": <id string or object>}` with an
  `Idempotency-Key` header: a retry with the same key and body is applied once.
"""


MAX_INSTANCE_CHARS = 256
"""Longest request path a problem document repeats in ``instance``."""


async def _problem_response(request: Request, error: ProblemError) -> JSONResponse:
    PROBLEMS.labels(error.code).inc()
    path = request.url.path
    # A problem names the request it answers, but never echoes an unbounded path back.
    instance = path if len(path) <= MAX_INSTANCE_CHARS else path[:MAX_INSTANCE_CHARS] + "…"
    return JSONResponse(
        error.to_problem(instance=instance),
        status_code=error.status,
        headers=error.headers,
        media_type=PROBLEM_CONTENT_TYPE,
    )


async def _on_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        error = problem("request/not_found", f"No route at {request.url.path}; see /docs.")
    elif exc.status_code == 405:
        allowed = _allowed_methods(request)
        headers = {name: value for name, value in headers.items() if name.lower() != "allow"}
        headers["Allow"] = allowed
        error = problem("request/method_not_allowed",
                        f"{request.method} is not allowed here; allowed: {allowed}.")
    elif exc.status_code == 400:
        # FastAPI's answer to a body it cannot decode at all (not UTF-8): no schema applies yet.
        error = problem("request/unreadable",
                        "The body is not UTF-8 text; send JSON encoded as UTF-8.")
    else:
        error = ProblemError(exc.status_code, "request/invalid", "Invalid request",
                             str(exc.detail) if exc.status_code < 500 else "Request failed.")
    error.headers.update(headers)
    return await _problem_response(request, error)


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at the request's path (Starlette names only the first
    route's), each asked of the router as a whole, so routes inside included routers count."""
    methods = {
        method for method in _METHODS
        if any(route.matches({**request.scope, "method": method})[0] == Match.FULL
               for route in request.app.router.routes)
    }
    if "GET" in methods:
        methods.add("HEAD")  # HeadAsGetMiddleware answers HEAD wherever GET is served
    return ", ".join(sorted(methods))


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
"""The methods a route of ours may serve; HEAD follows GET."""


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = schema_errors(exc)
    if errors and errors[0]["type"] == "json_invalid":
        # Its loc is ("body", offset): say where the JSON broke, not a field that does not exist.
        at = errors[0]["loc"][-1] if len(errors[0]["loc"]) > 1 else "?"
        detail = f"The body is not valid JSON (at character {at})."
        return await _problem_response(request, problem("request/invalid", detail, errors=errors))
    return await _problem_response(
        request, invalid("The request does not match its schema", errors))


REDIS_OUTAGE_LOG_EVERY_S = 10.0
"""At most one log line per worker in this many seconds for requests refused by an outage."""

_outage_logged_at = [float("-inf")]


async def _on_redis_unavailable(request: Request, exc: Exception) -> JSONResponse:
    """Redis down, refusing or timing out: 503 with ``Retry-After``, not a 500. Handled by
    type (not as a 500), so the connection stays open for the client's retry."""
    now = time.monotonic()
    if now - _outage_logged_at[0] >= REDIS_OUTAGE_LOG_EVERY_S:
        _outage_logged_at[0] = now
        log.warning("Redis unavailable (%s): answering 503 (logged at most every %.0f s)",
                    type(exc).__name__, REDIS_OUTAGE_LOG_EVERY_S)
    return await _problem_response(request, redis_unavailable())


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    error = problem("server/error", "Something went wrong on our side; it was logged.")
    return await _problem_response(request, error)


def _document_request_examples(operation: dict[str, Any], components: dict[str, Any]) -> None:
    """Show a request model's ``examples`` on the request body itself, where tools look."""
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is None or "example" in body or "examples" in body:
        return
    ref = body.get("schema", {}).get("$ref", "")
    examples = components.get(ref.rsplit("/", 1)[-1], {}).get("examples") if ref else None
    if examples:
        body["examples"] = {
            f"example-{number}": {"value": example} for number, example in enumerate(examples, 1)
        }


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _whole_bounds(node: Any) -> None:
    """Writes every whole-number bound as the integer it is. FastAPI's document model
    types bounds as floats, and a fuzzer or generator reading ``9.223372036854776e+18``
    as a limit of 64-bit integers rounds it: ``seed`` values just past 2**63 would
    look schema-valid."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _BOUNDS and isinstance(value, float) and value.is_integer():
                node[key] = int(value)
            else:
                _whole_bounds(value)
    elif isinstance(node, list):
        for item in node:
            _whole_bounds(item)


def _problem_openapi(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document with every 4xx/5xx answer typed as problem+json."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    schema = FastAPI.openapi(app)
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    components = schema["components"]["schemas"]
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            # The proxy in front (deploy/nginx.conf) refuses an oversized head or body;
            # FastAPI a body that is not UTF-8 before any schema applies.
            guard_codes = ["request/headers_too_large"]
            if "requestBody" in operation:
                guard_codes += ["request/too_large", "request/unreadable"]
            for code in guard_codes:
                operation.setdefault("responses", {}).setdefault(
                    str(PROBLEM_CATALOGUE[code].status), problem_answer(code))
            for status, answer in operation.get("responses", {}).items():
                if not str(status).startswith(("4", "5")):
                    continue
                # Errors are always problem+json, whatever the route's success type.
                problem = answer.get("content", {}).get(PROBLEM_CONTENT_TYPE, {})
                answer["content"] = {PROBLEM_CONTENT_TYPE: problem}
                problem["schema"] = problem_ref
                if str(status) == "422" and "examples" not in problem:
                    # FastAPI's own 422 for a route that lists no 422 code of its own.
                    default = problem_answer("request/invalid")
                    problem.update(default["content"][PROBLEM_CONTENT_TYPE])
                    answer["description"] = default["description"]
            _document_request_examples(operation, components)
            for parameter in operation.get("parameters", []):
                # An optional parameter is absent, never null: HTTP has no null header or
                # query value, and a fuzzer or generator sending the text "null" is refused.
                variants = parameter.get("schema", {}).get("anyOf", [])
                if not parameter.get("required") and {"type": "null"} in variants:
                    kept = [each for each in variants if each != {"type": "null"}]
                    if len(kept) == 1:
                        rest = {k: v for k, v in parameter["schema"].items() if k != "anyOf"}
                        parameter["schema"] = {**kept[0], **rest}
            if "security" in operation:  # see gateway.deps.OPTIONAL_BEARER_SECURITY
                listed = operation["security"]
                operation["security"] = [
                    each for at, each in enumerate(listed) if each not in listed[:at]]
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    _whole_bounds(schema)
    app.openapi_schema = schema
    return schema


async def _stop_tasks(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel the background tasks and wait for them, never longer than the grace period
    (:func:`gateway.store.waits.stop_tasks`): one that ignores cancellation must not keep
    the worker (and with it ``agents-club serve`` and its embedded Redis) from stopping."""
    left = await stop_tasks(*tasks, grace_s=SHUTDOWN_GRACE_S)
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())
    for task in left:
        log.error("background task %s ignored cancellation for %.0f s; leaving it",
                  task.get_name(), SHUTDOWN_GRACE_S)


class Gateway(FastAPI):
    """The gateway's ASGI app: FastAPI, except that a connection to ``/v1/ws``
    (:func:`gateway.routes.ws.socket`) is served here, ahead of the middleware stack
    and the routing. None of them applies to a socket, and each would keep a frame and
    its closures for the connection's life: at thousands of idle sockets a worker,
    those are what the collector walks. A middleware that must see sockets too wraps
    the app (``Wrapper(create_app())``) instead of being added to it."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == SOCKET_PATH:
            scope["app"] = self
            await socket(WebSocket(scope, receive, send))
        else:
            await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, *, clock: Clock = wall_clock) -> FastAPI:
    """Build the gateway app for ``settings`` (default: read from the environment).

    ``clock`` is the time every service reads (:mod:`gateway.clock`); it is
    ``app.state.clock``, which a test may also replace before the app starts.

    :raises ValueError: when the settings refuse to start (default secrets in
        production, no Redis URL).
    """
    settings = settings or Settings()
    tokens = TokenService(settings)
    configure_logging(
        level=settings.log_level,
        fmt=settings.log_format,
        secrets=[tokens.organiser_key, settings.signing_key_pem or ""],
    )
    cluster = settings.redis_cluster or is_cluster_url(settings.redis_url or "")
    keys = Keys(settings.redis_namespace, cluster=cluster)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not settings.redis_url:
            raise ValueError("REDIS_URL is not set; `agents-club serve` starts an embedded Redis")
        redis = connect(
            settings.redis_url, cluster=cluster, max_connections=settings.redis_max_connections,
            pool_timeout_s=settings.redis_pool_timeout_s,
            client_name=f"agents-club:{settings.redis_namespace}:{os.getpid()}",
            socket_timeout_s=settings.redis_socket_timeout_s)
        app.state.redis = redis
        waiters = Waiters(redis, health_check_interval_s=settings.redis_socket_timeout_s)
        app.state.waiters = waiters
        tasks: list[asyncio.Task[Any]] = []
        try:
            await waiters.listener.start()
            tasks.extend(await runtime.start(app))
            async with mcp_lifespan(app):  # the MCP transport's session manager
                # What start-up made lives as long as the worker: frozen out of the
                # collector's sight, so a full collection scans only what requests and
                # sockets hold.
                gc.collect()
                gc.freeze()
                WORKERS.inc()
                try:
                    yield
                finally:
                    WORKERS.dec()
        finally:
            await _stop_tasks(tasks)
            await waiters.listener.aclose()
            app.state.redis = None
            app.state.waiters = None
            await close_client(redis)

    app = Gateway(
        title="Agents Club",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        # Operation ids are route function names: stable across refactors of paths.
        generate_unique_id_function=lambda route: route.name,
        exception_handlers={
            ProblemError: _problem_response,
            StarletteHTTPException: _on_http_exception,
            RequestValidationError: _on_validation_error,
            **dict.fromkeys(REDIS_UNAVAILABLE, _on_redis_unavailable),
            Exception: _on_unexpected,
        },
        # FastAPI's OpenTelemetry bridge asks the providers on every request; the gateway
        # keeps its own metrics (/metrics) and logs.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.clock = clock
    app.state.keys = keys
    app.state.tokens = tokens
    app.state.redis = None
    app.state.waiters = None
    app.add_middleware(RequestMetricsMiddleware)
    app.add_middleware(HeadAsGetMiddleware)
    # Tables first: a request is matched against each route in turn (a few µs each), and
    # the tables' observation and action routes serve nearly every request of a game.
    for module in (tables, meta, auth, games, rated_queue, admission, watch, tournaments):
        app.include_router(module.router)
    app.router.routes.append(mcp_route(app))  # /mcp: MCP over Streamable HTTP (docs/mcp.md)
    app.openapi = lambda: _problem_openapi(app)  # type: ignore[method-assign]
    return app
