"""One bot socket per agent (issue 34): its tables and its tournament assignments share it.

Against the real gateway served by uvicorn; an ASGI wrapper counts the sockets
opened and the HTTP requests sent, and an :class:`AgentSocket` subclass reorders
or drops what the server pushes, to force the orders a network may bring.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel

from agents import AgentSocket, Client, GameResult, HouseBot, Runner
from agents.wire.socket import AcceptedMessage, EventsMessage, ObservationMessage
from agents_club_cli.main import main
from gateway.app import create_app
from gateway.store.auth import AuthStore
from gateway.store.connection import Keys, connect
from tests.agents.conftest import ORGANISER_KEY, sdk_settings, serve_app

if TYPE_CHECKING:
    from fastapi import FastAPI
    from starlette.types import ASGIApp, Receive, Scope, Send

GAME = "market-fortune"


class Census:
    """Counts the sockets opened and the HTTP requests sent (method and path)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.sockets = 0
        self.requests: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            self.sockets += 1
        elif scope["type"] == "http":
            self.requests.append(f"{scope['method']} {scope['path']}")
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def served(redis_url: str, gateway_namespace: str,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FastAPI, Census, str]]:
    settings = sdk_settings(redis_url, gateway_namespace + "-one-socket",
                            tmp_path_factory.mktemp("one-socket"))
    app = create_app(settings)
    census = Census(app)  # wraps the app: the socket is served ahead of its middleware
    with serve_app(census) as base_url:
        yield app, census, base_url


def _agent(app: FastAPI, name: str) -> tuple[str, str]:
    """A registered agent (tournaments enter agents by id) and a token of it."""
    settings = app.state.settings

    async def register() -> str:
        client = connect(settings.redis_url or "")
        try:
            store = AuthStore(client, Keys(settings.redis_namespace))
            return (await store.create_agent(name=name, scopes=[f"game:{GAME}"]))[0].agent_id
        finally:
            await client.aclose()

    agent_id = asyncio.run(register())
    return agent_id, app.state.tokens.issue(agent_id=agent_id, name=name, scopes={f"game:{GAME}"}).token


def test_a_tournament_is_played_on_one_socket_assignments_and_tables_alike(
    served: tuple[FastAPI, Census, str], capsys: pytest.CaptureFixture[str],
) -> None:
    app, census, base_url = served
    agent_id, token = _agent(app, f"Solo{str(time.monotonic_ns())[-6:]}")
    with Client(base_url, token=ORGANISER_KEY) as organiser:
        tournament = organiser.create_tournament(
            "one socket", GAME, "family", 2, [agent_id, "bot:greedy"], boards=2,
            options={"turn_limit_per_seat": 4}, turn_timeout_s=30, max_concurrent_tables=4)
    sockets_before, requests_before = census.sockets, len(census.requests)
    assert main(["play", "--server", base_url, "--token", token, "--tournament", tournament.id,
                 "--quiet"]) == 0
    played = capsys.readouterr().out
    assert "4 tables played" in played
    assert census.sockets - sockets_before == 1  # one connection for four tables
    sent = census.requests[requests_before:]
    # Nothing of the game went over HTTP: no observation, action or assignments poll.
    assert not [request for request in sent
                if any(part in request for part in ("/observation", "/actions", "/assignments"))]


class _Steered(AgentSocket):
    """An agent socket whose pushes a test reorders or drops before the runner sees them."""

    def steer(self, message: BaseModel) -> list[BaseModel]:
        return [message]

    def _route(self, message: BaseModel) -> None:
        for steered in self.steer(message):
            super()._route(steered)


class EventsBeforeTheirAnswer(_Steered):
    """Holds each action's answer until events come after it: a socket's push of the
    action's events then always precedes its ``accepted``, as it may over a network."""

    held: AcceptedMessage | None = None
    reordered = 0

    def steer(self, message: BaseModel) -> list[BaseModel]:
        if isinstance(message, AcceptedMessage):
            self.held = message
            return []
        held, self.held = self.held, None
        if isinstance(message, EventsMessage):
            self.reordered += held is not None
            return [message] if held is None else [message, held]
        return [message] if held is None else [held, message]


@pytest.mark.parametrize("steered", [False, True], ids=["as-sent", "events-first"])
def test_a_turn_announced_with_its_first_action_is_printed_before_that_move_in_either_order(
    served: tuple[FastAPI, Census, str], steered: bool,
) -> None:
    """Hab & Gut announces "Round 1, turn 1" in the events of the turn's first action:
    printed above the move, whether the socket pushed those events before the action's
    answer or after it."""
    app, _census, base_url = served
    lines: list[str] = []
    token = app.state.tokens.issue(agent_id=f"hg-{steered}", name="hg", scopes={"game:hab-und-gut"}).token
    with Client(base_url, token=token) as client:
        table = client.create_table("hab-und-gut", "standard", 3, seed=1,
                                    house_bots=[{"seat": s, "bot": "greedy"} for s in (1, 2)])
        socket = EventsBeforeTheirAnswer(client) if steered else AgentSocket(client)
        with socket:
            socket.start()
            result = Runner(client, HouseBot("greedy"), printer=lines.append,
                            socket=socket).play(table.id)
    assert result.outcome is not None
    if isinstance(socket, EventsBeforeTheirAnswer):
        assert socket.reordered > 0  # the order the runner must mend came
    first_move = next(at for at, line in enumerate(lines) if line.startswith("> seat 0 plays "))
    assert "Round 1, turn 1: seat 0 is the first player." in lines[first_move - 1]
    for at, line in enumerate(lines):
        if "is the first player." in line:  # never between a move and what the move caused
            assert not lines[at - 1].startswith("> ")
    moves = [int(line.split("]")[0].strip(" [")) for line in lines if line.startswith("  [")]
    assert moves == sorted(set(moves)) and moves[0] == 1  # every event once, in order, none lost
    assert lines[-1].endswith(f"after {result.actions} actions — {result.outcome.text}")


class Recording(_Steered):
    """Keeps every message the server pushed, in order."""

    def __init__(self, client: Client) -> None:
        super().__init__(client)
        self.seen: list[BaseModel] = []

    def steer(self, message: BaseModel) -> list[BaseModel]:
        self.seen.append(message)
        return [message]


def test_a_second_decision_in_a_row_comes_with_its_actions_answer(
    served: tuple[FastAPI, Census, str],
) -> None:
    """Market Fortune's Build is followed by the same seat's discard. No turn passes, so
    nothing but the action itself can tell the seat: the server pushes that decision right
    after the action's ``accepted`` (an older one, at a 30 s recheck; the runner then
    decides from the answer's observation), and the runner makes it; no decision of the
    seat is left to the clock."""
    app, _census, base_url = served
    token = app.state.tokens.issue(agent_id="twice", name="twice", scopes={f"game:{GAME}"}).token
    with Client(base_url, token=token) as client:
        table = client.create_table(GAME, "family", 2, seed=1, turn_timeout_s=60,
                                    options={"turn_limit_per_seat": 6},
                                    house_bots=[{"seat": 1, "bot": "greedy"}])
        socket = Recording(client)
        with socket:
            socket.start()
            result = Runner(client, HouseBot("greedy"), printer=None, socket=socket).play(table.id)
        log = client.replay(table.id).log
    assert result.outcome is not None
    mine = [entry for entry in log if entry.seat == 0]
    assert [entry.by for entry in mine] == ["agent"] * result.actions  # none left to the clock
    in_a_row = sum(1 for before, after in itertools.pairwise(log)
                   if before.seat == after.seat == 0)
    assert in_a_row > 0  # the game had such decisions
    answered_then_pushed = 0
    for at, message in enumerate(socket.seen):
        if isinstance(message, AcceptedMessage):
            following = next((m for m in socket.seen[at + 1:]
                              if isinstance(m, ObservationMessage | AcceptedMessage)), None)
            if isinstance(following, ObservationMessage) and (
                    following.observation.version == message.result.version):
                answered_then_pushed += 1
    assert answered_then_pushed >= in_a_row


def test_tables_played_at_once_share_the_agents_socket(
    served: tuple[FastAPI, Census, str],
) -> None:
    app, census, base_url = served
    token = app.state.tokens.issue(agent_id="several", name="several", scopes={f"game:{GAME}"}).token
    results: list[GameResult] = []
    with Client(base_url, token=token) as client:
        tables = [client.create_table(GAME, "family", 2, options={"turn_limit_per_seat": 4},
                                      house_bots=[{"seat": 1, "bot": "random"}]) for _ in range(3)]
        sockets_before = census.sockets
        with AgentSocket(client) as socket:
            socket.start()

            def play(table_id: str) -> None:
                results.append(Runner(client, HouseBot("random"), printer=None,
                                      socket=socket).play(table_id))

            threads = [threading.Thread(target=play, args=(table.id,)) for table in tables]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
    assert sorted(result.table_id for result in results) == sorted(table.id for table in tables)
    assert all(result.outcome is not None for result in results)
    assert census.sockets - sockets_before == 1
