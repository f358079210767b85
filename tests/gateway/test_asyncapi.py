"""The committed AsyncAPI document of ``/v1/ws`` matches the wire models, is a well-formed
AsyncAPI 3 document, and describes the messages a real session exchanges."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft7Validator

from agents.wire import socket as wire
from agents_club_cli.asyncapi import ASYNCAPI_FILE, asyncapi_document
from agents_club_cli.openapi import render
from tests.gateway.tables_helpers import GAME

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / ASYNCAPI_FILE


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return asyncapi_document()


def test_committed_document_matches_the_models(document: dict[str, Any]) -> None:
    committed = COMMITTED.read_text(encoding="utf-8") if COMMITTED.exists() else ""
    assert committed == render(document), (
        "openapi/asyncapi.json differs from agents.wire.socket: run "
        "`.venv/bin/agents-club openapi` and commit openapi/asyncapi.json"
    )


def test_rendering_is_deterministic(document: dict[str, Any]) -> None:
    assert render(asyncapi_document()) == render(document)


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        assert isinstance(node, dict) and part in node, f"{ref} does not resolve"
        node = node[part]
    return node


def test_it_is_a_well_formed_asyncapi_3_document(document: dict[str, Any]) -> None:
    assert document["asyncapi"] == "3.0.0"
    assert document["info"]["title"] and document["info"]["version"]
    for ref in _refs(document):
        _resolve(document, ref)
    for schema in document["components"]["schemas"].values():
        Draft7Validator.check_schema(schema)
    channel = document["channels"]["socket"]
    assert channel["address"] == wire.SOCKET_PATH
    for message in document["components"]["messages"].values():
        assert message["summary"] and message["payload"]["$ref"]
    for operation_id, operation in document["operations"].items():
        assert operation["action"] in ("send", "receive"), operation_id
        assert _resolve(document, operation["channel"]["$ref"]) is channel
        for message in operation["messages"]:
            # AsyncAPI 3: an operation's messages are its channel's.
            assert message["$ref"].startswith("#/channels/socket/messages/"), operation_id
    for code in wire.CLOSE_CODES:
        assert f"`{code}`" in document["info"]["description"]


def test_every_message_kind_is_described(document: dict[str, Any]) -> None:
    sent = {operation["messages"][0]["$ref"].rsplit("/", 1)[-1]
            for operation in document["operations"].values() if operation["action"] == "send"}
    received = {operation["messages"][0]["$ref"].rsplit("/", 1)[-1]
                for operation in document["operations"].values()
                if operation["action"] == "receive"}
    assert sent == {"auth", "subscribe", "unsubscribe", "subscribe_assignments", "act"}
    assert received == {"welcome", "observation", "events", "end", "assignments", "accepted",
                        "problem"}


def _validator(document: dict[str, Any], kind: str) -> Draft7Validator:
    payload = document["components"]["messages"][kind]["payload"]["$ref"]
    return Draft7Validator({**document, "$ref": payload})


def test_a_real_session_speaks_the_documented_messages(
    document: dict[str, Any], client: TestClient, mint_token: Callable[..., str],
) -> None:
    token = mint_token(agent_id="documented", name="documented", games=(GAME,))
    headers = {"Authorization": f"Bearer {token}"}
    table_id = client.post("/v1/tables", headers=headers, json={
        "game": GAME, "mode": "family", "seats": 2, "house_bots": [{"seat": 1}]}).json()["id"]
    sent: list[dict[str, Any]] = []
    received: list[dict[str, Any]] = []

    with client.websocket_connect("/v1/ws") as socket:
        def send(message: dict[str, Any]) -> None:
            sent.append(message)
            socket.send_text(json.dumps(message))

        send({"type": "auth", "token": token})
        send({"type": "subscribe", "table_id": table_id, "events_after": 0})
        send({"type": "subscribe_assignments"})
        send({"type": "act", "ref": "bad", "table_id": table_id, "version": 10**6,
              "action": "end"})
        acted = 0
        while sum(message["type"] == "accepted" for message in received) < 2:
            message = socket.receive_json()
            received.append(message)
            if message["type"] == "observation" and message["observation"]["legal_actions"]:
                observation = message["observation"]
                send({"type": "act", "ref": f"r{acted}", "table_id": table_id,
                      "version": observation["version"],
                      "action": observation["legal_actions"][0]["id"],
                      "idempotency_key": f"k{observation['version']}"})
                acted += 1
        send({"type": "unsubscribe", "table_id": table_id})
    kinds = {message["type"] for message in received}
    assert {"welcome", "observation", "events", "problem", "accepted"} <= kinds
    for message in sent + received:
        errors = list(_validator(document, message["type"]).iter_errors(message))
        assert not errors, (message["type"], errors[0].message)
