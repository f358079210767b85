"""The request examples in the OpenAPI document are true: sent to the real app, they work.

Every example of every request body (those on the operation and those on its
schema component) is sent as it is. Only values no static document can hold
are filled in from a real scene first: an agent's id, secret and token (the
placeholders in :data:`PLACEHOLDERS`). Admission answers cannot be right for a
challenge dealt at random, so that example must be graded (a score), or refused
only for answers typed against that challenge's own questions and puzzle kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from agents.wire.admission import AnswersRequest
from agents_club_cli.openapi import openapi_document
from engine.registry import all_games
from gateway.services.admission import AdmissionSettings
from tests.gateway.test_admission_flow import register

PLACEHOLDERS = ("agt_0123456789abcdef0123", "acs_...", "eyJ...")
"""Values in the document's examples that stand for an agent's id, secret and token."""

SECOND_AGENT = "agt_fedcba9876543210fedc"
"""A second agent's id in the examples (a tournament's entrants)."""


@pytest.fixture()
def examples_client(app: FastAPI) -> Iterator[TestClient]:
    """A client with the default admission settings (admission examples are sent too)."""
    app.state.admission_settings = AdmissionSettings()
    with TestClient(app) as client:
        yield client


def request_examples(document: dict[str, Any]) -> list[tuple[str, str, str, str, Any]]:
    """``(operation id, method, path, example name, body)`` for every request example (an
    operation's copy of its schema's example counted once)."""
    components = document["components"]["schemas"]
    found: list[tuple[str, str, str, str, Any]] = []
    seen: set[str] = set()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            media = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if media is None:
                continue
            ref = media.get("schema", {}).get("$ref", "")
            schema = components.get(ref.rsplit("/", 1)[-1], {}) if ref else {}
            named = [(name, example["value"]) for name, example in media.get("examples", {}).items()]
            named += [(f"schema-{n}", value) for n, value in enumerate(schema.get("examples", []), 1)]
            for name, value in named:
                key = json.dumps([operation["operationId"], value], sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    found.append((operation["operationId"], method, path, name, value))
    return found


def _filled(value: Any, real: dict[str, str]) -> Any:
    if isinstance(value, str):
        return real.get(value, value)
    if isinstance(value, list):
        return [_filled(each, real) for each in value]
    if isinstance(value, dict):
        return {key: _filled(each, real) for key, each in value.items()}
    return value


EXAMPLES = request_examples(openapi_document())


def test_the_examples_cover_the_operations_that_take_a_body() -> None:
    operations = {operation_id for operation_id, *_ in EXAMPLES}
    assert {"create_table", "submit_action", "create_admission_challenge",
            "answer_admission_challenge", "exchange_agent_credentials"} <= operations


@pytest.mark.parametrize(
    ("operation_id", "method", "path", "name", "body"), EXAMPLES,
    ids=[f"{operation_id}:{name}" for operation_id, _, _, name, _ in EXAMPLES],
)
def test_every_request_example_is_accepted(
    examples_client: TestClient,
    mint_token: Callable[..., str],
    auth: Callable[[str], dict[str, str]],
    organiser_headers: dict[str, str],
    operation_id: str,
    method: str,
    path: str,
    name: str,
    body: Any,
) -> None:
    """Each example in a fresh namespace: examples of different operations may use the
    same agent name, as a reader trying them one by one would."""
    client = examples_client
    player = auth(mint_token(agent_id="examples", name="examples", games=sorted(all_games())))
    label = f"{operation_id} example {name!r}"
    headers: dict[str, str] = {}
    target = path
    if operation_id in {"create_table", "submit_action", "join_rated_queue"}:
        headers = player
    target = target.replace("{game}", "market-fortune")
    if operation_id == "submit_action":
        table = client.post("/v1/tables", headers=player, json={
            "game": "market-fortune", "mode": "family", "seats": 2, "seed": 1,
            "house_bots": [{"seat": 1}]})
        assert table.status_code == 201, table.text
        assert client.get(f"/v1/tables/{table.json()['id']}/observation",
                          headers=player).json()["to_act"] == [0]
        target = path.replace("{table_id}", table.json()["id"])
    if operation_id == "answer_admission_challenge":
        challenge = client.post("/v1/admission/challenges",
                                json={"agent_name": "examples-answer", "game": "market-fortune"})
        assert challenge.status_code == 201, challenge.text
        AnswersRequest.model_validate(body)  # the request's own schema takes it as it is
        graded = client.post(path.replace("{challenge_id}", challenge.json()["challenge_id"]),
                             json=body)
        if graded.status_code == 422:
            # Typed against this challenge's own questions and puzzle kind (dealt at random):
            # every complaint names an answer or the puzzle, none the request's shape.
            problem = graded.json()
            assert problem["code"] == "request/invalid", (label, graded.text)
            assert all(error["loc"][:2] in (["body", "answers"], ["body", "puzzle"])
                       for error in problem["errors"]), (label, graded.text)
            return
        assert graded.status_code == 403, (label, graded.text)
        assert graded.json()["code"] == "admission/failed", label
        return
    if operation_id in {"mint_organiser_token", "create_tournament"}:
        headers = organiser_headers
    if operation_id == "update_me":
        headers = auth(register(client, "examples-me")["access_token"])
    if operation_id == "mint_organiser_token" and "predecessor" in repr(body):
        # A predecessor must have the new agent's owner: one the organiser registered.
        earlier = client.post("/v1/auth/organiser/tokens", headers=organiser_headers,
                              json={"name": "examples-v1"}).json()["agent_id"]
        body = _filled(body, {PLACEHOLDERS[0]: earlier})
    if SECOND_AGENT in repr(body):
        body = _filled(body, {SECOND_AGENT: register(client, "examples-second")["agent_id"]})
    if any(placeholder in repr(body) for placeholder in PLACEHOLDERS):
        agent = register(client, "examples-agent")
        body = _filled(body, dict(zip(PLACEHOLDERS, (
            agent["agent_id"], agent["secret"], agent["access_token"]), strict=True)))
        if operation_id == "revoke_token":
            headers = auth(agent["access_token"])
    elif operation_id == "revoke_token":
        headers = auth(mint_token(agent_id="examples-revoke", name="examples-revoke"))
    response = client.request(method.upper(), target, json=body, headers=headers)
    assert 200 <= response.status_code < 300, (label, response.status_code, response.text)
