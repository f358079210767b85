"""The gateway application: :func:`create_app` builds it, its lifespan connects Redis.

``agents-club serve`` runs ``gateway.app:create_app`` as a uvicorn factory in
each worker. The lifespan connects Redis (``app.state.redis``, a bounded pool:
``AGENTS_CLUB_REDIS_MAX_CONNECTIONS``), starts the worker's one reader for held
waits (``app.state.waiters``, :mod:`gateway.services.waiters`), starts the
table runtime (``gateway.services.runtime.start(app)``: turn-clock sweeper and
house-bot driver) when that module exists, starts the metrics flusher and the
MCP transport (``/mcp``, :mod:`gateway.mcp_server`), and undoes all of it at
shutdown.

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
import importlib
import inspect
import logging
import os
import time
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, Route

from gateway.body_limit import BodyLimitMiddleware
from gateway.clock import Clock, wall_clock
from gateway.collector import adopt_worker_policy, run_full_collections
from gateway.config import Settings, get_settings
from gateway.errors import PROBLEM_CONTENT_TYPE, ProblemError, redis_unavailable
from gateway.head_middleware import HeadAsGetMiddleware
from gateway.logging_config import configure_logging
from gateway.mcp_server import mcp_lifespan, mcp_route
from gateway.metrics import Metrics
from gateway.metrics_middleware import RequestMetricsMiddleware
from gateway.openapi_docs import PROBLEM_CATALOGUE, problem_example
from gateway.request_limits import RequestLimitsMiddleware
from gateway.security import TokenService
from gateway.services.waiters import Waiters
from gateway.store.connection import Keys, close_client, connect, is_cluster_url, run_idle_closer
from gateway.store.metrics import MetricsStore
from gateway.store.outage import REDIS_UNAVAILABLE

__all__ = ["API_VERSION", "BUSIEST_OPERATIONS", "ROUTER_MODULES", "create_app"]

API_VERSION = "2.0.0"
"""The wire contract's version, ``info.version`` of the document: its major rises with
every removal or rename (docs/api.md); the paths keep their ``/v1`` prefix."""

ROUTER_MODULES = (
    "gateway.routes.meta",
    "gateway.routes.auth",
    "gateway.routes.games",
    "gateway.routes.tables",
    "gateway.routes.admission",
    "gateway.routes.watch",
    "gateway.routes.tournaments",
)
"""Route modules (each exposes ``router``); the ones not written yet are skipped."""

RUNTIME_MODULE = "gateway.services.runtime"
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


def _optional_module(name: str) -> ModuleType | None:
    """Import ``name``; None when that module itself does not exist (yet)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name != name:
            raise  # the module exists but one of its imports is broken: say so
        return None


MAX_INSTANCE_CHARS = 256
"""Longest request path a problem document repeats in ``instance``."""


def _problem_response(
    request: Request, error: ProblemError, headers: dict[str, str] | None = None
) -> JSONResponse:
    metrics: Metrics | None = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.inc("agents_club_problems_total", code=error.code)
    path = request.url.path
    # A problem names the request it answers, but never echoes an unbounded path back.
    instance = path if len(path) <= MAX_INSTANCE_CHARS else path[:MAX_INSTANCE_CHARS] + "…"
    return JSONResponse(
        error.to_problem(instance=instance),
        status_code=error.status,
        headers={**error.headers, **(headers or {})},
        media_type=PROBLEM_CONTENT_TYPE,
    )


async def _on_problem(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProblemError)
    return _problem_response(request, exc)


async def _on_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 404:
        error = ProblemError(404, "request/not_found", "Not found",
                             f"No route at {request.url.path}; see /docs.")
    elif exc.status_code == 405:
        allowed = _allowed_methods(request)
        headers = {name: value for name, value in headers.items() if name.lower() != "allow"}
        headers["Allow"] = allowed
        error = ProblemError(405, "request/method_not_allowed", "Method not allowed",
                             f"{request.method} is not allowed here; allowed: {allowed}.")
    elif exc.status_code == 400:
        # FastAPI's answer to a body it cannot decode at all (not UTF-8): no schema applies yet.
        error = ProblemError(400, "request/unreadable", "Unreadable body",
                             "The body is not UTF-8 text; send JSON encoded as UTF-8.")
    else:
        error = ProblemError(exc.status_code, "request/invalid", "Invalid request",
                             str(exc.detail) if exc.status_code < 500 else "Request failed.")
    return _problem_response(request, error, headers)


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at the request's path (Starlette names only the first
    route's: ``DELETE /v1/tables`` was told ``POST`` though ``GET`` is served there too)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route | APIRoute) and route.methods and route.matches(
                request.scope)[0] != Match.NONE:  # PARTIAL: the path fits, the method does not
            methods |= route.methods
    if "GET" in methods:
        methods.add("HEAD")  # HeadAsGetMiddleware answers HEAD wherever GET is served
    return ", ".join(sorted(methods))


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "loc": [str(part) for part in error.get("loc", ())],
            "msg": str(error.get("msg", "")),
            "type": str(error.get("type", "")),
        }
        for error in exc.errors()
    ]
    if errors and errors[0]["type"] == "json_invalid":
        # Its loc is ("body", offset): say where the JSON broke, not a field that does not exist.
        at = errors[0]["loc"][-1] if len(errors[0]["loc"]) > 1 else "?"
        detail = f"The body is not valid JSON (at character {at})."
    else:
        where = ", ".join(".".join(entry["loc"]) for entry in errors[:5])
        detail = f"The request does not match its schema ({where})."
    error = ProblemError(422, "request/invalid", "Invalid request", detail, errors=errors)
    return _problem_response(request, error)


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
    return _problem_response(request, redis_unavailable())


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.error(
        "unhandled error on %s %s",
        request.method,
        request.url.path,
        exc_info=(type(exc), exc, exc.__traceback__),
    )
    error = ProblemError(500, "server/error", "Internal error",
                         "Something went wrong on our side; it was logged.")
    return _problem_response(request, error)


def _install_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ProblemError, _on_problem)
    app.add_exception_handler(StarletteHTTPException, _on_http_exception)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    for unavailable in REDIS_UNAVAILABLE:
        app.add_exception_handler(unavailable, _on_redis_unavailable)
    app.add_exception_handler(Exception, _on_unexpected)


def _operation_id(route: APIRoute) -> str:
    """Operation ids are route function names: stable across refactors of paths."""
    return route.name


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


def _problem_openapi(app: FastAPI, documented_paths: list[str]) -> dict[str, Any]:
    """The OpenAPI document, paths in the order the route modules declare them, with
    every 4xx/5xx answer typed as problem+json."""
    if app.openapi_schema is not None:
        return app.openapi_schema
    schema = FastAPI.openapi(app)
    place = {path: index for index, path in enumerate(documented_paths)}
    schema["paths"] = dict(sorted(
        schema.get("paths", {}).items(), key=lambda item: place.get(item[0], len(place))))
    problem_ref = {"$ref": "#/components/schemas/Problem"}
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    if "Problem" not in components:
        from gateway.openapi_docs import Problem

        components["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            guard_codes = ["request/headers_too_large"]  # RequestLimitsMiddleware: any request
            if "requestBody" in operation:
                # BodyLimitMiddleware may refuse any body, and FastAPI one that is not
                # UTF-8 before any schema applies.
                guard_codes += ["request/too_large", "request/timeout", "request/unreadable"]
            for code in guard_codes:
                operation.setdefault("responses", {}).setdefault(
                    str(PROBLEM_CATALOGUE[code].status), {
                        "description": f"`{code}`",
                        "content": {PROBLEM_CONTENT_TYPE: {"examples": {code: {
                            "summary": PROBLEM_CATALOGUE[code].title,
                            "value": problem_example(code)}}}},
                    })
            for status, answer in operation.get("responses", {}).items():
                if not str(status).startswith(("4", "5")):
                    continue
                # Errors are always problem+json, whatever the route's success type.
                problem = answer.get("content", {}).get(PROBLEM_CONTENT_TYPE, {})
                answer["content"] = {PROBLEM_CONTENT_TYPE: problem}
                problem["schema"] = problem_ref
                if str(status) == "422" and "examples" not in problem:
                    problem["examples"] = {
                        "request/invalid": {
                            "summary": PROBLEM_CATALOGUE["request/invalid"].title,
                            "value": problem_example("request/invalid"),
                        }
                    }
                    answer["description"] = "`request/invalid`"
        for operation in path_item.values():
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
                unique = []
                for requirement in operation["security"]:
                    if requirement not in unique:
                        unique.append(requirement)
                operation["security"] = unique
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    app.openapi_schema = schema
    return schema


async def _stop_tasks(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel the background tasks and wait for them, but never longer than the grace period.

    Cancellation is repeated while waiting: a cancellation can be lost when it
    races with an ``asyncio.wait_for`` timeout (Python 3.11) or a client
    library's own timeout, and the task would then run on and keep the worker
    (and with it ``agents-club serve`` and its embedded Redis) from stopping.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SHUTDOWN_GRACE_S
    pending: set[asyncio.Task[Any]] = set(tasks)
    finished: set[asyncio.Task[Any]] = set()
    while pending:
        for task in pending:
            task.cancel()
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        done, pending = await asyncio.wait(pending, timeout=min(0.1, remaining))
        finished |= done
    for task in finished:
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())
    for task in pending:
        log.error("background task %s ignored cancellation for %.0f s; leaving it",
                  task.get_name(), SHUTDOWN_GRACE_S)


def _add_routes(app: FastAPI, router: APIRouter) -> None:
    """Put ``router``'s routes straight on the app's router, as one flat list.

    ``include_router`` keeps each module's router as a nested branch that
    FastAPI matches (and walks its context for) on every request; a flat list
    matches the same paths with about a tenth of the calls (``bench/gateway.py``).
    The routes already carry their module's prefix, tags and responses; the
    operation ids that ``include_router`` would derive are set here instead.
    """
    for route in router.routes:
        if isinstance(route, APIRoute) and route.operation_id is None:
            route.operation_id = route.unique_id = _operation_id(route)
        app.router.routes.append(route)


_NATIVE_TELEMETRY_OFF: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters
    else {}
)
"""FastAPI's own OpenTelemetry bridge, switched off where FastAPI has one.

The gateway keeps its own metrics (``/metrics``) and logs; the bridge asked the
OpenTelemetry providers whether they were configured on every request, about 3%
of a worker's time under load (``bench/gateway.py`` with py-spy)."""


def create_app(settings: Settings | None = None, *, clock: Clock = wall_clock) -> FastAPI:
    """Build the gateway app for ``settings`` (default: read from the environment).

    ``clock`` is the time every service reads (:mod:`gateway.clock`); it is
    ``app.state.clock``, which a test may also replace before the app starts.

    :raises ValueError: when the settings refuse to start (default secrets in
        production, no Redis URL).
    """
    settings = settings or get_settings()
    tokens = TokenService(settings)
    configure_logging(
        level=settings.log_level,
        fmt=settings.log_format,
        secrets=[tokens.organiser_key, settings.signing_key_pem or ""],
    )
    metrics = Metrics()
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
        waiters = Waiters(redis, sentinel=keys.global_("waits"),
                          ping_interval_s=settings.redis_socket_timeout_s)
        app.state.waiters = waiters
        tasks: list[asyncio.Task[Any]] = []
        try:
            await waiters.start()
            tasks.append(asyncio.create_task(
                run_idle_closer(redis, settings.redis_idle_timeout_s), name="redis-idle-closer"))
            runtime = _optional_module(RUNTIME_MODULE)
            if runtime is not None:
                tasks.extend(await runtime.start(app))
            tasks.append(
                asyncio.create_task(
                    metrics.run_flusher(MetricsStore(redis, keys), settings.metrics_flush_interval_s),
                    name="metrics-flusher",
                )
            )
            tasks.append(asyncio.create_task(
                run_full_collections(metrics, settings.gc_full_interval_s,
                                     growth_mb=settings.gc_full_rss_growth_mb),
                name="full-collections"))
            # The MCP transport's session manager runs with the app (started before the
            # policy freezes what exists, so its tool schemas are frozen with the routes,
            # schemas and card tables).
            async with mcp_lifespan(app):
                adopt_worker_policy()  # short collector pauses (gateway.collector)
                yield
        finally:
            await _stop_tasks(tasks)
            await waiters.aclose()
            app.state.redis = None
            app.state.waiters = None
            await close_client(redis)

    app = FastAPI(
        title="Agents Club",
        version=API_VERSION,
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
        **_NATIVE_TELEMETRY_OFF,
    )
    app.state.settings = settings
    app.state.clock = clock
    app.state.keys = keys
    app.state.tokens = tokens
    app.state.metrics = metrics
    app.state.redis = None
    app.state.waiters = None
    _install_problem_handlers(app)
    # Inside the metrics middleware, so a refused body is counted and logged like any answer.
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_request_body_bytes,
                       answer=_problem_response)
    # Outside the body limit, whose reading of a chunked body it bounds in time.
    app.add_middleware(RequestLimitsMiddleware, max_header_count=settings.max_header_count,
                       max_header_bytes=settings.max_header_bytes,
                       body_timeout_s=settings.body_timeout_s, answer=_problem_response)
    app.add_middleware(RequestMetricsMiddleware, metrics=metrics)
    app.add_middleware(HeadAsGetMiddleware)  # added last: outermost
    for module_name in ROUTER_MODULES:
        module = _optional_module(module_name)
        if module is not None:
            _add_routes(app, module.router)
    documented_paths = list(dict.fromkeys(_route_paths(app.router.routes)))
    app.router.routes.append(mcp_route(app))  # /mcp: MCP over Streamable HTTP (docs/mcp.md)
    _match_busiest_first(app)
    app.openapi = lambda: _problem_openapi(app, documented_paths)  # type: ignore[method-assign]
    return app


BUSIEST_OPERATIONS = ("observe_table", "submit_action", "poll_events")
"""The operations a playing bot calls all the time, matched before every other route."""


def _route_paths(routes: list[BaseRoute]) -> list[str]:
    return [route.path for route in routes if isinstance(route, APIRoute | Route)]


def _match_busiest_first(app: FastAPI) -> None:
    """Move the busiest routes to the front of the route list.

    Starlette tries routes in order, one regular expression each, and the
    observation and actions routes came about twenty-fifth: a few percent of
    a worker's CPU under ``bench/gateway.py``. Their paths overlap no other
    route's, so the order changes nothing but the time to find them; the
    OpenAPI document keeps the declared order (:func:`_problem_openapi`).
    """
    routes = app.router.routes
    busiest = [route for route in routes
               if isinstance(route, APIRoute) and route.operation_id in BUSIEST_OPERATIONS]
    routes[:] = busiest + [route for route in routes if route not in busiest]
