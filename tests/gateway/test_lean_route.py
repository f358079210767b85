"""``LeanRoute`` answers exactly as FastAPI's own ``APIRoute`` would.

Observe and act are :class:`gateway.routes.lean.LeanRoute` routes. Each test
here sends the same requests to the app as it is and to the same app with
those two routes rebuilt as plain ``APIRoute`` objects (same endpoint, same
declaration), and compares status, content type and body, byte for byte for
successes and field by field for problems. The bad inputs are the ones
FastAPI's parameter solving has rules for: missing, empty, undecodable and
non-JSON bodies, wrong content types, unknown fields, wrong types, bounds on
query values and headers, repeated query values, and every kind of bad token.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Cookie, Depends, FastAPI, Header, Query, Request
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from gateway.routes.lean import LeanRoute, lean_route
from tests.gateway.tables_helpers import agents, seated_table

LEAN_OPERATIONS = {"observe_table", "submit_action"}


def _plain_twin(route: LeanRoute) -> APIRoute:
    """The same route as FastAPI builds it without the lean plan."""
    return APIRoute(
        route.path, route.endpoint, methods=sorted(route.methods or ()), name=route.name,
        response_model=route.response_model, status_code=route.status_code,
        operation_id=route.operation_id, responses=route.responses,
        openapi_extra=route.openapi_extra,
    )


@contextmanager
def plain_routes(app: FastAPI) -> Iterator[None]:
    """Within the block, observe and act are plain ``APIRoute`` objects."""
    routes = app.router.routes
    lean = {index: route for index, route in enumerate(routes) if isinstance(route, LeanRoute)}
    assert {route.operation_id for route in lean.values()} == LEAN_OPERATIONS
    for index, route in lean.items():
        routes[index] = _plain_twin(route)
    try:
        yield
    finally:
        for index, route in lean.items():
            routes[index] = route


def _answer(response: Any) -> tuple[int, str, Any]:
    content_type = response.headers.get("content-type", "")
    body: Any = response.content
    if "json" in content_type:
        body = json.loads(response.content)
    return response.status_code, content_type, body


def _same_answer(app: FastAPI, client: TestClient, send: Callable[[], Any]) -> tuple[int, str, Any]:
    lean = _answer(send())
    with plain_routes(app):
        plain = _answer(send())
    assert lean == plain
    return lean


@pytest.fixture()
def table(client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]]
          ) -> tuple[str, list[dict[str, str]], dict[str, Any]]:
    """A started table, its seats' headers and the observation of the seat to act."""
    seats = agents(mint_token, auth, "lean")
    table_id = seated_table(client, seats, seed=11)
    observations = [client.get(f"/v1/tables/{table_id}/observation", headers=h).json()
                    for h in seats]
    acting = next(i for i, o in enumerate(observations) if o["legal_actions"])
    if acting:
        seats.reverse()
    return table_id, seats, observations[acting]


def test_the_hot_routes_are_lean(app: FastAPI) -> None:
    lean = {route.operation_id for route in app.router.routes if isinstance(route, LeanRoute)}
    assert lean == LEAN_OPERATIONS


BAD_ACTION_BODIES: list[tuple[str, dict[str, str], bytes | None]] = [
    ("no body", {}, None),
    ("empty JSON body", {"content-type": "application/json"}, b""),
    ("malformed JSON", {"content-type": "application/json"}, b'{"version": 1,'),
    ("not UTF-8", {"content-type": "application/json"}, b"\x80\x81\xfe"),
    ("no content type", {}, b'{"version": 0, "action": "pass"}'),
    ("text content type", {"content-type": "text/plain"}, b'{"version": 0, "action": "pass"}'),
    ("+json content type", {"content-type": "application/problem+json"},
     b'{"version": 0, "action": "nope"}'),
    ("JSON list", {"content-type": "application/json"}, b"[1, 2]"),
    ("JSON string", {"content-type": "application/json"}, b'"pass"'),
    ("unknown field", {"content-type": "application/json"},
     b'{"version": 0, "action": "pass", "extra": 1}'),
    ("version as text", {"content-type": "application/json"}, b'{"version": "0", "action": "pass"}'),
    ("version as float", {"content-type": "application/json"}, b'{"version": 0.0, "action": "pass"}'),
    ("version as bool", {"content-type": "application/json"}, b'{"version": true, "action": "pass"}'),
    ("negative version", {"content-type": "application/json"}, b'{"version": -1, "action": "pass"}'),
    ("action as number", {"content-type": "application/json"}, b'{"version": 0, "action": 5}'),
    ("unknown action kind", {"content-type": "application/json"},
     b'{"version": 0, "action": {"kind": "teleport"}}'),
    ("missing action", {"content-type": "application/json"}, b'{"version": 0}'),
    ("stale version", {"content-type": "application/json"}, b'{"version": 999, "action": "pass"}'),
    ("illegal action id", {"content-type": "application/json"},
     b'{"version": 0, "action": "build:nothing"}'),
    ("idempotency key too long", {"content-type": "application/json", "Idempotency-Key": "k" * 201},
     b'{"version": 0, "action": "pass"}'),
    ("key too long and bad body", {"content-type": "application/json", "Idempotency-Key": "k" * 201},
     b'{"version": "x"}'),
]


@pytest.mark.parametrize(("case", "headers", "body"), BAD_ACTION_BODIES,
                         ids=[case for case, _, _ in BAD_ACTION_BODIES])
def test_bad_actions_get_fastapis_own_answer(
    app: FastAPI, client: TestClient, table: tuple[str, list[dict[str, str]], dict[str, Any]],
    case: str, headers: dict[str, str], body: bytes | None,
) -> None:
    table_id, seats, _ = table
    status, content_type, _ = _same_answer(app, client, lambda: client.post(
        f"/v1/tables/{table_id}/actions", headers={**seats[0], **headers}, content=body))
    assert status >= 400 and content_type == "application/problem+json", case


BAD_CALLERS: list[tuple[str, dict[str, str]]] = [
    ("no token", {}),
    ("basic scheme", {"Authorization": "Basic Zm9vOmJhcg=="}),
    ("bearer without token", {"Authorization": "Bearer"}),
    ("garbage token", {"Authorization": "Bearer not.a.jwt"}),
]


@pytest.mark.parametrize(("case", "headers"), BAD_CALLERS, ids=[case for case, _ in BAD_CALLERS])
@pytest.mark.parametrize("operation", ["observe", "act"])
def test_bad_callers_get_fastapis_own_answer(
    app: FastAPI, client: TestClient, table: tuple[str, list[dict[str, str]], dict[str, Any]],
    case: str, headers: dict[str, str], operation: str,
) -> None:
    table_id, _, _ = table

    def send() -> Any:
        if operation == "observe":
            return client.get(f"/v1/tables/{table_id}/observation", headers=headers)
        # A body that is also malformed: which error wins is part of the contract.
        return client.post(f"/v1/tables/{table_id}/actions", headers=headers,
                           content=b'{"version": "x"', )

    _same_answer(app, client, send)


OBSERVATION_QUERIES = [
    "", "wait=0", "wait=-1", "wait=61", "wait=abc", "wait=nan", "wait=inf", "wait=",
    "wait=1e400", "wait=0&wait=abc", "wait=abc&wait=0", "wait=%200%20", "other=1",
]


@pytest.mark.parametrize("query", OBSERVATION_QUERIES)
@pytest.mark.parametrize("who", ["seat", "spectator"])
def test_observations_match_fastapis_own(
    app: FastAPI, client: TestClient, table: tuple[str, list[dict[str, str]], dict[str, Any]],
    query: str, who: str,
) -> None:
    table_id, seats, _ = table
    headers = seats[0] if who == "seat" else {}
    _same_answer(app, client, lambda: client.get(
        f"/v1/tables/{table_id}/observation?{query}", headers=headers))


def test_unknown_tables_match(
    app: FastAPI, client: TestClient, table: tuple[str, list[dict[str, str]], dict[str, Any]],
) -> None:
    _, seats, _ = table
    _same_answer(app, client, lambda: client.get("/v1/tables/nope/observation", headers=seats[0]))
    _same_answer(app, client, lambda: client.post(
        "/v1/tables/nope/actions", headers=seats[0], json={"version": 0, "action": "pass"}))


def test_an_applied_action_answers_byte_for_byte_the_same(
    app: FastAPI, client: TestClient,
    mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    """Two tables dealt from one seed take the same action, one through each route."""
    answers = []
    for use_plain in (False, True):
        seats = agents(mint_token, auth, f"twin{int(use_plain)}-")
        table_id = seated_table(client, seats, seed=23)
        acting = next(h for h in seats if client.get(
            f"/v1/tables/{table_id}/observation", headers=h).json()["legal_actions"])
        observation = client.get(f"/v1/tables/{table_id}/observation", headers=acting).json()

        def act(table_id: str = table_id, acting: dict[str, str] = acting,
                observation: dict[str, Any] = observation) -> Any:
            return client.post(f"/v1/tables/{table_id}/actions", headers=acting, json={
                "version": observation["version"],
                "action": observation["legal_actions"][0]["id"]})

        if use_plain:
            with plain_routes(app):
                response = act()
        else:
            response = act()
        assert response.status_code == 200
        # The same bytes but for the table id and the turn clock (dealt at another moment).
        deadline = json.dumps(response.json()["observation"]["deadline"]).encode()
        answers.append((response.headers["content-type"], response.content.replace(
            table_id.encode(), b"<table>").replace(b'"deadline":' + deadline, b'"deadline":0')))
    assert answers[0] == answers[1]


async def _needs_a_header(x: Annotated[str, Header()]) -> str:
    return x


async def _with_cookie(session: Annotated[str | None, Cookie()] = None) -> None:
    """A cookie parameter."""


async def _with_unaliased_header(token: Annotated[str | None, Header()] = None) -> None:
    """A header without an explicit alias."""


async def _with_nested_dependency(value: Annotated[str, Depends(_needs_a_header)]) -> None:
    """A dependency that takes more than the Request."""


async def _with_mutable_default(request: Request, tags: Annotated[list[str], Query()] = []) -> None:  # noqa: B006
    """A query parameter whose default could be changed by a request."""


def _sync_endpoint(request: Request) -> None:
    """Not a coroutine: the handler awaits what the endpoint returns."""


@pytest.mark.parametrize("endpoint", [
    _with_cookie, _with_unaliased_header, _with_nested_dependency, _with_mutable_default,
    _sync_endpoint,
])
def test_a_lean_route_refuses_what_its_plan_cannot_solve_when_it_is_made(
    endpoint: Callable[..., Any],
) -> None:
    with pytest.raises(TypeError, match="LeanRoute /x does not support"):
        lean_route(APIRouter(), "/x", methods=["GET"])(endpoint)
