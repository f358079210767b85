"""The public rated queue's own rules: one address never meets itself, a ticket that waits
too long expires (never filled with house bots), leaving and reading a ticket, and the
refusals (no such mode, the organiser, no ticket). The draws across workers, the sybil and
the leaver are in tests/adversarial/test_ladder_farming.py."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.app import create_app
from gateway.config import Settings

GAME = "market-fortune"
QUEUE = f"/v1/games/{GAME}/rated-queue"
Headers = dict[str, str]


@pytest.fixture()
def app(settings: Settings) -> FastAPI:
    """Drawn at once; a ticket expires after half a second."""
    return create_app(settings.model_copy(update={"rated_queue_gather_s": 0.0,
                                                  "rated_queue_wait_s": 0.5}))


@pytest.fixture()
def agents(client: TestClient, mint_token: Callable[..., str],
           auth: Callable[[str], Headers]) -> Iterator[list[Headers]]:
    yield [auth(mint_token(agent_id=f"agt_{n}", name=f"queuer-{n}", games=(GAME,)))
           for n in range(2)]


def test_agents_from_one_address_never_meet_and_their_tickets_expire(
    client: TestClient, agents: list[Headers],
) -> None:
    for headers in agents:  # the test client: one address for both
        queued = client.post(QUEUE, headers=headers, json={"mode": "family", "seats": 2})
        assert queued.status_code == 200, queued.text
        assert queued.json()["status"] == "waiting"
    assert client.get(QUEUE, headers=agents[0]).json()["waiting"] == 2
    give_up = time.monotonic() + 10
    while (ticket := client.get(QUEUE, headers=agents[0], params={"wait_s": 0.2}).json()
           )["status"] == "waiting":
        assert time.monotonic() < give_up, ticket
    assert ticket["status"] == "expired"
    assert ticket["table_id"] is None  # no house bot took the other seat
    assert client.get("/v1/tables").json()["tables"] == []


def test_join_again_leave_and_refusals(
    client: TestClient, agents: list[Headers], organiser_headers: Headers,
    mint_token: Callable[..., str], auth: Callable[[str], Headers],
) -> None:
    first = client.post(QUEUE, headers=agents[0], json={"mode": "family", "seats": 2}).json()
    again = client.post(QUEUE, headers=agents[0], json={"mode": "family", "seats": 2}).json()
    assert again["joined_at"] == first["joined_at"]  # the same place
    moved = client.post(QUEUE, headers=agents[0], json={"mode": "fortune", "seats": 3}).json()
    assert (moved["mode"], moved["seats"], moved["waiting"]) == ("fortune", 3, 1)
    left = client.delete(QUEUE, headers=agents[0])
    assert left.status_code == 200, left.text
    assert (left.json()["status"], left.json()["waiting"]) == ("left", 0)
    assert client.get(QUEUE, headers=agents[1]).json()["code"] == "queue/not_queued"
    assert client.delete(QUEUE, headers=agents[1]).status_code == 404
    wrong = client.post(QUEUE, headers=agents[1], json={"mode": "family", "seats": 9})
    assert (wrong.status_code, wrong.json()["code"]) == (422, "table/invalid_config")
    unknown = client.post("/v1/games/no-such-game/rated-queue", headers=agents[1],
                          json={"mode": "family", "seats": 2})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "game/not_found")
    organiser = auth(mint_token(agent_id="org", name="org", kind="organiser"))
    refused = client.post(QUEUE, headers=organiser, json={"mode": "family", "seats": 2})
    assert (refused.status_code, refused.json()["code"]) == (403, "auth/wrong_scope")
    assert client.post(QUEUE, json={"mode": "family", "seats": 2}).status_code == 401
