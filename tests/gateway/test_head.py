"""``HEAD`` answers like ``GET`` without a body (probes and load balancers send it)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

GAME = "market-fortune"


def test_head_on_health_and_readiness_answers_like_get(client: TestClient) -> None:
    for path in ("/healthz", "/readyz", "/v1/games"):
        got = client.get(path)
        head = client.head(path)
        assert head.status_code == got.status_code == 200
        assert head.content == b""
        assert head.headers["content-length"] == got.headers["content-length"]
        assert head.headers["content-type"] == got.headers["content-type"]


def test_head_on_an_unknown_table_is_the_same_problem_status(client: TestClient) -> None:
    head = client.head("/v1/tables/nope/observation")
    assert head.status_code == 404 and head.content == b""
    assert head.headers["content-type"] == "application/problem+json"


def test_head_on_the_event_stream_ends_after_the_head(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seat = auth(mint_token(agent_id="h0", name="h0", games=(GAME,)))
    table = client.post("/v1/tables", headers=seat, json={
        "game": GAME, "mode": "family", "seats": 2,
        "house_bots": [{"seat": 1}]}).json()
    head = client.head(f"/v1/tables/{table['id']}/events/stream", headers=seat)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"].startswith("text/event-stream")


def test_head_where_only_post_is_routed_is_method_not_allowed(client: TestClient) -> None:
    head = client.head("/v1/tables/_nothing/actions")
    assert head.status_code == 405 and head.content == b""
