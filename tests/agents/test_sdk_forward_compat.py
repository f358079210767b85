"""A newer server must not break a deployed SDK; the SDK's requests stay strict.

"A newer server" is the real gateway behind a transport that rewrites its
answers as a later version might: every JSON object gains a member this SDK
has never heard of, and observations come from a game it does not have
installed. The transport changes only the answers' bodies; the requests,
tables and rules are the real app's.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from pydantic import ValidationError
from websockets.sync.server import Server, ServerConnection, serve

import agents
from agents import ActionRequest, CreateTableRequest, ObservationOut, TableOut
from agents.views import typed_view
from engine.registry import UnknownGame

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway

UNKNOWN_GAME = "a-game-from-the-future"


def _grown(value: Any) -> Any:
    """``value`` with a new member in every object, and an unknown game's view."""
    if isinstance(value, list):
        return [_grown(each) for each in value]
    if not isinstance(value, dict):
        return value
    grown = {key: _grown(each) for key, each in value.items()}
    grown["added_in_a_later_version"] = {"note": "a member this SDK does not know"}
    if isinstance(grown.get("view"), dict):
        grown["game"] = UNKNOWN_GAME
        grown["view"] = {"game": UNKNOWN_GAME, "board": [[None, "x"], ["o", None]], "turn": 3}
    return grown


class NewerServer(httpx.BaseTransport):
    """Forwards to the real gateway and grows every JSON answer (see :func:`_grown`)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.grown = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        response.read()
        if not response.headers.get("content-type", "").startswith("application/json"):
            return response
        self.grown += 1
        body = json.dumps(_grown(response.json())).encode()
        headers = {key: value for key, value in response.headers.items()
                   if key.lower() not in {"content-length", "content-encoding"}}
        return httpx.Response(response.status_code, headers=headers, content=body,
                              request=request)

    def close(self) -> None:
        self.inner.close()


def test_answers_with_unknown_fields_and_an_unknown_games_view_still_parse(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    newer = NewerServer()
    seats = short_game["seats"]
    with gateway.client(gateway.mint(games=[short_game["game"]]), transport=newer) as client:
        table = client.create_table(
            short_game["game"], short_game["mode"], seats, options=short_game["options"],
            house_bots=[{"seat": seat} for seat in range(1, seats)])
        assert isinstance(table, TableOut) and table.status == "playing"
        assert client.table(table.id).seated[0].seat == 0
        seen = client.observe(table.id, wait_s=10)  # until seat 0 must act (a bot may open)
        assert isinstance(seen, ObservationOut)
        assert seen.game == UNKNOWN_GAME
        assert seen.view == {"game": UNKNOWN_GAME, "board": [[None, "x"], ["o", None]], "turn": 3}
        assert seen.legal_actions
        # The plain mapping is always there; the typed helper needs the game installed.
        with pytest.raises(UnknownGame):
            typed_view(seen)
        result = client.act(table.id, version=seen.version, action=seen.legal_actions[0].id)
        assert result.version == seen.version + 1 and result.observation is not None
        assert result.observation.game == UNKNOWN_GAME
        assert client.games().games and client.me().name
    assert newer.grown >= 6


def test_typed_view_gives_the_games_model_when_the_engine_has_the_game(
    gateway: RunningGateway, short_game: dict[str, Any]
) -> None:
    seats = short_game["seats"]
    with gateway.client(gateway.mint(games=[short_game["game"]])) as client:
        table = client.create_table(
            short_game["game"], short_game["mode"], seats, options=short_game["options"],
            house_bots=[{"seat": seat} for seat in range(1, seats)])
        seen = client.observe(table.id)
    assert isinstance(seen.view, dict) and seen.view["game"] == short_game["game"]
    from engine.registry import get_game

    typed = typed_view(seen)
    assert isinstance(typed, get_game(short_game["game"]).view_model)
    assert typed.model_dump(mode="json") == seen.view


@pytest.mark.parametrize(("model", "body"), [
    (ActionRequest, {"version": 0, "action": "dominate", "unknown": 1}),
    (ActionRequest, {"version": "0", "action": "dominate"}),
    (CreateTableRequest, {"game": "market-fortune", "mode": "family", "seats": 2, "colour": "red"}),
    (agents.HouseBotSeat, {"seat": 1, "bot": "random", "delay": 3}),
])
def test_request_models_stay_strict(model: type[Any], body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(body)


def _serve_frames(frames: list[str]) -> tuple[Server, str]:
    """A real WebSocket server at ``/v1/ws`` that sends ``frames`` and then waits."""
    def session(connection: ServerConnection) -> None:
        for frame in frames:
            connection.send(frame)
        with contextlib.suppress(Exception):
            connection.recv()  # until the client closes

    server = serve(session, "127.0.0.1", 0, compression=None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.socket.getsockname()[1]}"


def test_the_socket_skips_message_kinds_it_does_not_know() -> None:
    welcome = json.dumps({"type": "welcome", "agent_id": "agent-1", "expires_at": 2e9})
    frames = [
        json.dumps({"type": "from-a-later-version", "payload": [1, 2]}),
        json.dumps({"no_type": True}),
        welcome,
        json.dumps({"type": "welcome", "agent_id": "agent-1"}),  # a known kind, malformed
    ]
    server, base_url = _serve_frames(frames)
    try:
        with agents.Client(base_url, token="t") as client, agents.BotSocket(client) as socket:
            assert socket.open().agent_id == "agent-1"  # the two unknown kinds were skipped
            with pytest.raises(agents.SocketLost, match="unreadable message"):
                socket.receive(timeout_s=5)
    finally:
        server.shutdown()


def _serve_raw(answer: bytes) -> tuple[socket.socket, str]:
    """A TCP server that reads one request and answers ``answer`` (empty: closes at once),
    as a dying worker or a restarting proxy does to a WebSocket upgrade."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _address = listener.accept()
                with connection:
                    connection.recv(65536)
                    if answer:
                        connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return listener, f"http://127.0.0.1:{listener.getsockname()[1]}"


@pytest.mark.parametrize(("answer", "lost"), [
    (b"", True),  # cut before any answer: the worker that took it died
    (b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n", True),
    (b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", False),
])
def test_a_cut_or_refused_upgrade_is_lost_for_now_or_unavailable_for_good(
    answer: bytes, lost: bool,
) -> None:
    """A cut upgrade or a 5xx is :class:`agents.SocketLost`, which the SDK's socket retries;
    only a server that does not serve the socket (a 4xx) is ``SocketUnavailable``, on which
    a runner goes over to HTTP for good."""
    listener, base_url = _serve_raw(answer)
    try:
        expected = agents.SocketLost if lost else agents.SocketUnavailable
        with (agents.Client(base_url, token="t") as client, agents.BotSocket(client) as bot,
              pytest.raises(expected)):
            bot.open()
    finally:
        listener.close()
