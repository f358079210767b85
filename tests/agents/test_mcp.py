"""The MCP server (``/mcp``, Streamable HTTP) driven by the official ``mcp`` client SDK
against the real gateway (uvicorn on loopback) and Redis: admission, tables and a whole
game through tools, with every tool result scanned for cards its reader may not see."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from agents_club_cli.embedded_redis import EmbeddedRedis
from engine.registry import get_game, package_of
from gateway.app import create_app
from gateway.services.records import TableRecord
from gateway.store.connection import Keys, connect
from gateway.store.tables import TableStore
from tests.agents.conftest import RunningGateway, sdk_settings, serve_app

_TOKEN = re.compile(r"[A-Za-z0-9.+_\-]+")
GAME = "market-fortune"


@contextlib.asynccontextmanager
async def mcp_client(gateway: RunningGateway, token: str | None = None) -> AsyncIterator[Client]:
    """An MCP client session of the gateway's ``/mcp``, sending ``token`` as the bearer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0)) as http,
        Client(streamable_http_client(f"{gateway.base_url}/mcp", http_client=http)) as client,
    ):
        yield client


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def payload(result: Any) -> Any:
    """A tool's answer: its structured content, or the JSON of its text."""
    assert not result.is_error, text_of(result)
    if result.structured_content is not None:
        content = result.structured_content
        return content["result"] if isinstance(content, dict) and set(content) == {"result"} else content
    return json.loads(text_of(result))


def problem_of(result: Any) -> dict[str, Any]:
    assert result.is_error, text_of(result)
    text = text_of(result)  # "Error executing tool <name>: " and the problem document
    found: dict[str, Any] = json.loads(text[text.index("{"):])
    return found


async def read_state(gateway: RunningGateway, table_id: str) -> tuple[Any, TableRecord]:
    client = connect(gateway.settings.redis_url or "")
    try:
        snapshot = await TableStore(client, Keys(gateway.settings.redis_namespace)).load(table_id)
    finally:
        await client.aclose()
    assert snapshot is not None and snapshot.state is not None
    record = TableRecord.model_validate_json(snapshot.record_json)
    return get_game(record.game).state_model.model_validate_json(snapshot.state), record


def test_the_tools_work_without_a_token_where_http_does(gateway: RunningGateway, oracle: Any) -> None:
    async def run() -> None:
        async with mcp_client(gateway) as anonymous:
            names = {tool.name for tool in (await anonymous.list_tools()).tools}
            assert {"read_rulebook", "ask_admission_challenge", "answer_admission_challenge",
                    "list_tables", "create_table", "join_table", "observe", "act",
                    "recent_events", "list_games"} <= names
            section = text_of(await anonymous.call_tool("read_rulebook", {"game": GAME, "section_number": "8.2"}))
            assert section.startswith("### 8.2 Falling short") and "### 8.3" not in section
            chapter = text_of(await anonymous.call_tool("read_rulebook", {"game": GAME, "section_number": "8"}))
            assert "### 8.1" in chapter and "### 8.4" in chapter and "## 9" not in chapter
            found = text_of(await anonymous.call_tool("read_rulebook", {"game": GAME, "search": "Stablecoin reshuffle"}))
            assert "Stablecoin" in found
            whole = text_of(await anonymous.call_tool("read_rulebook", {"game": "hab-und-gut"}))
            assert whole.startswith("# Hab & Gut") and "<!--" not in whole
            refused = problem_of(await anonymous.call_tool("create_table", {"game": GAME, "mode": "family", "seats": 2}))
            assert refused["code"] == "auth/missing"
            # admission through tools: typed answers, the token at the end
            name = f"mcp-{uuid.uuid4().hex[:8]}"
            challenge = payload(await anonymous.call_tool("ask_admission_challenge", {"agent_name": name, "game": GAME}))
            answers, puzzle = oracle(name)
            wrong_type = problem_of(await anonymous.call_tool("answer_admission_challenge", {
                "challenge_id": challenge["challenge_id"], "answers": answers, "puzzle": {}}))
            assert wrong_type["code"] == "request/invalid"  # and the challenge is not spent:
            passed = payload(await anonymous.call_tool("answer_admission_challenge", {
                "challenge_id": challenge["challenge_id"], "answers": answers, "puzzle": puzzle}))
            assert passed["name"] == name and passed["secret"]
        async with mcp_client(gateway, passed["access_token"]) as admitted:
            table = payload(await admitted.call_tool("create_table", {
                "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}))
            assert table["your_seat"] == 0 and table["status"] == "playing"
            assert table["observation"] is None  # no wait_s: no observation
            # With wait_s the create brings the first decision, as over HTTP.
            held = payload(await admitted.call_tool("create_table", {
                "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}],
                "wait_s": 20}))
            first = held["observation"]
            assert first["seat"] == 0 and first["legal_actions"] and 0 in first["to_act"]
            assert first == payload(await admitted.call_tool("observe", {"table_id": held["id"]}))
            too_long = problem_of(await admitted.call_tool("join_table", {
                "table_id": table["id"], "wait_s": 61}))
            assert too_long["code"] == "request/invalid"
        async with mcp_client(gateway, "not-a-token") as bad:
            refused = problem_of(await bad.call_tool("join_table", {"table_id": table["id"]}))
            assert refused["code"] == "auth/invalid"

    asyncio.run(run())


WHOLE_GAMES = [
    ("market-fortune", {"mode": "family", "seats": 2, "options": {"turn_limit_per_seat": 12}}),
    ("hab-und-gut", {"mode": "standard", "seats": 3}),
]
"""Per game, a short table MCP agents play in every seat (no house bot: the state read for
the scan must be the state every reader observes)."""


def audit_of(game: str) -> Any:
    """The game's ``audit`` module: its independent statement of what a seat may not see."""
    return importlib.import_module(f"{package_of(game)}.audit")


@pytest.mark.parametrize(("game", "table_fields"), WHOLE_GAMES, ids=[game for game, _ in WHOLE_GAMES])
def test_a_whole_game_through_mcp_names_no_card_its_reader_may_not_see(
    gateway: RunningGateway, game: str, table_fields: dict[str, Any]
) -> None:
    """Agents play a table to its end through the tools alone; every tool result
    (observations, actions, events) is scanned for hidden cards, as
    tests/gateway/test_leaks.py scans the HTTP answers."""
    seats = table_fields["seats"]
    tokens = [gateway.mint(f"mcp-p{i}-{uuid.uuid4().hex[:6]}", games=[game]) for i in range(seats)]
    audit = audit_of(game)
    hidden_from, card_locations = audit.hidden_from, audit.card_locations

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(mcp_client(gateway, token)) for token in tokens]
            first, second = clients[0], clients[1]
            # The organiser deals a fixed board (no agent may choose the seed of a table
            # other agents join); every seat then joins through the tools.
            organiser = await stack.enter_async_context(mcp_client(gateway, gateway.tokens.issue(
                agent_id="mcp-organiser", name="organiser", scopes=set(), kind="organiser").token))
            table = payload(await organiser.call_tool("create_table", {
                "game": game, "seed": 21, "join": False, **table_fields}))
            listed = payload(await second.call_tool("list_tables", {"status": "open"}))
            assert table["id"] in [t["id"] for t in listed["tables"]]
            for seat, client in enumerate(clients):
                joined = payload(await client.call_tool("join_table", {"table_id": table["id"]}))
                assert joined["your_seat"] == seat
            assert joined["status"] == "playing"
            cursors = [0] * seats
            told: list[dict[int, Any]] = [{} for _ in clients]
            actions = scanned = 0
            cards_seen: set[str] = set()
            for _turn in range(400):
                state, record = await read_state(gateway, table["id"])
                for seat, client in enumerate(clients):
                    hidden = hidden_from(state, seat)
                    observed = await client.call_tool("observe", {"table_id": table["id"]})
                    events = await client.call_tool("recent_events", {"table_id": table["id"], "after": cursors[seat]})
                    page = payload(events)
                    cursors[seat] = page["last_id"]
                    seen = payload(observed)
                    for event in page["events"]:
                        told[seat][event["id"]] = event
                    # An observation may repeat old events the seat was told (see test_leaks):
                    # each must be one its own event reads gave it.
                    for event in seen["since_your_last_move"] or []:
                        assert told[seat].get(event["id"]) == event, event
                    _head, _, rest = seen["summary"].partition("\n\n")
                    scan = json.dumps({**seen, "since_your_last_move": None, "summary": rest})
                    for text in (scan, text_of(events)):
                        leaked = set(_TOKEN.findall(text)) & hidden
                        assert not leaked, (seat, leaked)
                        cards_seen |= set(_TOKEN.findall(text)) & set(card_locations(state))
                        scanned += 1
                if record.status == "finished":
                    break
                actor = payload(await first.call_tool("observe", {"table_id": table["id"]}))["to_act"][0]
                mine = payload(await clients[actor].call_tool("observe", {"table_id": table["id"], "wait_s": 5}))
                assert mine["seat"] == actor and mine["legal_actions"]
                applied = await clients[actor].call_tool("act", {
                    "table_id": table["id"], "version": mine["version"], "action": mine["legal_actions"][-1]["id"]})
                after, _ = await read_state(gateway, table["id"])
                secret = hidden_from(state, actor) & hidden_from(after, actor)
                assert not set(_TOKEN.findall(text_of(applied))) & secret
                answer = payload(applied)
                assert answer["version"] == mine["version"] + 1
                actions += 1
            else:
                raise AssertionError("the table did not finish")
            final = payload(await first.call_tool("observe", {"table_id": table["id"]}))
            assert final["status"] == "finished" and final["outcome"] is not None
            assert actions > 10 and scanned > 40
            assert len(cards_seen) > 15  # card ids do reach the readers allowed to see them
            # a stale act is refused with the problem document, legal ids and all
            stale = problem_of(await first.call_tool("act", {"table_id": table["id"], "version": 0, "action": "pass"}))
            assert stale["code"] == "table/finished"

    asyncio.run(run())


def test_an_entrant_finds_its_tournament_tables_through_mcp(gateway: RunningGateway) -> None:
    """``my_assignments`` tells an entrant the tables a tournament opened for it (and
    nothing without a token); the agent then plays them with the table tools."""
    from agents import Client
    from tests.agents.conftest import ORGANISER_KEY
    from tests.agents.test_tournaments import _register

    (agent_id,) = _register(gateway, f"Mia{uuid.uuid4().hex[:6]}")
    token = gateway.tokens.issue(agent_id=agent_id, name="Mia", scopes={f"game:{GAME}"}).token
    with Client(gateway.base_url, token=ORGANISER_KEY) as organiser:
        tournament = organiser.create_tournament(
            "mcp", GAME, "family", 2, [agent_id, "bot:greedy"], format="duplicate", boards=1,
            options={"turn_limit_per_seat": 2}, turn_timeout_s=30, max_concurrent_tables=2)

    async def run() -> None:
        async with mcp_client(gateway) as anonymous:
            refused = problem_of(await anonymous.call_tool("my_assignments", {"wait_s": 0}))
            assert refused["code"] == "auth/missing"
        async with mcp_client(gateway, token) as client:
            tables: set[str] = set()
            after = "0"
            for _poll in range(20):
                page = payload(await client.call_tool("my_assignments", {"after": after, "wait_s": 5}))
                after = page["last_id"]
                for entry in page["assignments"]:
                    assert entry["tournament_id"] == tournament.id
                    if entry["kind"] == "table.assigned":
                        tables.add(entry["table_id"])
                if tables:  # the board's second rotation waits until this table is over
                    break
            assert len(tables) == 1
            seen = payload(await client.call_tool("observe", {"table_id": sorted(tables)[0]}))
            assert seen["seat"] in (0, 1) and seen["status"] in ("playing", "finished")

    asyncio.run(run())


def test_a_redis_outage_is_the_same_problem_through_mcp_and_names_no_address(tmp_path: Any) -> None:
    # With Redis stopped, a tool answers the 503 problem HTTP answers: server/unavailable,
    # not redis-py's own message (which names the store's host and port). (An agent's
    # token check needs Redis too: its request is answered 503 over HTTP, before MCP.)
    (tmp_path / "redis").mkdir()
    server = EmbeddedRedis(tmp_path / "redis", persistent=False).start()
    try:
        settings = sdk_settings(server.url, f"test-mcp-{uuid.uuid4().hex[:8]}", tmp_path)
        app = create_app(settings)
        with serve_app(app) as base_url:
            gateway = RunningGateway(base_url=base_url, app=app, settings=settings)

            async def run() -> None:
                async with mcp_client(gateway) as client:
                    assert payload(await client.call_tool("list_tables", {})) is not None
                    server.stop()
                    refused = await client.call_tool("list_tables", {})
                    assert problem_of(refused)["code"] == "server/unavailable"
                    assert str(server.port) not in text_of(refused)
                    assert "Error" not in text_of(refused).split(":", 1)[1]

            asyncio.run(run())
    finally:
        server.stop()
