"""Health, readiness, metrics, configuration guards and logs that never hold a secret."""

from __future__ import annotations

import io
import logging
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import ValidationError

from gateway import __version__ as gateway_version
from gateway.app import create_app
from gateway.config import MIN_ORGANISER_KEY_LENGTH, Settings
from gateway.logging_config import REDACTED, configure_logging, scrub
from gateway.metrics import LATENCY_BUCKETS_S
from tests.prometheus_text import sample

from .conftest import ORGANISER_KEY, MintToken, new_signing_key_pem

Auth = Callable[[str], dict[str, str]]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "version": gateway_version}
    assert client.get("/readyz").json() == {"status": "ok"}


def test_readyz_is_a_503_problem_when_redis_is_down(settings: Settings) -> None:
    down = settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{_closed_port()}/0"})
    with TestClient(create_app(down)) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.headers["content-type"] == "application/problem+json"
        assert ready.json()["code"] == "server/unavailable"
        assert client.get("/metrics").status_code == 200  # in the process, not in Redis


def test_metrics_count_requests_by_route_template_and_problems_by_code(client: TestClient) -> None:
    # The counters are this process's (the tests share one): compare before and after.
    before = client.get("/metrics").text
    for _ in range(3):
        client.get("/healthz")
    client.get("/v1/tables/does-not-exist-at-all/nothing")
    client.get("/openapi.json")
    client.get("/docs")
    text = client.get("/metrics").text
    assert client.get("/metrics").headers["content-type"].startswith("text/plain; version=0.0.4")

    def grew(name: str, **labels: str) -> float:
        return sample(text, name, **labels) - sample(before, name, **labels)

    assert "# TYPE agents_club_http_requests_total counter" in text
    # Each check names the method too: another test's POST to an unmatched path is
    # another series, and would be read in place of this one.
    assert grew("agents_club_http_requests_total", method="GET", route="/healthz",
                status="200") == 3
    assert grew("agents_club_http_requests_total", method="GET", route="unmatched",
                status="404") == 1
    assert "does-not-exist" not in text  # raw paths never become labels
    # Starlette's own routes (the API document and its pages) are labelled by path too.
    assert grew("agents_club_http_requests_total", method="GET", route="/openapi.json",
                status="200") == 1
    assert grew("agents_club_http_requests_total", method="GET", route="/docs",
                status="200") == 1
    assert grew("agents_club_http_request_duration_seconds_count", route="/healthz") == 3
    buckets = [
        line for line in text.splitlines()
        if line.startswith('agents_club_http_request_duration_seconds_bucket{le="')
        and 'route="/healthz"' in line
    ]
    bounds = [re.findall(r'le="([^"]+)"', line)[0] for line in buckets]
    assert bounds[-1] == "+Inf"
    assert [float(b) for b in bounds[:-1]] == list(LATENCY_BUCKETS_S)
    assert grew("agents_club_problems_total", code="request/not_found") == 1
    assert sample(text, "agents_club_workers") >= 1


@pytest.mark.parametrize("environment", ["production"])
def test_config_refuses_default_secrets_outside_development(environment: str,
                                                            tmp_path: Path) -> None:
    strong = "k" * MIN_ORGANISER_KEY_LENGTH
    pem = new_signing_key_pem()
    base = {"environment": environment, "data_dir": tmp_path}
    refusals = [
        ({}, "AGENTS_CLUB_SIGNING_KEY_PEM is missing"),
        ({"signing_key_pem": pem}, "AGENTS_CLUB_ORGANISER_KEY is missing"),
        ({"signing_key_pem": pem, "organiser_key": "changeme"}, "well-known default"),
        ({"signing_key_pem": pem, "organiser_key": "short-key"}, "shorter than"),
        ({"signing_key_pem": "  ", "organiser_key": strong}, "SIGNING_KEY_PEM is missing"),
    ]
    for values, reason in refusals:
        with pytest.raises(ValueError, match=reason):
            Settings.model_validate({**base, **values})
    accepted = Settings.model_validate({**base, "signing_key_pem": pem, "organiser_key": strong})
    assert accepted.environment == "production"
    for relaxed in ("development", "test"):
        assert Settings.model_validate({"environment": relaxed}).organiser_key is None


def test_config_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTS_CLUB_ENVIRONMENT", "production")
    monkeypatch.setenv("AGENTS_CLUB_ORGANISER_KEY", "changeme")
    monkeypatch.setenv("AGENTS_CLUB_SIGNING_KEY_PEM", new_signing_key_pem())
    monkeypatch.setenv("REDIS_URL", "redis://example:6379/0")
    with pytest.raises(ValidationError, match="well-known default") as refused:
        Settings()
    assert "changeme" not in str(refused.value).replace("AGENTS_CLUB", "")
    assert "PRIVATE KEY" not in str(refused.value)  # pydantic would echo the whole input
    monkeypatch.setenv("AGENTS_CLUB_ORGANISER_KEY", "a-long-but-unsafe-key-in-" + "x" * 3)
    with pytest.raises(ValidationError, match="shorter than") as refused:
        Settings()
    assert "a-long-but-unsafe-key" not in str(refused.value)
    monkeypatch.setenv("AGENTS_CLUB_ORGANISER_KEY", "x" * 40)
    assert Settings().redis_url == "redis://example:6379/0"


def test_scrub_removes_every_shape_of_secret() -> None:
    jwt_like = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl"
    for text in (
        f"Authorization: Bearer {jwt_like}",
        f"headers={{'authorization': 'Bearer abc.def'}} {jwt_like}",
        "GET /v1/tables/t1/stream?access_token=abcdef123456&after=3",
        '{"secret": "acs_abcdefghijklmnop"}',
        "x-organiser-key: hunter2hunter2",
        "organiser_key=hunter2hunter2",
    ):
        cleaned = scrub(text, ["hunter2hunter2"])
        for leak in (jwt_like, "abc.def", "abcdef123456", "acs_abcdefghijklmnop", "hunter2hunter2"):
            assert leak not in cleaned, (text, cleaned)
        assert REDACTED in cleaned


def test_logs_never_contain_a_token_or_a_secret(
    app: FastAPI, settings: Settings, mint_token: MintToken, auth: Auth
) -> None:
    captured = io.StringIO()
    assert settings.signing_key_pem
    handler = configure_logging(
        level="DEBUG", fmt="json", stream=captured,
        secrets=[ORGANISER_KEY, settings.signing_key_pem],
    )
    token = mint_token(games=["market-fortune"])

    @app.get("/explode", include_in_schema=False)
    async def explode() -> None:
        raise RuntimeError(f"failed with Authorization: Bearer {token} and key {ORGANISER_KEY}")

    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.get("/v1/agents/me", headers=auth(token)).status_code == 200
            client.get(f"/v1/agents/me?access_token={token}")
            minted = client.post("/v1/auth/organiser/tokens",
                                 headers={"X-Organiser-Key": ORGANISER_KEY}, json={"name": "dan"})
            client.post("/v1/auth/organiser/tokens", headers=auth(ORGANISER_KEY),
                        json={"name": "eve", "secret": "acs_body-secret-value"})
            assert client.get("/explode", headers=auth(token)).status_code == 500
            logging.getLogger("gateway.test").info(
                "debugging %s with headers %r", token, {"Authorization": f"Bearer {token}"}
            )
            logging.getLogger("gateway.test").warning("signing key is %s", settings.signing_key_pem)
    finally:
        logging.getLogger().removeHandler(handler)
    output = captured.getvalue()
    assert "GET /v1/agents/me 200" in output and "unhandled error" in output
    assert '"agent_id": "agent-1"' in output  # who called is logged; their token is not
    assert "Traceback" in output  # the traceback is kept, scrubbed
    pem_body = [line for line in settings.signing_key_pem.splitlines() if "-----" not in line]
    for leak in (token, minted.json()["access_token"], ORGANISER_KEY, "acs_body-secret-value",
                 *pem_body):
        assert leak not in output


def test_shutdown_does_not_wait_forever_for_a_stubborn_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    import gateway.app as gateway_app

    monkeypatch.setattr(gateway_app, "SHUTDOWN_GRACE_S", 0.5)

    async def scenario() -> float:
        release = asyncio.Event()

        async def stubborn() -> None:
            # The bug guarded against: a background task that swallows cancellation.
            while not release.is_set():
                try:
                    await release.wait()
                except asyncio.CancelledError:
                    continue

        async def polite() -> None:
            await asyncio.sleep(10)

        swallowed = 0

        async def loses_one_cancellation() -> None:
            # What a cancellation racing a wait_for timeout looks like from outside.
            nonlocal swallowed
            while True:
                try:
                    await asyncio.sleep(10)
                except asyncio.CancelledError:
                    swallowed += 1
                    if swallowed > 1:
                        raise

        tasks = [asyncio.create_task(stubborn()), asyncio.create_task(polite()),
                 asyncio.create_task(loses_one_cancellation())]
        await asyncio.sleep(0)
        started = time.monotonic()
        try:
            await gateway_app._stop_tasks(tasks)
            elapsed = time.monotonic() - started
            assert tasks[1].cancelled() and tasks[2].cancelled()
            assert not tasks[0].done()  # given up on after the grace period, not waited for
        finally:
            release.set()  # let the stubborn task end so asyncio.run can close
        await tasks[0]
        return elapsed

    assert asyncio.run(scenario()) < 2


def test_the_redis_socket_timeout_must_outlast_a_commits_replica_wait() -> None:
    with pytest.raises(ValueError, match="REDIS_SOCKET_TIMEOUT_S must exceed"):
        Settings(redis_replica_wait=1, redis_replica_wait_timeout_ms=5000)
    waits = Settings(redis_replica_wait=1, redis_replica_wait_timeout_ms=4500)
    assert waits.redis_socket_timeout_s == 5.0
    assert Settings(redis_replica_wait_timeout_ms=60_000).redis_replica_wait == 0  # no WAIT sent
