"""A Redis that accepts connections but never answers: every Redis-backed route answers 503
``server/unavailable`` with ``Retry-After`` within a bounded time (about twice
``AGENTS_CLUB_REDIS_SOCKET_TIMEOUT_S``) instead of holding the request for ever; a commit
whose reply never comes is "unknown", as a lost reply is (a retry with the same
``Idempotency-Key`` finds what applied)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

from .lossy_proxy import LossyProxy
from .test_redis_outage import assert_unavailable, redis_backed_requests

Headers = dict[str, str]
BODY = {"game": "market-fortune", "mode": "family", "seats": 2}
SOCKET_TIMEOUT_S = 0.4


class SilentListener:
    """A TCP listener on loopback that accepts every connection, reads what comes, and never
    answers a byte."""

    def __init__(self) -> None:
        self.port = 0
        self.accepted = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._swallow, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        # Stopped: end the connections still being read, then close the loop itself (an
        # unclosed loop leaks its self-pipe, which a later test would be blamed for).
        server.close()
        reading = asyncio.all_tasks(self._loop)
        for task in reading:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*reading, return_exceptions=True))
        self._loop.close()

    async def _swallow(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        with contextlib.suppress(OSError):
            while await reader.read(65536):
                pass
        writer.close()

    @contextlib.contextmanager
    def running(self) -> Iterator[SilentListener]:
        self._thread.start()
        self._ready.wait(5)
        try:
            yield self
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)


def test_a_redis_that_never_answers_is_answered_503_in_bounded_time(
    settings: Settings, mint_token: Callable[..., str], auth: Callable[[str], Headers],
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = auth(mint_token(agent_id="a-1", name="a1", games=("market-fortune",)))
    caplog.set_level(logging.INFO)
    with SilentListener().running() as silent:
        app = create_app(settings.model_copy(update={
            "redis_url": f"redis://127.0.0.1:{silent.port}/0",
            "redis_socket_timeout_s": SOCKET_TIMEOUT_S,
            "sweeper_interval_s": 0.05}))
        started = time.monotonic()
        with TestClient(app, raise_server_exceptions=False) as client:
            assert time.monotonic() - started < 5, "the worker's start waited on the silence"
            assert client.get("/healthz").status_code == 200
            began = time.monotonic()
            ready = client.get("/readyz")
            assert ready.status_code == 503 and "retry-after" in ready.headers
            assert time.monotonic() - began < 3 * SOCKET_TIMEOUT_S + 1
            began = time.monotonic()
            answers = redis_backed_requests(client, agent)
            took = time.monotonic() - began
            assert_unavailable(answers)
            # Each request: at most a connect and a read cut by the socket timeout, and the
            # one retry on a fresh connection; eight of them.
            assert took < len(answers) * (4 * SOCKET_TIMEOUT_S + 0.5), took
            assert silent.accepted > 0
    assert not [record for record in caplog.records if "unhandled error" in record.getMessage()]
    loop_errors = [record.getMessage() for record in caplog.records
                   if record.name.startswith("gateway.services")
                   and record.levelno >= logging.ERROR]
    assert loop_errors and len(loop_errors) == len(set(loop_errors)), loop_errors


@pytest.fixture()
def proxy(redis_url: str) -> Iterator[LossyProxy]:
    address = urlsplit(redis_url)
    with LossyProxy(address.hostname or "127.0.0.1", address.port or 6379).running() as running:
        yield running


@pytest.fixture()
def proxied(settings: Settings, proxy: LossyProxy) -> Settings:
    # Long enough that the real Redis behind the proxy always answers in time on a busy
    # machine; short enough to keep the test quick.
    return settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{proxy.port}/0",
                                       "redis_socket_timeout_s": 1.0})


def test_a_commit_whose_reply_never_comes_is_unknown_and_retried_safely(
    proxied: Settings, proxy: LossyProxy,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    creator = auth(mint_token(agent_id="c-1", name="c1", games=("market-fortune",)))
    joiner = auth(mint_token(agent_id="j-1", name="j1", games=("market-fortune",)))
    with TestClient(create_app(proxied), raise_server_exceptions=False) as client:
        # A create: the reply stalls; the answer is the table (the retry on a fresh
        # connection met its own record) or 503, never a 500 nor a second table.
        keyed = {**creator, "Idempotency-Key": "create-stall"}
        proxy.stall_reply_to(b"table.created")
        first = client.post("/v1/tables", headers=keyed, json=BODY)
        assert proxy.stalled == 1
        assert first.status_code in (201, 503), first.text
        again = client.post("/v1/tables", headers=keyed, json=BODY)
        assert again.status_code == 201, again.text
        table_id = again.json()["id"]
        assert [t["id"] for t in client.get("/v1/tables").json()["tables"]] == [table_id]
        # A join: the same.
        keyed = {**joiner, "Idempotency-Key": "join-stall"}
        proxy.stall_reply_to(b"seat.joined")
        first = client.post(f"/v1/tables/{table_id}/join", headers=keyed)
        assert proxy.stalled == 2
        assert first.status_code in (200, 503), first.text
        again = client.post(f"/v1/tables/{table_id}/join", headers=keyed)
        assert again.status_code == 200 and again.json()["status"] == "playing", again.text
        # An action: its commit's reply stalls; it applied once, and the retry is answered
        # with that same action.
        for headers in (creator, joiner):
            observation = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
            if observation["legal_actions"]:
                break
        else:
            raise AssertionError("nobody to act")
        keyed = {**headers, "Idempotency-Key": "act-stall"}
        move = {"version": observation["version"], "action": observation["legal_actions"][0]["id"]}
        proxy.stall_reply_to(b"EVALSHA", b"act-stall")
        first = client.post(f"/v1/tables/{table_id}/actions", headers=keyed, json=move)
        assert proxy.stalled == 3
        assert first.status_code in (200, 503), first.text
        again = client.post(f"/v1/tables/{table_id}/actions", headers=keyed, json=move)
        assert again.status_code == 200, again.text
        if first.status_code == 200:
            assert first.json() == again.json()
        after = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
        assert after["version"] == again.json()["version"] > observation["version"]
