"""Reads that wait hold their caller to its token the whole time, not only when they start.

A held observation, a long-poll and above all an SSE stream (open for as long
as the table lasts) would otherwise go on telling a seat's view and private
events to a token revoked because it leaked, or by a secret rotation: each
wake asks Redis about the token again before anything it read is told, and a
stream closes when its token expires. The revocations run on a Redis without
``CONFIG`` too, as managed services have it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.config import Settings

from .tables_helpers import agents, follow_stream, in_background, seated_table

Headers = dict[str, str]
TOKEN_CLOSED = ": closed: the token expired or was revoked"


@pytest.fixture()
def settings(settings: Settings) -> Settings:
    """No verification leeway, so an expiring token ends a stream on the second it says."""
    return settings.model_copy(update={"jwt_leeway_s": 0})


def play_until(client: TestClient, table_id: str, seats: list[Headers], done: Callable[[dict[str, Any]], bool]) -> None:
    """Let the seat to act take its first legal action until ``done(observation)``."""
    for _ in range(200):
        now = client.get(f"/v1/tables/{table_id}/observation").json()
        if now["status"] != "playing" or done(now):
            return
        actor = now["to_act"][0]
        mine = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
        client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
            "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    raise AssertionError("the table never reached the wanted state")


def first_to_act(client: TestClient, table_id: str) -> int:
    seat: int = client.get(f"/v1/tables/{table_id}/observation").json()["to_act"][0]
    return seat


def act_once(client: TestClient, table_id: str, headers: Headers) -> None:
    """The seat of ``headers`` takes its first legal action (it must be to act)."""
    mine = client.get(f"/v1/tables/{table_id}/observation", headers=headers).json()
    assert mine["legal_actions"], mine
    acted = client.post(f"/v1/tables/{table_id}/actions", headers=headers, json={
        "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    assert acted.status_code == 200, acted.text


def table_with_watcher(
    client: TestClient, seats: list[Headers], seed: int
) -> tuple[str, int, Headers]:
    """A started table, the seat to act first, and the other seat's headers (the reader)."""
    table_id = seated_table(client, seats, seed=seed)
    actor = first_to_act(client, table_id)
    return table_id, actor, seats[1 - actor]


def revoke(client: TestClient, headers: Headers) -> None:
    assert client.post("/v1/auth/revoke", headers=headers, json={}).status_code == 200


@pytest.mark.managed_redis
def test_a_stream_tells_nothing_after_its_token_is_revoked(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "sse-revoked")
    table_id, actor, watcher = table_with_watcher(client, seats, 3)
    reader, frames, failed = follow_stream(client, table_id, watcher)
    last_seen = client.get(f"/v1/tables/{table_id}/events").json()["last_id"]
    revoke(client, watcher)
    act_once(client, table_id, seats[actor])  # events the stream must not tell
    reader.join(timeout=10)
    assert not reader.is_alive(), "the stream went on after its token was revoked"
    assert failed == [None]
    text = "\n".join(frames)
    assert TOKEN_CLOSED in text and "event: end" not in text
    told = [int(line[4:]) for line in frames if line.startswith("id: ")]
    assert all(event_id <= last_seen for event_id in told)
    again = client.get(f"/v1/tables/{table_id}/events/stream", headers=watcher)
    assert again.status_code == 401 and again.json()["code"] == "auth/revoked"


def test_a_stream_closes_when_its_token_expires(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "sse-expiring")
    table_id = seated_table(client, seats, seed=4)
    short = auth(mint_token(agent_id="sse-expiring1", name="sse-expiring1",
                            games=("market-fortune",), ttl_s=2))
    started = time.monotonic()
    with client.stream("GET", f"/v1/tables/{table_id}/events/stream", headers=short) as stream:
        assert stream.status_code == 200
        text = "\n".join(stream.iter_lines())  # no event comes: only the expiry ends it
    assert 1 <= time.monotonic() - started < 5
    assert TOKEN_CLOSED in text and "event: end" not in text
    assert "event: table.started" in text  # what came before the expiry was told


@pytest.mark.managed_redis
def test_a_long_poll_is_refused_when_its_token_is_revoked_while_it_waits(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "poll-revoked")
    table_id, actor, watcher = table_with_watcher(client, seats, 5)
    last_id = client.get(f"/v1/tables/{table_id}/events", headers=watcher).json()["last_id"]
    poller, answered = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/events", headers=watcher,
        params={"after": last_id, "wait": 20}))
    time.sleep(0.3)
    revoke(client, watcher)
    act_once(client, table_id, seats[actor])
    poller.join(timeout=10)
    assert not poller.is_alive()
    response = answered[0]
    assert response.status_code == 401, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "auth/revoked"
    assert "events" not in response.json()


@pytest.mark.managed_redis
def test_a_held_observation_is_refused_when_its_token_is_revoked_while_it_waits(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "observe-revoked")
    table_id = seated_table(client, seats, seed=6)
    first = client.get(f"/v1/tables/{table_id}/observation").json()
    waiting = 1 - first["to_act"][0]  # the seat that is not to act waits for its turn
    observer, answered = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=seats[waiting], params={"wait": 20}))
    time.sleep(0.3)
    revoke(client, seats[waiting])
    play_until(client, table_id, seats, lambda now: waiting in now["to_act"])
    observer.join(timeout=10)
    assert not observer.is_alive()
    response = answered[0]
    assert response.status_code == 401, response.text
    assert response.json()["code"] == "auth/revoked"
    assert "view" not in response.json() and "legal_actions" not in response.json()


def test_a_held_observation_ends_when_its_token_expires(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "observe-expiring")
    table_id, actor, _watcher = table_with_watcher(client, seats, 7)
    waiting = 1 - actor
    short = auth(mint_token(agent_id=f"observe-expiring{waiting}", name=f"observe-expiring{waiting}",
                            games=("market-fortune",), ttl_s=2))
    started = time.monotonic()
    response = client.get(f"/v1/tables/{table_id}/observation", headers=short, params={"wait": 20})
    assert 1 <= time.monotonic() - started < 5  # not the 20 s asked for
    assert response.status_code == 401 and response.json()["code"] == "auth/expired"
    assert "view" not in response.json()
