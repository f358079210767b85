"""Rate limits in Redis: challenges per client address and per agent name, token requests per agent.

Each limit is hit (429, ``Retry-After``, problem+json ``retry_after``) and then
released once its window has passed: on the app's clock (:mod:`gateway.clock`),
which the tests move instead of sleeping.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx2 import Response

from gateway.services.admission import AdmissionSettings
from tests.fake_clock import FakeClock
from tests.gateway.test_admission_flow import register

GAME = "market-fortune"
CHALLENGES = "/v1/admission/challenges"


def ask(client: TestClient, name: str) -> Response:
    return client.post(CHALLENGES, json={"agent_name": name, "game": GAME})


def fresh_window(app: FastAPI, window_s: int) -> FakeClock:
    """The app's clock, stopped just after a fixed window began: a burst stays inside it."""
    clock = FakeClock()
    clock.now += window_s - clock.now % window_s + 0.02
    app.state.clock = clock
    return clock


def assert_limited(response: Response, window_s: int = 2) -> int:
    """The response is a 429 problem; returns its ``retry_after``."""
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert problem["code"] == "rate/limited"
    retry_after = problem["retry_after"]
    assert isinstance(retry_after, int) and 1 <= retry_after <= window_s
    assert response.headers["Retry-After"] == str(retry_after)
    return retry_after


@pytest.mark.redis_cluster
def test_challenges_per_agent_name(app: FastAPI) -> None:
    app.state.admission_settings = AdmissionSettings(challenges_per_name=2, challenge_window_s=2)
    clock = fresh_window(app, 2)
    with TestClient(app) as client:
        assert ask(client, "lena-bot").status_code == 201
        assert ask(client, "LENA-bot").status_code == 201
        retry_after = assert_limited(ask(client, "lena-bot"))
        assert ask(client, "other-bot").status_code == 201  # another name has its own window
        clock.advance(retry_after)
        assert ask(client, "lena-bot").status_code == 201


def test_challenges_per_client_address(app: FastAPI) -> None:
    app.state.admission_settings = AdmissionSettings(challenges_per_address=3, challenge_window_s=2)
    clock = fresh_window(app, 2)
    with TestClient(app) as client:
        for name in ("m1-bot", "m2-bot", "m3-bot"):
            assert ask(client, name).status_code == 201
        retry_after = assert_limited(ask(client, "m4-bot"))
        clock.advance(retry_after)
        assert ask(client, "m4-bot").status_code == 201


@pytest.mark.redis_cluster
def test_token_requests_per_agent(app: FastAPI) -> None:
    app.state.admission_settings = AdmissionSettings(token_requests_per_agent=3, token_window_s=3)
    clock = fresh_window(app, 3)
    with TestClient(app) as client:
        agent = register(client, "nina-bot")
        credentials = {"agent_id": agent["agent_id"], "secret": agent["secret"]}
        wrong = {**credentials, "secret": "acs_guess"}
        # wrong guesses count too: the limit is what stops secret guessing
        assert client.post("/v1/auth/token", json=wrong).status_code == 401
        assert client.post("/v1/auth/token", json=credentials).status_code == 200
        assert client.post("/v1/auth/token", json=credentials).status_code == 200
        retry_after = assert_limited(client.post("/v1/auth/token", json=credentials), 3)
        assert_limited(client.post("/v1/auth/secret", json=credentials), 3)
        clock.advance(retry_after)
        assert client.post("/v1/auth/token", json=credentials).status_code == 200


def test_token_requests_per_client_address(app: FastAPI) -> None:
    app.state.admission_settings = AdmissionSettings(token_requests_per_address=3, token_window_s=3)
    clock = fresh_window(app, 3)
    with TestClient(app) as client:
        # guesses spread over many agent ids still meet the per-address limit
        for number in range(3):
            guess = {"agent_id": f"agt_guess{number}", "secret": "acs_guess"}
            assert client.post("/v1/auth/token", json=guess).status_code == 401
        retry_after = assert_limited(
            client.post("/v1/auth/token", json={"agent_id": "agt_guess9", "secret": "acs_guess"}), 3
        )
        clock.advance(retry_after)
        assert client.post(
            "/v1/auth/token", json={"agent_id": "agt_guess9", "secret": "acs_guess"}
        ).status_code == 401
