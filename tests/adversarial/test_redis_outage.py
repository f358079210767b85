"""Redis down: every Redis-backed route answers 503 ``server/unavailable`` with
``Retry-After`` (not 500, and the connection stays usable), ``/healthz`` stays 200 while
``/readyz`` says 503, the background loops back off and log once per outage, and
everything works again when Redis is back."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from agents_club_cli.embedded_redis import EmbeddedRedis, free_port
from gateway.app import create_app
from gateway.config import Settings

Headers = dict[str, str]


def redis_backed_requests(client: TestClient, agent: Headers) -> list[tuple[str, httpx2.Response]]:
    """One request of each kind that needs Redis, with its answer."""
    return [
        ("list", client.get("/v1/tables")),
        ("create", client.post("/v1/tables", headers=agent, json={
            "game": "market-fortune", "mode": "family", "seats": 2})),
        ("show", client.get("/v1/tables/0123456789abcdef")),
        ("observe", client.get("/v1/tables/0123456789abcdef/observation", headers=agent)),
        ("act", client.post("/v1/tables/0123456789abcdef/actions", headers=agent,
                            json={"version": 0, "action": "pass"})),
        ("events", client.get("/v1/tables/0123456789abcdef/events", headers=agent)),
        ("me", client.get("/v1/agents/me", headers=agent)),
        ("challenge", client.post("/v1/admission/challenges",
                                  json={"agent_name": "probe", "game": "market-fortune"})),
    ]


def assert_unavailable(answers: list[tuple[str, httpx2.Response]]) -> None:
    for name, answer in answers:
        assert answer.status_code == 503, (name, answer.text)
        assert answer.json()["code"] == "server/unavailable", name
        assert int(answer.headers["retry-after"]) >= 1, name


def test_no_redis_listening_answers_503_and_the_loops_back_off(
    settings: Settings, mint_token: Callable[..., str], auth: Callable[[str], Headers],
    caplog: pytest.LogCaptureFixture,
) -> None:
    nowhere = settings.model_copy(update={
        "redis_url": f"redis://127.0.0.1:{free_port()}/0", "sweeper_interval_s": 0.05})
    app = create_app(nowhere)
    agent = auth(mint_token(agent_id="a-1", name="a1", games=("market-fortune",)))
    caplog.set_level(logging.INFO)
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503 and "retry-after" in ready.headers
        assert_unavailable(redis_backed_requests(client, agent))
        # The counters live in the process, not in Redis: they stay readable, and count the
        # outage's answers.
        metrics = client.get("/metrics")
        assert metrics.status_code == 200
        assert 'agents_club_problems_total{code="server/unavailable"}' in metrics.text
        time.sleep(1.5)  # 30 rounds of each loop at its normal interval
    loop_errors = [record for record in caplog.records
                   if record.name.startswith("gateway.services")
                   and record.levelno >= logging.ERROR]
    messages = [record.getMessage() for record in loop_errors]
    # Each loop says it once for the outage (not five times a second).
    assert messages and len(messages) == len(set(messages)), messages
    assert any(message.startswith("turn-clock sweep failed") for message in messages)
    assert not [record for record in caplog.records if "unhandled error" in record.getMessage()]


def test_redis_stopped_then_back(
    settings: Settings, mint_token: Callable[..., str], auth: Callable[[str], Headers],
    tmp_path: Path,
) -> None:
    redis_dir = tmp_path / "redis"
    redis_dir.mkdir()
    server = EmbeddedRedis(redis_dir, persistent=False).start()
    port = server.port
    try:
        app = create_app(settings.model_copy(update={"redis_url": server.url}))
        agent = auth(mint_token(agent_id="a-1", name="a1", games=("market-fortune",)))
        with TestClient(app, raise_server_exceptions=False) as client:
            created = client.post("/v1/tables", headers=agent, json={
                "game": "market-fortune", "mode": "family", "seats": 2})
            assert created.status_code == 201
            server.stop()
            assert client.get("/healthz").status_code == 200
            assert client.get("/readyz").status_code == 503
            assert_unavailable(redis_backed_requests(client, agent))
            server = EmbeddedRedis(redis_dir, persistent=False, port=port).start()
            deadline = time.monotonic() + 10
            while client.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "never ready again"
                time.sleep(0.1)
            again = client.post("/v1/tables", headers=agent, json={
                "game": "market-fortune", "mode": "family", "seats": 2})
            assert again.status_code == 201, again.text
    finally:
        server.stop()
