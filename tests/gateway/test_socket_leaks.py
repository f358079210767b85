"""A whole game over the bot socket: no push, event or answer names a card its reader may
not see.

Every seat and a stranger (an agent seated elsewhere) hold a socket subscribed to the
table with its events. The game is played move by move over the seats' sockets; after
each move every reader's messages of that move are collected and scanned for the card
ids that :func:`engine.<game>.audit.hidden_from` says it may not see, in the state read
through the store before and after the move (as ``tests/gateway/test_leaks.py`` does for
HTTP). The socket runs on a real uvicorn server, so each wait for a message is bounded.
One game is scanned on the Redis Cluster too (:data:`CLUSTER_GAME`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from websockets.sync.client import ClientConnection, connect

from engine.registry import all_games, get_game
from gateway.app import create_app
from gateway.config import Settings
from tests.agents.conftest import serve_app
from tests.gateway.test_leaks import _TOKEN, audit_of, leaked_in, read_state, without_since

MESSAGE_WAIT_S = 15.0
"""How long a reader may take to receive what a move pushed it (a failure, not a pace)."""


@pytest.fixture()
def served(settings: Settings) -> Iterator[tuple[str, FastAPI]]:
    app = create_app(settings)
    with serve_app(app) as base_url:
        yield base_url, app


class Reader:
    """One socket's reader: its seat, what it has been told, and the messages of a move."""

    def __init__(self, seat: int | None, token: str, base_url: str, table_id: str) -> None:
        self.seat = seat
        self.headers = {"Authorization": f"Bearer {token}"}
        self.socket: ClientConnection = connect(
            base_url.replace("http://", "ws://") + "/v1/ws", additional_headers=self.headers,
            compression=None, proxy=None).__enter__()
        assert json.loads(self.socket.recv(timeout=MESSAGE_WAIT_S))["type"] == "welcome"
        self.socket.send(json.dumps({"type": "subscribe", "table_id": table_id,
                                     "events_after": 0}))
        self.events_read = 0
        self.told: dict[int, Any] = {}
        self.latest: dict[str, Any] | None = None
        """The newest observation pushed (a seat's decision)."""
        self.received: list[dict[str, Any]] = []
        """This move's messages, as sent."""

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.socket.recv(timeout=MESSAGE_WAIT_S))
        self.received.append(message)
        if message["type"] == "events":
            for event in message["events"]:
                self.told[event["id"]] = event
            self.events_read = message["last_id"]
        elif message["type"] == "observation":
            self.latest = message["observation"]
        elif message["type"] == "accepted" and message["result"]["observation"] is not None:
            self.latest = message["result"]["observation"]  # a second decision in a row
        return message

    def catch_up(self, http: httpx.Client, table_id: str, version: int,
                 decides: bool) -> None:
        """Receive until every event this reader may see (HTTP's long-poll tells which)
        arrived, and, when it must decide, the observation at ``version``."""
        visible = cursor = self.events_read
        while True:  # a page holds at most 500 events
            page = http.get(f"/v1/tables/{table_id}/events", headers=self.headers,
                            params={"after": cursor}).json()
            if not page["events"]:
                break
            visible, cursor = page["events"][-1]["id"], page["last_id"]
        while self.events_read < visible or (
                decides and (self.latest is None or self.latest["version"] < version)):
            self.receive()


CLUSTER_GAME = "hab-und-gut"
"""The game whose scan runs on the Redis Cluster too: the shorter game (a few seconds a
run), so the socket's reads and pushes through a cluster's slots and shard channels are
scanned without doubling the longer one."""


@pytest.mark.parametrize("game_name", sorted(set(all_games()) - {CLUSTER_GAME}))
def test_no_socket_message_names_a_card_its_reader_may_not_see(
    game_name: str, served: tuple[str, FastAPI], settings: Settings,
    mint_token: Callable[..., str],
) -> None:
    scan_a_whole_game(game_name, served[0], settings, mint_token)


@pytest.mark.redis_cluster
def test_no_socket_message_names_a_card_its_reader_may_not_see_on_every_backend(
    served: tuple[str, FastAPI], settings: Settings, mint_token: Callable[..., str],
) -> None:
    scan_a_whole_game(CLUSTER_GAME, served[0], settings, mint_token)


def scan_a_whole_game(game_name: str, base_url: str, settings: Settings,
                      mint_token: Callable[..., str]) -> None:
    """Play a whole game of ``game_name`` over the seats' sockets, scanning every reader's
    messages after each move (see the module docstring)."""
    audit = audit_of(game_name)
    mode = get_game(game_name).info.modes[0]
    count = max(mode.min_seats, 3)
    tokens = [mint_token(agent_id=f"agent-{i}", name=f"p{i}", games=(game_name,))
              for i in range(count)]
    stranger = mint_token(agent_id="stranger", name="stranger", games=(game_name,))
    organiser = mint_token(agent_id="org", name="org", kind="organiser")
    with httpx.Client(base_url=base_url, timeout=30) as http:
        created = http.post("/v1/tables", headers={"Authorization": f"Bearer {organiser}"},
                            json={"game": game_name, "mode": mode.name, "seats": count,
                                  "seed": 18, "join": False}).json()
        table_id = created["id"]
        for token in tokens:
            http.post(f"/v1/tables/{table_id}/join", headers={"Authorization": f"Bearer {token}"})
        readers = [Reader(seat, token, base_url, table_id) for seat, token in enumerate(tokens)]
        readers.append(Reader(None, stranger, base_url, table_id))
        rng = random.Random(3)
        scanned = 0
        cards_seen: set[str] = set()
        before: Any = None
        try:
            for _move in range(3000):
                state, record = read_state(settings, table_id)
                table = http.get(f"/v1/tables/{table_id}").json()
                to_act = http.get(f"/v1/tables/{table_id}/observation").json()["to_act"]
                for reader in readers:
                    reader.catch_up(http, table_id, table["version"],
                                    decides=record.status == "playing" and reader.seat in to_act)
                    hidden = audit.hidden_from(state, reader.seat)
                    hidden_then = (hidden & audit.hidden_from(before, reader.seat)
                                   if before is not None else hidden)
                    for message in reader.received:
                        if message["type"] == "events" or message["type"] == "accepted":
                            text, secret = json.dumps(message), hidden_then
                        elif message["type"] == "observation":
                            text = without_since(message["observation"], reader.told)
                            secret = hidden
                        else:
                            text, secret = json.dumps(message), hidden
                        assert not leaked_in(text, secret), (reader.seat, message["type"],
                                                             leaked_in(text, secret))
                        cards_seen |= set(_TOKEN.findall(text)) & set(audit.card_locations(state))
                        scanned += 1
                    reader.received.clear()
                if record.status == "finished":
                    break
                actor = readers[to_act[0]]
                assert actor.latest is not None and actor.latest["version"] == table["version"]
                choice = rng.choice(actor.latest["legal_actions"])["id"]
                actor.socket.send(json.dumps({
                    "type": "act", "ref": str(table["version"]), "table_id": table_id,
                    "version": table["version"], "action": choice}))
                while actor.receive()["type"] != "accepted":
                    pass
                before = state
            else:
                raise AssertionError("the table did not finish")
            for reader in readers:  # the end comes last, after every event
                while reader.receive()["type"] != "end":
                    pass
                final = reader.received[-1]["observation"]
                text = without_since(final, reader.told)
                assert not leaked_in(text, audit.hidden_from(state, reader.seat)), reader.seat
        finally:
            for reader in readers:
                reader.socket.close()
    assert scanned > 100
    assert len(cards_seen) > 20  # the scan is not vacuous: readers were told cards they may see
