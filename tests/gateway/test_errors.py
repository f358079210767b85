"""Every error is problem+json with a stable code: 404, 405, 422, malformed JSON, 500."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient

from .conftest import ORGANISER_KEY

PROBLEM = "application/problem+json"


def test_unknown_path_is_request_not_found(client: TestClient) -> None:
    answer = client.get("/v1/no-such-thing")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == PROBLEM
    body = answer.json()
    assert body["code"] == "request/not_found"
    assert body["type"].endswith("/request/not_found")
    assert body["status"] == 404 and body["instance"] == "/v1/no-such-thing"


def test_wrong_method_is_method_not_allowed_with_allow(client: TestClient) -> None:
    answer = client.delete("/healthz")
    assert answer.status_code == 405
    assert answer.headers["content-type"] == PROBLEM
    assert answer.json()["code"] == "request/method_not_allowed"
    assert "GET" in answer.headers["allow"]


def test_method_not_allowed_names_every_method_served_at_the_path(client: TestClient) -> None:
    # Two routes share /v1/tables (list with GET, create with POST): both are named.
    answer = client.delete("/v1/tables")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD, POST"
    assert answer.json()["detail"].endswith("allowed: GET, HEAD, POST.")


def test_schema_violations_list_their_errors_without_echoing_input(client: TestClient) -> None:
    secret_value = "acs_do-not-echo-this-value"
    answer = client.post(
        "/v1/auth/organiser/tokens",
        headers={"X-Organiser-Key": ORGANISER_KEY},
        json={"name": 7, "ttl_s": "long", "password": secret_value},
    )
    assert answer.status_code == 422
    assert answer.headers["content-type"] == PROBLEM
    body = answer.json()
    assert body["code"] == "request/invalid"
    locations = {tuple(error["loc"]) for error in body["errors"]}
    assert {("body", "name"), ("body", "ttl_s"), ("body", "password")} <= locations
    assert all(set(error) == {"loc", "msg", "type"} for error in body["errors"])
    assert secret_value not in answer.text


def test_malformed_json_is_request_invalid(client: TestClient) -> None:
    answer = client.post(
        "/v1/auth/organiser/tokens",
        headers={"X-Organiser-Key": ORGANISER_KEY, "content-type": "application/json"},
        content=b'{"name": "x",',
    )
    assert answer.status_code == 422
    assert answer.json()["code"] == "request/invalid"
    wrong_type = client.post(
        "/v1/auth/organiser/tokens",
        headers={"X-Organiser-Key": ORGANISER_KEY},
        json=["not", "an", "object"],
    )
    assert wrong_type.json()["code"] == "request/invalid"


def test_an_unexpected_error_is_a_bare_500_problem(app: FastAPI) -> None:
    @app.get("/boom", include_in_schema=False)
    async def boom() -> None:
        raise RuntimeError("internal detail: /srv/secret/path password=hunter2")

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/boom")
    assert answer.status_code == 500
    assert answer.headers["content-type"] == PROBLEM
    body = answer.json()
    assert body["code"] == "server/error"
    assert set(body) == {"type", "title", "status", "detail", "code", "instance"}
    for leak in ("RuntimeError", "hunter2", "/srv/secret", "Traceback"):
        assert leak not in answer.text


def test_a_huge_path_is_not_echoed_whole(client: TestClient) -> None:
    response = client.get("/v1/tables/" + "x" * 20_000)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert len(response.json()["instance"]) <= 300
    assert len(response.json()["detail"]) <= 300


def test_a_body_that_is_not_json_is_told_so_with_where(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    # Told apart from a schema mismatch: "body.13" read like a field name, not a place.
    me = auth(mint_token(agent_id="notjson", name="n", games=("market-fortune",)))
    cut = b'{"name": "x",'
    for path in ("/v1/tables", "/v1/tables/0123456789abcdef/actions"):
        answer = client.post(path, headers={**me, "content-type": "application/json",
                                            "Idempotency-Key": "k"}, content=cut)
        assert answer.status_code == 422, path
        body = answer.json()
        assert body["code"] == "request/invalid"
        assert body["detail"] == f"The body is not valid JSON (at character {len(cut)}).", path
        assert body["errors"][0]["type"] == "json_invalid"
