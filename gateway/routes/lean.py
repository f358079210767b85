"""``LeanRoute``: an ``APIRoute`` whose arguments are solved by a plan made once.

FastAPI solves a route's parameters on every request with code that must
handle every kind of parameter it supports: under ``bench/gateway.py`` that
generic solving (``solve_dependencies``, ``request_params_to_args``, the
response model's second validation) cost about a tenth of a worker's CPU on
observe and act, the two requests a bot sends every turn.

A ``LeanRoute`` is declared like any other route (its signature still makes
the OpenAPI document, and FastAPI's exception handlers still answer its
errors), but at construction it turns FastAPI's own analysis of the endpoint
(``self.dependant``) into a flat list of steps, and each request just runs
them. It validates with the very pydantic fields FastAPI built for the
route, in FastAPI's order (the body's JSON is read first, then the
dependencies run, then path, query, header and body values are checked, all
errors together), so an answer, good or bad, is the same as FastAPI's
(``tests/gateway/test_lean_route.py`` sends both the same requests).

Only what the hot routes use is supported, and anything else is refused when
the route is made, not met at run time: the ``Request``, path, query and
header parameters (headers with an explicit alias), one JSON body model, and
dependencies that take only the ``Request``.
"""

from __future__ import annotations

import email.message
import inspect
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic_core import PydanticUndefined
from starlette.exceptions import HTTPException
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY

__all__ = ["LeanRoute", "lean_route"]

_Values = dict[str, Any]
_Errors = list[dict[str, Any]]


def _missing(loc: tuple[str, ...]) -> dict[str, Any]:
    """The error FastAPI reports for a required value that was not sent."""
    return {"type": "missing", "loc": loc, "msg": "Field required", "input": None}


def _check(field: Any, value: Any, loc: tuple[str, ...], values: _Values, errors: _Errors) -> None:
    """Validate one received value (``PydanticUndefined``: not sent) as FastAPI does."""
    if value is PydanticUndefined:
        if field.field_info.is_required():
            errors.append(_missing(loc))
            return
        if not field.field_info.validate_default:
            values[field.name] = field.default  # immutable defaults only (see _plan)
            return
        value = field.default
    checked, field_errors = field.validate(value, values, loc=loc)
    if field_errors:
        errors.extend(field_errors)
    else:
        values[field.name] = checked


async def _json_body(request: Request) -> Any:
    """The request body as FastAPI reads it for a JSON body parameter: parsed when the
    content type is JSON, the raw bytes otherwise (which then fail validation), and
    ``PydanticUndefined`` when empty. Malformed JSON is FastAPI's ``json_invalid``
    error; a body that cannot be read or decoded at all is its 400."""
    try:
        raw = await request.body()
        if not raw:
            return PydanticUndefined
        content_type = request.headers.get("content-type")
        if not content_type:
            return raw  # FastAPI's strict content type: no type, no JSON
        if content_type == "application/json":  # what clients send; parsed as below, sooner
            return json.loads(raw)
        message = email.message.Message()
        message["content-type"] = content_type
        subtype = message.get_content_subtype()
        if message.get_content_maintype() != "application" or not (
            subtype == "json" or subtype.endswith("+json")
        ):
            return raw
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise RequestValidationError([{
            "type": "json_invalid", "loc": ("body", error.pos), "msg": "JSON decode error",
            "input": {}, "ctx": {"error": error.msg},
        }]) from error
    except HTTPException:
        raise
    except Exception as error:
        if MAX_BODY_SIZE_SCOPE_KEY in request.scope:
            raise  # a body-size limit's own signal: FastAPI lets it through too
        raise HTTPException(status_code=400, detail="There was an error parsing the body") from error


class _Plan:
    """The steps that turn a request into an endpoint's keyword arguments."""

    def __init__(self, dependant: Dependant, path: str) -> None:
        unsupported = [
            name for name, present in (
                ("cookie parameters", dependant.cookie_params),
                ("a Response parameter", dependant.response_param_name),
                ("BackgroundTasks", dependant.background_tasks_param_name),
                ("SecurityScopes", dependant.security_scopes_param_name),
                ("a WebSocket", dependant.websocket_param_name),
                ("an HTTPConnection", dependant.http_connection_param_name),
                ("more than one body parameter", len(dependant.body_params) > 1),
            ) if present
        ]
        for field in [*dependant.query_params, *dependant.header_params]:
            default = field.default
            if not isinstance(default, int | float | str | bool | None | type(PydanticUndefined)):
                unsupported.append(f"the mutable default of {field.name}")
        for header in dependant.header_params:
            if header.alias == header.name:
                unsupported.append(f"header {header.name} without an explicit alias")
        self.calls: list[tuple[str, Callable[[Request], Awaitable[Any]]]] = []
        for sub in dependant.dependencies:
            flat = not (sub.path_params or sub.query_params or sub.header_params
                        or sub.cookie_params or sub.body_params or sub.dependencies)
            if not flat or sub.request_param_name is None or sub.name is None or sub.call is None:
                unsupported.append(f"dependency {sub.name} (it may take only the Request)")
                continue
            self.calls.append((sub.name, sub.call))
        if unsupported:
            raise TypeError(f"LeanRoute {path} does not support {', '.join(unsupported)}")
        self.request_name = dependant.request_param_name
        self.path_fields = [(field, field.alias) for field in dependant.path_params]
        self.query_fields = [(field, field.alias) for field in dependant.query_params]
        self.header_fields = [(field, field.alias) for field in dependant.header_params]
        self.body_field = dependant.body_params[0] if dependant.body_params else None

    async def arguments(self, request: Request) -> _Values:
        """The endpoint's arguments, or a ``RequestValidationError`` with every error."""
        # FastAPI's order: the body is read (and its JSON parsed) before the
        # dependencies run, and values are checked only after they have.
        body = await _json_body(request) if self.body_field is not None else None
        values: _Values = {}
        for name, call in self.calls:
            values[name] = await call(request)
        if self.request_name is not None:
            values[self.request_name] = request
        errors: _Errors = []
        if self.path_fields:
            path_params = request.path_params
            for field, alias in self.path_fields:
                _check(field, path_params.get(alias, PydanticUndefined), ("path", alias), values, errors)
        if self.query_fields:
            query = request.query_params
            for field, alias in self.query_fields:
                _check(field, query.get(alias, PydanticUndefined), ("query", alias), values, errors)
        if self.header_fields:
            headers = request.headers
            for field, alias in self.header_fields:
                _check(field, headers.get(alias, PydanticUndefined), ("header", alias), values, errors)
        if self.body_field is not None:
            _check(self.body_field, body, ("body",), values, errors)
        if errors:
            raise RequestValidationError(errors)
        return values


class LeanRoute(APIRoute):
    """An ``APIRoute`` for the requests bots send every turn: same contract, leaner solving.

    Use it with ``router.add_api_route(..., route_class_override=LeanRoute)``.
    The endpoint must be async. A response model's answer is sent as the
    model's JSON (the endpoint returns an instance of it, so FastAPI's second
    validation of it would change nothing); a ``Response`` is sent as is.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The request handler: run the plan, call the endpoint, send its answer."""
        plan = _Plan(self.dependant, self.path)
        endpoint = self.endpoint
        if not inspect.iscoroutinefunction(endpoint):
            raise TypeError(f"LeanRoute {self.path} does not support a sync endpoint")
        status_code = self.status_code or 200

        async def handle(request: Request) -> Response:
            answer = await endpoint(**await plan.arguments(request))
            if isinstance(answer, Response):
                return answer
            if not isinstance(answer, BaseModel):
                raise TypeError(f"{self.path} must answer a model or a Response")
            return Response(
                answer.model_dump_json(by_alias=True), status_code=status_code,
                media_type="application/json",
            )

        return handle


def lean_route(
    router: APIRouter, path: str, *, methods: list[str], **options: Any
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Like ``router.get``/``router.post``, but the route is a :class:`LeanRoute`."""

    def register(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        router.add_api_route(
            path, endpoint, methods=methods, route_class_override=LeanRoute, **options
        )
        return endpoint

    return register
