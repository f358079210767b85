"""Retries: 429 and 503 answers from the real gateway are waited out as ``Retry-After`` says.

The 429 comes from the admission rate limit (a short window set on this
module's gateway); the 503 from a second gateway whose Redis does not answer.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi import FastAPI

import agents
from agents import Client, RetryNotice, RetryPolicy
from gateway import __version__ as gateway_version
from gateway.app import create_app
from gateway.services.admission import AdmissionSettings

if TYPE_CHECKING:
    from tests.agents.conftest import RunningGateway


@pytest.fixture()
def strict_admission(gateway: RunningGateway) -> None:
    """One challenge per agent name per 1-second window on this module's gateway.

    The limit counts in fixed windows (``now // window``); the test starts just
    after a window opens, so its quick requests all fall in the same one.
    """
    gateway.app.state.admission_settings = AdmissionSettings(challenges_per_name=1, challenge_window_s=1)
    time.sleep(1.0 - time.time() % 1.0 + 0.01)


def test_rate_limit_is_waited_out_as_retry_after_says(gateway: RunningGateway, strict_admission: None) -> None:
    notices: list[RetryNotice] = []
    name = f"patient-{uuid.uuid4().hex[:6]}"
    with Client(gateway.base_url, on_retry=notices.append) as client:
        client.create_challenge(name, "market-fortune")
        started = time.monotonic()
        second = client.create_challenge(name, "market-fortune")
        waited = time.monotonic() - started
    assert second.agent_name == name
    assert len(notices) == 1
    notice = notices[0]
    assert (notice.status, notice.method, notice.path, notice.attempt) == (429, "POST", "/v1/admission/challenges", 1)
    assert notice.wait_s == 1.0  # the server's Retry-After, not a backoff of ours
    assert waited >= notice.wait_s


def test_rate_limit_surfaces_when_retries_are_off_or_the_wait_is_too_long(
    gateway: RunningGateway, strict_admission: None
) -> None:
    name = f"hasty-{uuid.uuid4().hex[:6]}"
    with Client(gateway.base_url, retry=RetryPolicy(max_retries=0)) as client:
        client.create_challenge(name, "market-fortune")
        with pytest.raises(agents.RateLimited) as limited:
            client.create_challenge(name, "market-fortune")
    assert limited.value.retry_after == 1.0
    assert limited.value.problem["retry_after"] == int(limited.value.retry_after or 0)
    with Client(gateway.base_url, retry=RetryPolicy(max_wait_s=0.5)) as impatient:
        started = time.monotonic()
        with pytest.raises(agents.RateLimited):
            impatient.create_challenge(name, "market-fortune")
        assert time.monotonic() - started < 0.5


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unavailable_server_is_retried_after_its_retry_after(
    gateway: RunningGateway, serve: Callable[[FastAPI], Any]
) -> None:
    settings = gateway.settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{_dead_port()}/0"})
    notices: list[RetryNotice] = []
    with serve(create_app(settings)) as base_url, Client(
        base_url, retry=RetryPolicy(max_retries=2), on_retry=notices.append
    ) as client:
        assert client.healthz() == {"status": "ok", "version": gateway_version}
        started = time.monotonic()
        with pytest.raises(agents.ServiceUnavailable) as unavailable:
            client.readyz()
        waited = time.monotonic() - started
    assert unavailable.value.status == 503
    assert [(n.status, n.wait_s) for n in notices] == [(503, 1.0), (503, 1.0)]
    assert waited >= 2.0


class _RefusesFirst(httpx.BaseTransport):
    """Refuses the first ``refusals`` connections, like a server still starting."""

    def __init__(self, refusals: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.refusals = refusals

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.refusals > 0:
            self.refusals -= 1
            raise httpx.ConnectError("connection refused (test)")
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def test_refused_connections_are_retried_with_backoff_even_for_posts(gateway: RunningGateway) -> None:
    notices: list[RetryNotice] = []
    policy = RetryPolicy(backoff_base_s=0.05)
    token = gateway.mint(games=["market-fortune"])
    with Client(gateway.base_url, token=token, transport=_RefusesFirst(2), retry=policy, on_retry=notices.append) as client:
        table = client.create_table("market-fortune", "family", 2, options={"turn_limit_per_seat": 2}, private=True)
    assert table.your_seat == 0
    assert [n.status for n in notices] == [None, None]
    assert all(0 < n.wait_s <= 0.1 for n in notices)
    stubborn = _RefusesFirst(10)
    policy = RetryPolicy(max_retries=1, backoff_base_s=0.01)
    with Client(gateway.base_url, transport=stubborn, retry=policy) as client, pytest.raises(agents.TransportError):
        client.healthz()
    assert stubborn.refusals == 8  # the first try and one retry
