"""A revocation cuts held requests at once, not when their wait runs out.

A held observation, long-poll or SSE stream watches its token's revocation
mark (:mod:`gateway.services.waiters`): the revocation's write wakes the
request, whose read refuses the token, instead of the request staying open
until its wait or the stream's next keep-alive. Nothing happens at the table here,
so only the revocation can end them; the bounds are generous (seconds against
the 20 s the requests ask to wait) so a slow machine does not make them flaky.
The cuts run on a Redis without ``CONFIG`` too, as managed services have it: the
wake is a publish, never a keyspace notification.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from .tables_helpers import agents, follow_stream, in_background, seated_table

Headers = dict[str, str]
CUT_WITHIN_S = 5.0
"""Well under the 20 s each request asks to wait and the 15 s keep-alive of a stream."""


def revoke(client: TestClient, headers: Headers) -> float:
    """Revoke the token of ``headers``; when it was revoked (monotonic)."""
    assert client.post("/v1/auth/revoke", headers=headers, json={}).status_code == 200
    return time.monotonic()


def waiting_seat(client: TestClient, table_id: str) -> int:
    """The seat that is not to act first (its held observation waits)."""
    to_act: list[int] = client.get(f"/v1/tables/{table_id}/observation").json()["to_act"]
    return 1 - to_act[0]


@pytest.mark.managed_redis
def test_a_held_observation_is_cut_when_its_token_is_revoked(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "cut-observe")
    table_id = seated_table(client, seats, seed=11)
    waiting = waiting_seat(client, table_id)
    observer, answered = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/observation", headers=seats[waiting], params={"wait": 20}))
    time.sleep(0.5)
    assert observer.is_alive()  # held: it is not its turn
    revoked_at = revoke(client, seats[waiting])
    observer.join(timeout=20)
    assert time.monotonic() - revoked_at < CUT_WITHIN_S
    response = answered[0]
    assert response.status_code == 401 and response.json()["code"] == "auth/revoked"
    assert "view" not in response.json()


@pytest.mark.managed_redis
def test_a_long_poll_is_cut_when_its_token_is_revoked(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "cut-poll")
    table_id = seated_table(client, seats, seed=12)
    last_id = client.get(f"/v1/tables/{table_id}/events", headers=seats[0]).json()["last_id"]
    poller, answered = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/events", headers=seats[0], params={"after": last_id, "wait": 20}))
    time.sleep(0.5)
    assert poller.is_alive()
    revoked_at = revoke(client, seats[0])
    poller.join(timeout=20)
    assert time.monotonic() - revoked_at < CUT_WITHIN_S
    response = answered[0]
    assert response.status_code == 401 and response.json()["code"] == "auth/revoked"


@pytest.mark.managed_redis
def test_a_stream_is_cut_when_its_token_is_revoked(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "cut-stream")
    table_id = seated_table(client, seats, seed=13)
    reader, frames, failed = follow_stream(client, table_id, seats[1])
    time.sleep(0.3)
    assert reader.is_alive()
    revoked_at = revoke(client, seats[1])
    reader.join(timeout=20)
    assert time.monotonic() - revoked_at < CUT_WITHIN_S
    assert failed == [None]
    assert ": closed: the token expired or was revoked" in "\n".join(frames)


def test_an_anonymous_long_poll_is_not_cut_by_someone_elses_revocation(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    seats = agents(mint_token, auth, "cut-other")
    table_id = seated_table(client, seats, seed=14)
    last_id = client.get(f"/v1/tables/{table_id}/events").json()["last_id"]
    poller, answered = in_background(lambda: client.get(
        f"/v1/tables/{table_id}/events", params={"after": last_id, "wait": 2}))
    time.sleep(0.3)
    revoke(client, seats[0])
    poller.join(timeout=20)
    response = answered[0]
    assert response.status_code == 200 and response.json()["events"] == []  # ran its 2 s


@pytest.mark.managed_redis
def test_a_held_assignments_wait_is_cut_when_its_token_is_revoked(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    headers = agents(mint_token, auth, "cut-assignments", count=1)[0]
    waiter, answered = in_background(lambda: client.get(
        "/v1/agents/me/assignments", headers=headers, params={"wait": 20}))
    time.sleep(0.5)
    assert waiter.is_alive()  # held: no tournament assigns this agent anything
    revoked_at = revoke(client, headers)
    waiter.join(timeout=20)
    assert time.monotonic() - revoked_at < CUT_WITHIN_S
    response = answered[0]
    assert response.status_code == 401 and response.json()["code"] == "auth/revoked"
