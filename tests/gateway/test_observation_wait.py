"""``observation?wait=`` holds the answer until it is worth sending; actions answer with the next observation.

The waits woken by another caller's write run on a Redis without ``CONFIG`` too, as
managed services have it: what wakes them is the writer's publish.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from .tables_helpers import GAME, agents, organiser_auth, seated_table

SEED = 11
"""The deal these tests play."""


def in_background(call: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """Run ``call`` in a thread; the dict gets its ``answer`` and how long it ``took``."""
    out: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        out["answer"] = call()
        out["took"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def actor_and_waiter(client: TestClient, table_id: str, seats: list[dict[str, str]]) -> tuple[int, int]:
    first = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0]).json()
    actor = first["to_act"][0]
    return actor, 1 - actor


def test_the_seat_to_act_is_answered_at_once(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    actor, _ = actor_and_waiter(client, table_id, seats)
    started = time.monotonic()
    held = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor], params={"wait": 10})
    assert held.status_code == 200
    assert time.monotonic() - started < 2
    assert held.json()["legal_actions"]
    plain = client.get(f"/v1/tables/{table_id}/observation", headers=seats[actor]).json()
    assert held.json() == plain


@pytest.mark.managed_redis
def test_a_waiting_seat_is_answered_when_its_turn_comes_and_not_before(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    actor, waiter = actor_and_waiter(client, table_id, seats)
    path = f"/v1/tables/{table_id}/observation"
    thread, out = in_background(
        lambda: client.get(path, headers=seats[waiter], params={"wait": 20}).json())
    turns_passed = False
    # The actor plays until the turn passes; every action before that wakes the
    # server's wait but must not answer the waiting seat.
    now = client.get(path, headers=seats[actor]).json()
    for _ in range(200):
        time.sleep(0.02)
        assert "answer" not in out, "answered while the other seat was still to act"
        applied = client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
            "version": now["version"], "action": now["legal_actions"][-1]["id"]})
        assert applied.status_code == 200, applied.text
        now = applied.json()["observation"]
        if waiter in now["to_act"] or now["status"] == "finished":
            turns_passed = True
            break
    assert turns_passed
    thread.join(15)
    answer = out["answer"]
    assert answer["version"] == now["version"]
    assert waiter in answer["to_act"] and answer["legal_actions"]
    # What happened since its last move came with the woken read (the same round trip
    # as the table): the same as a fresh observation reads on its own.
    assert answer["since_your_last_move"]
    assert answer == client.get(path, headers=seats[waiter]).json()


def test_the_wait_runs_out_with_the_current_observation(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    _, waiter = actor_and_waiter(client, table_id, seats)
    started = time.monotonic()
    held = client.get(f"/v1/tables/{table_id}/observation", headers=seats[waiter],
                      params={"wait": 0.4}).json()
    assert 0.35 <= time.monotonic() - started < 5
    assert held["legal_actions"] == [] and waiter not in held["to_act"]


@pytest.mark.managed_redis
def test_a_spectator_is_answered_when_the_table_changes(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    actor, _ = actor_and_waiter(client, table_id, seats)
    path = f"/v1/tables/{table_id}/observation"
    before = client.get(path).json()
    thread, out = in_background(lambda: client.get(path, params={"wait": 20}).json())
    time.sleep(0.3)
    assert "answer" not in out
    mine = client.get(path, headers=seats[actor]).json()
    client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
        "version": mine["version"], "action": mine["legal_actions"][0]["id"]})
    thread.join(15)
    assert out["answer"]["version"] == before["version"] + 1
    assert out["answer"]["seat"] is None and out["answer"]["legal_actions"] == []


@pytest.mark.managed_redis
def test_a_seat_waiting_at_an_open_table_is_answered_when_it_starts(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table = client.post("/v1/tables", headers=organiser_auth(client), json={
        "game": GAME, "mode": "family", "seats": 2, "seed": 3, "join": False}).json()
    assert client.post(f"/v1/tables/{table['id']}/join", headers=seats[0]).status_code == 200
    path = f"/v1/tables/{table['id']}/observation"

    def observe(headers: dict[str, str]) -> Any:
        return client.get(path, headers=headers, params={"wait": 20}).json()

    watchers = [in_background(functools.partial(observe, h)) for h in seats[:1]]
    time.sleep(0.3)
    client.post(f"/v1/tables/{table['id']}/join", headers=seats[1])
    first_to_act = client.get(path, headers=seats[1]).json()["to_act"][0]
    thread, out = watchers[0]
    if first_to_act == 0:
        thread.join(15)
        assert out["answer"]["status"] == "playing" and out["answer"]["legal_actions"]
    else:  # seat 0 keeps waiting for its turn: the start alone is not worth an answer
        time.sleep(0.3)
        assert "answer" not in out
        mine = client.get(path, headers=seats[1]).json()
        while 0 not in mine["to_act"]:
            mine = client.post(f"/v1/tables/{table['id']}/actions", headers=seats[1], json={
                "version": mine["version"], "action": mine["legal_actions"][-1]["id"]}).json()["observation"]
        thread.join(15)
        assert out["answer"]["legal_actions"]


def test_the_action_answer_holds_the_same_observation_a_get_would(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    path = f"/v1/tables/{table_id}/observation"
    for step in range(40):
        actor = client.get(path, headers=seats[0]).json()["to_act"][0]
        mine = client.get(path, headers=seats[actor]).json()
        if mine["status"] == "finished":
            break
        key = {**seats[actor], "Idempotency-Key": f"step-{step}"}
        body = {"version": mine["version"], "action": mine["legal_actions"][-1]["id"]}
        applied = client.post(f"/v1/tables/{table_id}/actions", headers=key, json=body)
        assert applied.status_code == 200, applied.text
        carried = applied.json()["observation"]
        assert carried == client.get(path, headers=seats[actor]).json()
        # A retry with the same key answers the same, observation included.
        again = client.post(f"/v1/tables/{table_id}/actions", headers=key, json=body)
        assert again.json() == applied.json()


def test_wait_out_of_bounds_is_a_problem(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    for wait in ("-1", "61", "soon"):
        answer = client.get(f"/v1/tables/{table_id}/observation", headers=seats[0],
                            params={"wait": wait})
        assert answer.status_code == 422
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.json()["code"] == "request/invalid"


def test_a_wait_that_runs_out_answers_with_what_happened_meanwhile(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    """The waiter skips reading the table while the events say it is still not its turn;
    when the wait runs out it still answers with the table as it is now."""
    seats = agents(mint_token, auth, "w")
    table_id = seated_table(client, seats, seed=SEED)
    actor, waiter = actor_and_waiter(client, table_id, seats)
    path = f"/v1/tables/{table_id}/observation"
    mine = client.get(path, headers=seats[actor]).json()
    # Drawing a building card keeps the turn with the actor (rulebook: Build, then more).
    keeps_turn = "build:stock_deck"
    assert keeps_turn in [a["id"] for a in mine["legal_actions"]]
    thread, out = in_background(
        lambda: client.get(path, headers=seats[waiter], params={"wait": 1.5}).json())
    time.sleep(0.3)
    applied = client.post(f"/v1/tables/{table_id}/actions", headers=seats[actor], json={
        "version": mine["version"], "action": keeps_turn}).json()
    thread.join(15)
    answer = out["answer"]
    assert applied["observation"]["to_act"] == [actor]
    assert out["took"] >= 1.0 and answer["legal_actions"] == []
    assert answer["version"] == applied["version"]
    assert answer["last_event_id"] == applied["observation"]["last_event_id"]


def test_a_held_observation_never_tells_a_seat_its_caller_left(
    client: TestClient, mint_token: Callable[..., str], auth: Callable[[str], dict[str, str]],
) -> None:
    # Alice holds an observation at an open table, leaves it (another request) and
    # Carol takes her seat: the held answer is Alice's view, not the seat's new hand.
    bob, alice, carol, dave = agents(mint_token, auth, "h", count=4)
    table_id = client.post("/v1/tables", headers=organiser_auth(client), json={
        "game": GAME, "mode": "family", "seats": 3, "seed": SEED, "join": False}).json()["id"]
    assert client.post(f"/v1/tables/{table_id}/join", headers=bob).json()["your_seat"] == 0
    assert client.post(f"/v1/tables/{table_id}/join", headers=alice).json()["your_seat"] == 1
    path = f"/v1/tables/{table_id}/observation"
    thread, out = in_background(lambda: client.get(path, headers=alice, params={"wait": 3}))
    time.sleep(0.3)
    assert client.post(f"/v1/tables/{table_id}/leave", headers=alice).status_code == 200
    assert client.post(f"/v1/tables/{table_id}/join", headers=carol).json()["your_seat"] == 1
    assert client.post(f"/v1/tables/{table_id}/join", headers=dave).json()["status"] == "playing"
    thread.join(15)
    held = out["answer"]
    assert held.status_code == 200
    carols = client.get(path, headers=carol).json()
    assert held.json()["seat"] is None, held.json()["summary"]
    assert held.json()["view"] != carols["view"]
