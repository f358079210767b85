"""The committed OpenAPI document matches the app, and every operation is fully documented."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agents_club_cli.openapi import (
    contract_removals,
    openapi_document,
    removal_needs_version_raise,
    render,
)

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The app's OpenAPI document, built once for this module."""
    return openapi_document()


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in sorted(document["paths"].items())
        for method, operation in item.items()
        if method in METHODS
    ]


def test_committed_document_matches_the_app(document: dict[str, Any]) -> None:
    committed = COMMITTED.read_text(encoding="utf-8") if COMMITTED.exists() else ""
    assert committed == render(document), (
        "openapi/openapi.json differs from the app: whoever changed a route must run "
        "`.venv/bin/agents-club openapi` and commit openapi/openapi.json"
    )


def test_rendering_is_deterministic(document: dict[str, Any]) -> None:
    assert render(openapi_document()) == render(document)


def test_every_operation_has_a_unique_id_and_a_summary(document: dict[str, Any]) -> None:
    seen: dict[str, str] = {}
    for method, path, operation in _operations(document):
        operation_id = operation.get("operationId")
        assert operation_id, f"{method} {path} has no operationId"
        assert operation_id not in seen, f"{method} {path} reuses {operation_id} of {seen[operation_id]}"
        seen[operation_id] = f"{method} {path}"
        assert operation.get("summary"), f"{method} {path} has no summary"
    assert {"get_health", "get_readiness", "get_jwks", "mint_organiser_token"} <= set(seen)


def test_every_request_body_has_an_example(document: dict[str, Any]) -> None:
    for method, path, operation in _operations(document):
        body = operation.get("requestBody")
        if body is None:
            continue
        media = body["content"]
        assert any("example" in each or "examples" in each for each in media.values()), (
            f"{method} {path} has a request body without an example: add "
            "json_schema_extra={'examples': [...]} to its model or openapi_examples to Body()"
        )


def test_every_operation_documents_its_problems(document: dict[str, Any]) -> None:
    for method, path, operation in _operations(document):
        problems = {
            status: answer
            for status, answer in operation["responses"].items()
            if status.startswith(("4", "5"))
        }
        assert problems, f"{method} {path} lists no error response (use problem_responses())"
        for status, answer in problems.items():
            content = answer.get("content", {})
            assert list(content) == ["application/problem+json"], (
                f"{method} {path} answers {status} as {sorted(content)}, not problem+json"
            )
            media = content["application/problem+json"]
            assert media["schema"] == {"$ref": "#/components/schemas/Problem"}
            assert media.get("examples"), f"{method} {path} {status} has no example problem"
            for example in media["examples"].values():
                assert example["value"]["status"] == int(status)


def test_operations_with_parameters_document_request_invalid(document: dict[str, Any]) -> None:
    for method, path, operation in _operations(document):
        if operation.get("parameters") or operation.get("requestBody"):
            answer = operation["responses"].get("422")
            assert answer is not None, f"{method} {path} takes input but documents no 422"
            examples = answer["content"]["application/problem+json"]["examples"]
            assert any(e["value"]["code"].startswith(("request/", "action/")) for e in examples.values())


ANONYMOUS_OPERATIONS = {
    "list_tables", "get_table", "observe_table", "poll_events", "stream_events", "get_replay",
    "create_admission_challenge", "get_replay_positions", "list_tournaments", "get_tournament",
    "get_tournament_results", "get_tournament_results_csv", "get_tournament_replays",
    "get_tournament_bundle",
    "get_tournament_report",
}
"""The operations that also answer callers without a token (the tournaments' public pages
read them too)."""


def test_schema_names_are_readable_and_no_game_shapes_the_wire(document: dict[str, Any]) -> None:
    """Generators name their classes after components: a module path in a name (from a
    union of every installed game's actions) gave two classes one name."""
    schemas = document["components"]["schemas"]
    for name in schemas:
        assert re.fullmatch(r"[A-Z][A-Za-z0-9]*", name), f"schema name {name!r} is not readable"
    action = schemas["ActionRequest"]["properties"]["action"]
    assert action["anyOf"] == [{"type": "string"}, {"$ref": "#/components/schemas/ActionObject"}]
    assert schemas["ActionObject"]["required"] == ["kind"]
    assert schemas["ActionObject"]["additionalProperties"] is True
    view = schemas["ObservationOut"]["properties"]["view"]["anyOf"]
    assert view[0]["type"] == "object" and view[0]["additionalProperties"] is True
    assert "$ref" not in json.dumps(view)


def test_operations_open_to_anonymous_callers_declare_the_token_optional(
    document: dict[str, Any],
) -> None:
    optional = set()
    for method, path, operation in _operations(document):
        security = operation.get("security", [])
        assert security.count({}) <= 1 and len(security) == len(
            {json.dumps(each, sort_keys=True) for each in security}), (method, path, security)
        if {} in security:
            optional.add(operation["operationId"])
            assert {"HTTPBearer": []} in security, (method, path)
    assert optional == ANONYMOUS_OPERATIONS


def test_anonymous_operations_answer_without_a_token(client: TestClient) -> None:
    """What the document declares optional is: no 401 without a token."""
    assert client.get("/v1/tables").status_code == 200
    for path in ("", "/observation", "/events", "/events/stream", "/replay"):
        response = client.get(f"/v1/tables/no-such-table{path}")
        assert response.json()["code"] == "table/not_found", path
    challenge = client.post("/v1/admission/challenges",
                            json={"agent_name": "anonymous-bot", "game": "no-such-game"})
    assert challenge.json()["code"] == "game/not_found"
    assert client.get("/v1/tables/no-such-table/replay/positions").json()["code"] == "table/not_found"
    assert client.get("/v1/tournaments").status_code == 200
    for path in ("", "/results", "/results.csv", "/replays.jsonl", "/report"):
        response = client.get(f"/v1/tournaments/no-such-tournament{path}")
        assert response.json()["code"] == "tournament/not_found", path


def test_a_body_that_is_not_utf8_is_a_documented_400(
    client: TestClient, document: dict[str, Any]
) -> None:
    response = client.post("/v1/tables", content=b'{"game": "\xff\xfe"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "request/unreadable"
    for method, path, operation in _operations(document):
        if "requestBody" in operation:
            examples = operation["responses"]["400"]["content"]["application/problem+json"]
            assert "request/unreadable" in examples["examples"], (method, path)


def test_last_event_id_is_documented_as_digits_and_served_as_documented(
    client: TestClient, document: dict[str, Any]
) -> None:
    header = next(parameter for parameter in
                  document["paths"]["/v1/tables/{table_id}/events/stream"]["get"]["parameters"]
                  if parameter["name"] == "Last-Event-ID")
    pattern = header["schema"]["pattern"]
    for sent in ("abc", "1" * 19, "-1", "1.0"):
        assert re.fullmatch(pattern.strip("^$"), sent) is None, sent
        response = client.get("/v1/tables/no-such-table/events/stream",
                               headers={"Last-Event-ID": sent})
        assert response.json()["code"] == "request/invalid", sent
    largest = "9" * 18
    assert re.fullmatch(pattern.strip("^$"), largest)
    response = client.get("/v1/tables/no-such-table/events/stream", headers={"Last-Event-ID": largest})
    assert response.json()["code"] == "table/not_found"


def test_nothing_published_is_removed_without_a_major_version_raise(
    document: dict[str, Any],
) -> None:
    """The committed document is the published contract: the app may add to it freely,
    but a removed or renamed operation, parameter, schema, field or error code needs
    ``info.version``'s major raised (docs/api.md, CHANGELOG.md)."""
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert removal_needs_version_raise(committed, document) is None


def _edited(document: dict[str, Any], **version: str) -> dict[str, Any]:
    edited: dict[str, Any] = json.loads(json.dumps(document))
    edited["info"]["version"] = version.get("version", edited["info"]["version"])
    return edited


def test_a_removal_is_named_and_refused_unless_the_major_is_raised(
    document: dict[str, Any],
) -> None:
    new = _edited(document)
    del new["components"]["schemas"]["TableOut"]["properties"]["seated"]
    del new["paths"]["/v1/tables/{table_id}/leave"]
    new["paths"]["/v1/tables/{table_id}/events"]["get"]["parameters"].pop()
    new["components"]["schemas"]["Table"] = new["components"]["schemas"].pop("TableList")
    for operation in (item for each in new["paths"].values() for item in each.values()):
        for answer in operation.get("responses", {}).values():
            answer.get("content", {}).get("application/problem+json", {}).get(
                "examples", {}).pop("table/full", None)
    assert contract_removals(document, new) == [
        "operation leave_table (POST /v1/tables/{table_id}/leave)",
        "parameter wait (query) of poll_events",
        "schema TableList",
        "field TableOut.seated",
        "error code table/full",
    ]
    refusal = removal_needs_version_raise(document, new)
    assert refusal is not None and "field TableOut.seated" in refusal
    minor = _edited(new, version="2.1.0" if document["info"]["version"].startswith("2.") else "1.9.0")
    assert removal_needs_version_raise(document, minor) is not None
    major = _edited(new, version=f"{int(document['info']['version'].split('.')[0]) + 1}.0.0")
    assert removal_needs_version_raise(document, major) is None


def test_additions_need_no_version_raise(document: dict[str, Any]) -> None:
    new = _edited(document)
    new["components"]["schemas"]["TableOut"]["properties"]["tournament"] = {"type": "string"}
    new["components"]["schemas"]["Tournament"] = {"type": "object"}
    assert contract_removals(document, new) == []
