"""One name, bound and default per concept over HTTP and MCP, refused with the same
problem codes (issue 36, point 4). Each test asks the same thing of both.

Driven by the official ``mcp`` client against the real gateway, as tests/agents/test_mcp.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from websockets.sync.client import connect

from agents.socket import socket_url
from tests.agents.conftest import RunningGateway
from tests.agents.test_mcp import GAME, mcp_client, payload, problem_of


def _run(gateway: RunningGateway, body: Callable[[Any, str, dict[str, str]], Awaitable[None]]) -> None:
    token = gateway.mint(games=[GAME])

    async def run() -> None:
        async with mcp_client(gateway) as client:
            await body(client, token, {"Authorization": f"Bearer {token}"})

    asyncio.run(run())


def _table(gateway: RunningGateway, headers: dict[str, str], **fields: Any) -> dict[str, Any]:
    created = httpx2.post(f"{gateway.base_url}/v1/tables", headers=headers, json={
        "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}], **fields})
    assert created.status_code == 201, created.text
    table: dict[str, Any] = created.json()
    return table


def test_observe_and_act_wait_bounds_are_https_and_refused_alike(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        table = _table(gateway, headers)
        for wait in (61, -1):
            http = httpx2.get(f"{gateway.base_url}/v1/tables/{table['id']}/observation",
                              params={"wait": wait}, headers=headers)
            assert http.status_code == 422 and http.json()["code"] == "request/invalid"
            mcp = problem_of(await client.call_tool("observe", {"table_id": table["id"], "wait_s": wait, "token": token}))
            assert mcp["code"] == "request/invalid" and mcp["errors"][0]["loc"] == ["wait_s"]
        seen = payload(await client.call_tool("observe", {"table_id": table["id"], "wait_s": 60, "token": token}))
        assert seen["seat"] == 0  # 60 is allowed, as over HTTP (held at most 25 s)
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("observe", "act", "recent_events"):
            schema = tools[name].input_schema["properties"]["wait_s"]
            assert (schema.get("minimum"), schema.get("maximum"), schema.get("default")) == (0, 60, 0)

    _run(gateway, body)


def test_my_assignments_takes_wait_s_with_https_bound_and_default(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        properties = tools["my_assignments"].input_schema["properties"]
        assert "wait" not in properties
        assert (properties["wait_s"]["maximum"], properties["wait_s"]["default"]) == (3600, 0)
        http = httpx2.get(f"{gateway.base_url}/v1/agents/me/assignments", params={"wait": 3601}, headers=headers)
        assert http.status_code == 422 and http.json()["code"] == "request/invalid"
        mcp = problem_of(await client.call_tool("my_assignments", {"wait_s": 3601, "token": token}))
        assert mcp["code"] == "request/invalid"
        bare = payload(await client.call_tool("my_assignments", {"token": token}))  # answers at once
        assert bare["assignments"] == []

    _run(gateway, body)


def test_act_refuses_a_version_sent_as_a_string_like_http(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        table = _table(gateway, headers)
        seen: dict[str, Any] = {"legal_actions": []}
        for _ in range(6):  # held until seat 0 must act (a bot may open; a loaded machine is slow)
            seen = payload(await client.call_tool(
                "observe", {"table_id": table["id"], "wait_s": 10, "token": token}))
            if seen["legal_actions"]:
                break
        action = seen["legal_actions"][0]["id"]
        http = httpx2.post(f"{gateway.base_url}/v1/tables/{table['id']}/actions", headers=headers,
                           json={"version": str(seen["version"]), "action": action})
        assert http.status_code == 422 and http.json()["code"] == "request/invalid"
        mcp = problem_of(await client.call_tool("act", {
            "table_id": table["id"], "version": str(seen["version"]), "action": action, "token": token}))
        assert mcp["code"] == "request/invalid"
        payload(await client.call_tool("act", {
            "table_id": table["id"], "version": seen["version"], "action": action, "token": token}))

    _run(gateway, body)


def test_list_games_is_get_v1_games(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        http = httpx2.get(f"{gateway.base_url}/v1/games").json()
        mcp = payload(await client.call_tool("list_games", {}))
        assert mcp == http
        market = next(game for game in mcp["games"] if game["name"] == GAME)
        assert market["house_bots"] and market["variants"] and market["modes"][0]["description"]

    _run(gateway, body)


def test_a_house_bot_seat_without_a_bot_gets_the_clis_default_everywhere(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        over_http = _table(gateway, headers)
        over_mcp = payload(await client.call_tool("create_table", {
            "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}], "token": token}))
        for table in (over_http, over_mcp):
            assert table["seated"][1]["bot"] == "greedy"

    _run(gateway, body)


def test_any_argument_out_of_its_schema_is_the_problem_http_answers(gateway: RunningGateway) -> None:
    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        table = _table(gateway, headers)
        http = httpx2.get(f"{gateway.base_url}/v1/tables/{table['id']}/events", params={"after": -1}, headers=headers)
        assert http.status_code == 422 and http.json()["code"] == "request/invalid"
        mcp = problem_of(await client.call_tool("recent_events", {"table_id": table["id"], "after": -1, "token": token}))
        assert mcp["code"] == "request/invalid" and mcp["errors"][0]["loc"] == ["after"]
        unknown = problem_of(await client.call_tool("my_assignments", {"wait": 5, "token": token}))
        assert unknown["code"] == "request/invalid" and unknown["errors"] == [
            {"loc": ["wait"], "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}]
        http = httpx2.post(f"{gateway.base_url}/v1/tables", headers=headers, json={
            "game": GAME, "mode": "family", "seats": 2, "wait": 5})
        assert http.status_code == 422 and http.json()["errors"][0]["type"] == "extra_forbidden"
        http = httpx2.get(f"{gateway.base_url}/v1/tables", params={"limit": 0})
        assert http.status_code == 422 and http.json()["code"] == "request/invalid"
        mcp = problem_of(await client.call_tool("list_tables", {"limit": 0}))
        assert mcp["code"] == "request/invalid" and mcp["errors"][0]["loc"] == ["limit"]

    _run(gateway, body)


# --- every schema point, table-driven: the same bounds, the same problem codes -----------

BOUND_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "default")


def _bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's bounds and default, wherever its schema puts them (``anyOf`` of a
    nullable one included); numbers compared as floats (60 and 60.0 are one bound)."""
    found: dict[str, Any] = {}
    for part in (schema, *schema.get("anyOf", ())):
        for key in BOUND_KEYS:
            if key in part and part[key] is not None:
                value = part[key]
                found[key] = float(value) if isinstance(value, int | float) and not isinstance(
                    value, bool) else value
    return found


def _openapi_bounds(openapi: dict[str, Any], where: tuple[str, ...]) -> dict[str, Any]:
    """The bounds of a query parameter (path, method, name) or of a body field (schema, field)."""
    if len(where) == 3:
        path, method, name = where
        parameter = next(p for p in openapi["paths"][path][method]["parameters"] if p["name"] == name)
        return _bounds(parameter["schema"])
    model, field = where
    return _bounds(openapi["components"]["schemas"][model]["properties"][field])


@dataclass(frozen=True)
class _Seats:
    """What a row needs: an agent's token and headers, and a table where it must act."""

    base: str
    token: str
    headers: dict[str, str]
    table: dict[str, Any]
    version: int
    action: str


_NEW_TABLE = {"game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}


@dataclass(frozen=True)
class SchemaPoint:
    """One argument as HTTP and MCP take it, the values both must refuse, and how."""

    name: str
    tool: str
    argument: str
    """The MCP argument (the last part of its ``loc``)."""
    bad: tuple[Any, ...]
    http: Callable[[_Seats, Any], httpx2.Response]
    mcp: Callable[[_Seats, Any], dict[str, Any]]
    openapi: tuple[str, ...] | None
    """Where the OpenAPI document states its bounds (``None``: a rule of the service)."""
    code: str = "request/invalid"
    socket: Callable[[_Seats, Any], dict[str, Any]] | None = None
    """The bot socket's message carrying the same field, where it has one."""
    socket_field: str | None = None
    """The field's name in that message when it is not ``argument`` (a ``subscribe``
    carries two cursors, so its event cursor is ``events_after``)."""


def _get(path: str, name: str) -> Callable[[_Seats, Any], httpx2.Response]:
    return lambda s, v: httpx2.get(f"{s.base}{path.format(id=s.table['id'])}", params={name: v},
                                   headers=s.headers)


def _act_http(**query: Any) -> Callable[[_Seats, Any], httpx2.Response]:
    def send(s: _Seats, v: Any) -> httpx2.Response:
        body = {"version": s.version, "action": s.action}
        params = {name: v for name in query} if query else None
        if not query:
            body["version"] = v
        return httpx2.post(f"{s.base}/v1/tables/{s.table['id']}/actions", params=params,
                           json=body, headers=s.headers)
    return send


def _create_http(field: str) -> Callable[[_Seats, Any], httpx2.Response]:
    return lambda s, v: httpx2.post(f"{s.base}/v1/tables", headers=s.headers,
                                    json={**_NEW_TABLE, field: v})


def _create_mcp(field: str) -> Callable[[_Seats, Any], dict[str, Any]]:
    return lambda s, v: {**_NEW_TABLE, field: v, "token": s.token}


SCHEMA_POINTS = [
    SchemaPoint("observe wait_s", "observe", "wait_s", (-1, 61, "soon"),
                _get("/v1/tables/{id}/observation", "wait_s"),
                lambda s, v: {"table_id": s.table["id"], "wait_s": v, "token": s.token},
                ("/v1/tables/{table_id}/observation", "get", "wait_s")),
    SchemaPoint("act wait_s", "act", "wait_s", (-1, 61),
                _act_http(wait_s=True),
                lambda s, v: {"table_id": s.table["id"], "version": s.version, "action": s.action,
                              "wait_s": v, "token": s.token},
                ("/v1/tables/{table_id}/actions", "post", "wait_s")),
    SchemaPoint("act version", "act", "version", ("3", -1, 1.5, True),
                _act_http(),
                lambda s, v: {"table_id": s.table["id"], "version": v, "action": s.action,
                              "token": s.token},
                ("ActionRequest", "version"),
                socket=lambda s, v: {"type": "act", "ref": "r", "table_id": s.table["id"],
                                     "version": v, "action": s.action}),
    SchemaPoint("events after", "recent_events", "after", (-1, 2**63, "x"),
                _get("/v1/tables/{id}/events", "after"),
                lambda s, v: {"table_id": s.table["id"], "after": v, "token": s.token},
                ("/v1/tables/{table_id}/events", "get", "after"),
                socket=lambda s, v: {"type": "subscribe", "table_id": s.table["id"],
                                     "events_after": v}, socket_field="events_after"),
    SchemaPoint("events wait_s", "recent_events", "wait_s", (-1, 61),
                _get("/v1/tables/{id}/events", "wait_s"),
                lambda s, v: {"table_id": s.table["id"], "wait_s": v, "token": s.token},
                ("/v1/tables/{table_id}/events", "get", "wait_s")),
    SchemaPoint("assignments wait_s", "my_assignments", "wait_s", (-1, 3601),
                _get("/v1/agents/me/assignments", "wait_s"),
                lambda s, v: {"wait_s": v, "token": s.token},
                ("/v1/agents/me/assignments", "get", "wait_s")),
    SchemaPoint("assignments after", "my_assignments", "after", ("x", "1-2-3", "-1"),
                _get("/v1/agents/me/assignments", "after"),
                lambda s, v: {"after": v, "token": s.token},
                ("/v1/agents/me/assignments", "get", "after"),
                socket=lambda s, v: {"type": "subscribe_assignments", "after": v}),
    SchemaPoint("list limit", "list_tables", "limit", (0, 201, "ten"),
                _get("/v1/tables", "limit"), lambda s, v: {"limit": v},
                ("/v1/tables", "get", "limit")),
    SchemaPoint("list offset", "list_tables", "offset", (-1, 2**53 + 1),
                _get("/v1/tables", "offset"), lambda s, v: {"offset": v},
                ("/v1/tables", "get", "offset")),
    SchemaPoint("create seats", "create_table", "seats", (0, 13, "2"),
                _create_http("seats"), _create_mcp("seats"), ("CreateTableRequest", "seats")),
    SchemaPoint("create turn_timeout_s", "create_table", "turn_timeout_s", (0, -5, 86_401, "60"),
                _create_http("turn_timeout_s"), _create_mcp("turn_timeout_s"),
                ("CreateTableRequest", "turn_timeout_s")),
    SchemaPoint("create private", "create_table", "private", ("yes", 1),
                _create_http("private"), _create_mcp("private"), None),
    SchemaPoint("create seed", "create_table", "seed", (-1, "7"),
                _create_http("seed"), _create_mcp("seed"), None),
    SchemaPoint("house bot seat", "create_table", "seat", ([{"seat": 12}], [{"seat": -1}]),
                _create_http("house_bots"), _create_mcp("house_bots"), None),
    SchemaPoint("house bot name", "create_table", "bot", ([{"seat": 1, "bot": "nobody"}],),
                _create_http("house_bots"), _create_mcp("house_bots"), None,
                code="table/unknown_bot"),
    SchemaPoint("variant", "create_table", "variants", (["no_such_variant"],),
                _create_http("variants"), _create_mcp("variants"), None,
                code="table/invalid_config"),
]


@pytest.mark.parametrize("point", SCHEMA_POINTS, ids=lambda point: point.name)
def test_each_schema_point_has_https_bounds_and_problem_code_over_mcp_and_the_socket(
    gateway: RunningGateway, point: SchemaPoint,
) -> None:
    openapi = httpx2.get(f"{gateway.base_url}/openapi.json").json()

    async def body(client: Any, token: str, headers: dict[str, str]) -> None:
        table = _table(gateway, headers)
        seen = httpx2.get(f"{gateway.base_url}/v1/tables/{table['id']}/observation",
                          params={"wait_s": 10}, headers=headers).json()  # seat 0 to act
        seats = _Seats(gateway.base_url, token, headers, table, seen["version"],
                       seen["legal_actions"][0]["id"])
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        if point.openapi is not None:
            advertised = _bounds(tools[point.tool].input_schema["properties"][point.argument])
            assert advertised == _openapi_bounds(openapi, point.openapi), point.name
        for value in point.bad:
            http = point.http(seats, value)
            assert http.status_code in (400, 403, 404, 422), (point.name, value, http.text)
            over_http = http.json()
            over_mcp = problem_of(await client.call_tool(point.tool, point.mcp(seats, value)))
            assert (over_mcp["code"], over_mcp["status"]) == (point.code, http.status_code) == (
                over_http["code"], http.status_code), (point.name, value, over_http, over_mcp)
            if point.code == "request/invalid":  # the same field named, less HTTP's "query"/"body"
                assert over_mcp["errors"][0]["loc"] == over_http["errors"][0]["loc"][1:], (
                    point.name, value)
                assert point.argument in over_mcp["errors"][0]["loc"]
        if point.socket is not None:  # the bot socket refuses it with the same problem
            with connect(socket_url(gateway.base_url), compression=None, proxy=None,
                         additional_headers=headers) as socket:
                assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
                for value in point.bad:
                    socket.send(json.dumps(point.socket(seats, value)))
                    answer = json.loads(socket.recv(timeout=10))
                    assert answer["type"] == "problem", (point.name, value, answer)
                    assert answer["problem"]["code"] == point.code, (point.name, value, answer)
                    assert answer["problem"]["errors"][0]["loc"][-1] == (
                        point.socket_field or point.argument)
        # ... and the table is still playable at the same version: nothing was applied.
        after = httpx2.get(f"{gateway.base_url}/v1/tables/{table['id']}/observation",
                           headers=headers).json()
        assert after["version"] == seats.version

    _run(gateway, body)


def test_wait_is_the_deprecated_alias_of_wait_s_over_http(gateway: RunningGateway) -> None:
    """Bots written against ``?wait=`` keep working: the same bounds, the same meaning."""
    token = gateway.mint(games=[GAME])
    headers = {"Authorization": f"Bearer {token}"}
    table = _table(gateway, headers)
    url = f"{gateway.base_url}/v1/tables/{table['id']}/observation"
    assert httpx2.get(url, params={"wait": 1}, headers=headers).json()["seat"] == 0
    for bad in (-1, 61):
        refused = httpx2.get(url, params={"wait": bad}, headers=headers)
        assert refused.status_code == 422 and refused.json()["code"] == "request/invalid"
    both = httpx2.get(url, params={"wait": 1, "wait_s": 2}, headers=headers)
    assert both.status_code == 200  # wait_s wins
    openapi = httpx2.get(f"{gateway.base_url}/openapi.json").json()
    for path, method in (("/v1/tables/{table_id}/observation", "get"),
                         ("/v1/tables/{table_id}/actions", "post"),
                         ("/v1/tables/{table_id}/events", "get"),
                         ("/v1/agents/me/assignments", "get")):
        parameters = {p["name"]: p for p in openapi["paths"][path][method]["parameters"]}
        assert parameters["wait"].get("deprecated") is True
        assert "deprecated" not in parameters["wait_s"]
        assert _bounds(parameters["wait"]["schema"]) == {
            key: value for key, value in _bounds(parameters["wait_s"]["schema"]).items()
            if key != "default"}


def test_an_idempotency_key_is_bounded_alike_over_http_and_the_socket(gateway: RunningGateway) -> None:
    """1 to 200 characters as the ``Idempotency-Key`` header and as an ``act``'s
    ``idempotency_key`` (MCP derives its own); out of them, ``request/invalid`` both ways."""
    token = gateway.mint(games=[GAME])
    headers = {"Authorization": f"Bearer {token}"}
    table = _table(gateway, headers)
    seen = httpx2.get(f"{gateway.base_url}/v1/tables/{table['id']}/observation",
                      params={"wait_s": 10}, headers=headers).json()
    body = {"version": seen["version"], "action": seen["legal_actions"][0]["id"]}
    with connect(socket_url(gateway.base_url), compression=None, proxy=None,
                 additional_headers=headers) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
        for key in ("", "k" * 201):
            http = httpx2.post(f"{gateway.base_url}/v1/tables/{table['id']}/actions", json=body,
                               headers={**headers, "Idempotency-Key": key})
            assert http.status_code == 422 and http.json()["code"] == "request/invalid", http.text
            assert http.json()["errors"][0]["loc"] == ["header", "Idempotency-Key"]
            socket.send(json.dumps({"type": "act", "ref": "r", "table_id": table["id"], **body,
                                    "idempotency_key": key}))
            answer = json.loads(socket.recv(timeout=10))
            assert answer["problem"]["code"] == "request/invalid"
            assert answer["problem"]["errors"][0]["loc"][-1] == "idempotency_key"
    created = httpx2.post(f"{gateway.base_url}/v1/tables", json={**_NEW_TABLE},
                          headers={**headers, "Idempotency-Key": ""})
    assert created.status_code == 422 and created.json()["code"] == "request/invalid"
