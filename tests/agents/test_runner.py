"""The runner: it plays to the end through refusals and through a server outage."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from agents import Bot, Client, HouseBot, Observation, RetryPolicy, Runner
from gateway.app import create_app
from tests.agents.conftest import sdk_settings, serve_app

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from tests.agents.conftest import RunningGateway


class Stubborn(Bot):
    """Always answers an id no game has: the runner must not loop on it forever."""

    def choose(self, observation: Observation) -> str:
        return "no-such-action"


class NoSocket:
    """An older gateway: every WebSocket is refused before it opens (HTTP 403), as a server
    without the ``/v1/ws`` route answers; HTTP passes through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1000})
            return
        await self.app(scope, receive, send)


class Outage(httpx.BaseTransport):
    """Passes requests through, except that the 4th to the 15th find no server."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.sent = 0
        self.refused = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        if 4 <= self.sent <= 15:
            self.refused += 1
            raise httpx.ConnectError("the server is restarting (test)")
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_refused_choices_are_replaced_by_the_first_legal_action(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        table = client.create_table(
            **{**short_game, "options": {"turn_limit_per_seat": 3}},
            house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])],
        )
        result = Runner(client, Stubborn(), printer=None, max_refusals_per_turn=2).play(table.id)
    assert result.outcome is not None
    assert result.substitutes == result.actions > 0
    assert len(result.refused) == 2 * result.substitutes
    assert all(refusal.startswith("action/malformed") for refusal in result.refused)


class Counting(httpx.BaseTransport):
    """Passes requests through, counting them."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_the_runner_plays_over_the_socket_by_default(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    counting = Counting()
    lines: list[str] = []
    token = gateway.mint(games=[short_game["game"]])
    with Client(gateway.base_url, token=token, transport=counting) as client:
        table = client.create_table(
            **short_game, house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])]
        )
        result = Runner(client, HouseBot("random"), printer=lines.append).play(table.id)
    assert result.outcome is not None and result.actions > 3
    assert counting.sent == ["POST /v1/tables"]  # every decision went over the socket
    assert sum(line.startswith("> seat 0 plays") for line in lines) == result.actions
    assert any(line.startswith("  [") for line in lines)  # the events were printed too
    assert not any("socket" in line for line in lines)


def test_the_runner_falls_back_to_http_where_the_server_has_no_socket(
    redis_url: str, gateway_namespace: str, tmp_path: Path, short_game: dict[str, Any],
) -> None:
    settings = sdk_settings(redis_url, gateway_namespace + "-old", tmp_path)
    app = create_app(settings)
    lines: list[str] = []
    with serve_app(NoSocket(app)) as base_url:  # an older gateway
        token = app.state.tokens.issue(agent_id="old", name="old", scopes={f"game:{short_game['game']}"}).token
        with Client(base_url, token=token) as client:
            table = client.create_table(
                **short_game,
                house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])])
            result = Runner(client, HouseBot("random"), printer=lines.append).play(table.id)
    assert result.outcome is not None and result.actions > 0
    assert any("no socket" in line for line in lines)


def test_the_game_survives_a_server_outage(gateway: RunningGateway, short_game: dict[str, Any]) -> None:
    outage = Outage()
    fast = RetryPolicy(max_retries=2, backoff_base_s=0.01, backoff_cap_s=0.05)
    lines: list[str] = []
    token = gateway.mint(games=[short_game["game"]])
    with Client(gateway.base_url, token=token, transport=outage, retry=fast) as client:
        table = client.create_table(
            **short_game, house_bots=[{"seat": s, "bot": "random"} for s in range(1, short_game["seats"])]
        )
        result = Runner(client, HouseBot("random"), printer=lines.append,
                        transport="http").play(table.id)
    assert result.outcome is not None
    assert outage.refused == 12 and result.reconnects >= 1
    assert any("connection lost" in line for line in lines)


def test_a_turn_announced_with_its_first_action_is_printed_before_that_move(gateway: RunningGateway) -> None:
    """Hab & Gut announces "Round 1, turn 1" in the events of the turn's first action.

    The announcement comes first in the game, so it is printed above the move;
    a turn a move starts (the next one) is printed after it.
    """
    lines: list[str] = []
    with gateway.client(gateway.mint(games=["hab-und-gut"])) as client:
        table = client.create_table("hab-und-gut", "standard", 3, seed=1,
                                    house_bots=[{"seat": s, "bot": "greedy"} for s in (1, 2)])  # fmt: skip
        result = Runner(client, HouseBot("greedy"), printer=lines.append).play(table.id)
    assert result.outcome is not None
    announcements = [at for at, line in enumerate(lines) if "is the first player." in line]
    assert announcements
    first_move = next(at for at, line in enumerate(lines) if line.startswith("> seat 0 plays "))
    assert "Round 1, turn 1: seat 0 is the first player." in lines[first_move - 1]
    for at in announcements:  # never between a move and the events that move caused
        assert not lines[at - 1].startswith("> ")
    assert lines[-1].endswith(f"after {result.actions} actions — {result.outcome.text}")


def test_a_tokenless_observation_is_warned_about_and_stops_the_runner(
    gateway: RunningGateway, short_game: dict[str, Any], caplog: Any
) -> None:
    """The server answers a request without a token with the spectator's view: the SDK
    logs a warning and the runner (which plays the LLM agent too) says so, instead of
    waiting for a turn that never comes."""
    with gateway.client(gateway.mint()) as seated:
        table = seated.create_table(**short_game, house_bots=[{"seat": 1}])
    with gateway.client() as tokenless:
        with caplog.at_level("WARNING", logger="agents"):
            observed = tokenless.observe(table.id)
        assert observed.spectator_reason == "no_token"
        assert any("without a token" in record.getMessage() for record in caplog.records)
        try:
            Runner(tokenless, HouseBot("random"), printer=None).play(table.id)
        except ValueError as refused:
            assert "without a token" in str(refused)
        else:
            raise AssertionError("the runner played a table it holds no seat at")
